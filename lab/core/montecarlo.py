"""What accept + correct outputs at one position, exactly and by seeded Monte-Carlo (chapter 7).

A token x ~ q is kept with probability min(1, p(x)/q(x)); after a rejection a replacement comes from
one of four correction rules. Only the residual rule reproduces p (Leviathan et al., 2023, Thm 3.5):

    kept mass     min(p, q)                   (both agree)
    rejected mass r = 1 − Σ min(p, q)          = Σ (q − p)+ = Σ (p − q)+
    residual:     min(p, q) + r · (p − q)+ / r = p

>>> import numpy as np
>>> p, q = np.array([0.6, 0.4]), np.array([0.8, 0.2])
>>> output_distribution(p, q, "residual").round(3).tolist()
[0.6, 0.4]
>>> round(total_variation(output_distribution(p, q, "keep"), p), 3)   # keeping the draft gives q
0.2
"""
from __future__ import annotations

import numpy as np

RULES = ("residual", "target", "draft", "keep")   # the correction rules (chapter 7 names them for a page)


def _rows(p, q) -> tuple[np.ndarray, np.ndarray]:
    p, q = (np.asarray(x, dtype=np.float64).reshape(-1) for x in (p, q))   # (V,) each
    if p.shape != q.shape:
        raise ValueError("p and q must cover the same vocabulary.")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("probabilities must be ≥ 0.")
    return p / p.sum(), q / q.sum()


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ValueError(f"unknown correction rule {rule!r}; use one of {', '.join(RULES)}.")


def correction_source(p, q, rule: str) -> np.ndarray:
    """Where a rejected position's replacement is drawn from, (V,); "keep" has none (returns q)."""
    _check_rule(rule)
    p, q = _rows(p, q)
    if rule == "residual":
        excess = np.clip(p - q, 0, None)
        return excess / excess.sum() if excess.sum() > 0 else p   # p == q: nothing is ever rejected
    return {"target": p, "draft": q, "keep": q}[rule]


def rejection_mass(p, q) -> float:
    """r = 1 − Σ min(p, q): how often a draft token is rejected."""
    p, q = _rows(p, q)
    return float(max(0.0, 1.0 - np.minimum(p, q).sum()))


def output_distribution(p, q, rule: str) -> np.ndarray:
    """Exact distribution of the token accept + correct emits at this position, (V,)."""
    _check_rule(rule)
    p, q = _rows(p, q)
    if rule == "keep":   # every draft token is kept: the output is q
        return q.copy()
    return np.minimum(p, q) + rejection_mass(p, q) * correction_source(p, q, rule)


def simulate(p, q, rule: str, n: int, seed: int = 0) -> np.ndarray:
    """Counts (V,) of n seeded runs of draft → accept test → correction; vectorised over runs."""
    _check_rule(rule)
    if n < 1:
        raise ValueError("n must be at least 1.")
    p, q = _rows(p, q)
    rng = np.random.default_rng(seed)
    x = rng.choice(p.size, size=n, p=q)                          # (n,) drafts x ~ q
    u = rng.random(n)                                            # (n,) uniform draws
    keep = u < np.minimum(1.0, p[x] / q[x])                      # q[x] > 0 since x ~ q
    if rule == "keep":
        out = x
    else:
        fix = rng.choice(p.size, size=n, p=correction_source(p, q, rule))   # (n,) replacements
        out = np.where(keep, x, fix)
    return np.bincount(out, minlength=p.size)


def total_variation(a, b) -> float:
    """TV(a, b) = ½ Σ |a − b|, between 0 (identical) and 1 (disjoint)."""
    a, b = (np.asarray(x, dtype=np.float64).reshape(-1) for x in (a, b))
    return float(0.5 * np.abs(a - b).sum())


def bin_tail(dist, keep_ids) -> np.ndarray:
    """A distribution (V,) folded to the ids in `keep_ids` plus one "everything else" bin, (K + 1,).

    Comparing histograms over a 50k-token vocabulary from a few thousand samples would measure
    sampling noise in the tail; folding the tail makes the Monte-Carlo distance meaningful.
    """
    dist = np.asarray(dist, dtype=np.float64).reshape(-1)
    kept = dist[np.asarray(keep_ids, dtype=int)]
    return np.append(kept, dist.sum() - kept.sum())


def noise_level(dist, n: int) -> float:
    """Expected TV between `dist` and the histogram of n exact samples from it (normal approx.).

    E|X/n − π| ≈ √(2/π) · √(π(1 − π)/n) per bin; the yardstick for "the rule reproduces p".
    """
    d = np.asarray(dist, dtype=np.float64).reshape(-1)
    return float(0.5 * np.sqrt(2 / np.pi) * np.sqrt(d * (1 - d) / n).sum())
