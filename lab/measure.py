"""Will my pair pay off? α, c and the speed-up of a pair, measured side by side on one prompt, or on
a prompt set per category, against the embedded pair's goals.

Used by `python -m lab measure` and by chapter 10's "use my models".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from lab import analytic
from lab.engine import generate
from lab.pair import ModelPair
from lab.sampling import GREEDY, SamplingSettings
from lab.trace import GenerationTrace


@dataclass
class Measurement:
    target: str
    draft: str
    gamma: int
    new_tokens: int
    alpha: float
    tokens_per_round: float
    c: float                      # mean draft call ÷ mean target call
    predicted_speedup: float      # analytic model from the measured α, γ, c
    measured_speedup: float       # plain decode time ÷ speculative decode time
    matches_target_greedy: bool | None
    text: str
    plain_seconds: float
    speculative_seconds: float
    mean_target_seconds: float
    mean_draft_seconds: float
    settings: str

    def as_dict(self) -> dict:
        return asdict(self)


def measure(pair: ModelPair, prompt_ids: list[int], *, gamma: int = 4,
            settings: SamplingSettings = GREEDY, max_new_tokens: int = 64, seed: int = 0,
            warmup: bool = True) -> tuple[Measurement, GenerationTrace, GenerationTrace]:
    """Plain target decoding and speculative decoding of the same prompt and length, timed."""
    if warmup:   # first calls pay one-off allocation costs; keep them out of both timings
        generate(pair, prompt_ids, gamma=gamma, settings=settings, max_new_tokens=min(4, max_new_tokens))
    # No display candidates: both timings are of decoding alone.
    plain = generate(pair, prompt_ids, mode="plain", settings=settings, seed=seed,
                     max_new_tokens=max_new_tokens, display_top=0)
    spec = generate(pair, prompt_ids, gamma=gamma, settings=settings, seed=seed,
                    max_new_tokens=max_new_tokens, display_top=0)
    alpha = spec.alpha or 0.0
    # c compares a draft call with a one-position target call, as in the analytic model.
    c = (spec.mean_draft_seconds or 0.0) / plain.mean_target_seconds
    m = Measurement(
        target=pair.target_label, draft=pair.draft_label, gamma=gamma, new_tokens=len(spec.new_ids),
        alpha=alpha, tokens_per_round=spec.tokens_per_round, c=c,
        predicted_speedup=float(analytic.speedup(alpha, gamma, c)),
        measured_speedup=plain.decode_seconds / spec.decode_seconds,
        matches_target_greedy=(spec.new_ids == plain.new_ids) if settings.greedy else None,
        text=spec.text, plain_seconds=plain.decode_seconds, speculative_seconds=spec.decode_seconds,
        mean_target_seconds=plain.mean_target_seconds, mean_draft_seconds=spec.mean_draft_seconds or 0.0,
        settings=settings.describe())
    return m, plain, spec


def _all_exact(flags: list[bool | None]) -> bool | None:
    """True when every output matched plain decoding; None when some could not be compared."""
    return None if None in flags else all(flags)


# The embedded pair's goals (issue #3), for greedy decoding with γ = 4 on the held-out prompts.
GOALS = {"alpha_overall": 0.5, "c_max": 0.25, "speedup_code_json": 1.25}


def measure_set(pair: ModelPair, prompts: dict[str, list[str]], *, gamma: int = 4,
                settings: SamplingSettings = GREEDY, max_new_tokens: int = 64, per_category: int | None = None,
                repeats: int = 1, progress=None) -> dict:
    """`measure` on every prompt of a set (category → prompts), pooled per category:
        α        = accepted draft tokens ÷ drafted tokens
        c        = mean draft call ÷ mean target call (one cached position each)
        speed-up = plain decoding time ÷ speculative decoding time (same prompts, same lengths)
    "overall" is the mean of the categories (each counts once), and each goal in GOALS is judged on
    it; the code/JSON speed-up is the mean of the categories named "code" and "json"."""
    from lab.prompts import encode_prompt
    todo = [(cat, p) for cat, ps in prompts.items() for p in ps[:per_category]]
    pooled: dict[str, dict] = {}
    for i, (cat, text) in enumerate(todo):
        if progress:
            progress(i / len(todo), f"measuring {cat} ({i + 1} of {len(todo)} prompts)")
        ids = encode_prompt(pair.tokenizer, text)
        for r in range(repeats):
            m, plain, spec = measure(pair, ids, gamma=gamma, settings=settings, max_new_tokens=max_new_tokens,
                                     warmup=i == 0 and r == 0)
            acc = pooled.setdefault(cat, {"prompts": set(), "accepted": 0, "drafted": 0, "plain": 0.0,
                                          "spec": 0.0, "target": [], "draft": [], "exact": []})
            acc["prompts"].add(text)
            acc["accepted"] += spec.accepted
            acc["drafted"] += spec.drafted
            acc["plain"] += m.plain_seconds
            acc["spec"] += m.speculative_seconds
            acc["target"] += [rd.target_seconds for rd in plain.rounds]
            acc["draft"] += [d.draft_seconds for rd in spec.rounds for d in rd.drafts]
            acc["exact"].append(m.matches_target_greedy)
    rows = {}
    for cat, a in pooled.items():
        target_s, draft_s = sum(a["target"]) / len(a["target"]), sum(a["draft"]) / max(1, len(a["draft"]))
        alpha, c = a["accepted"] / max(1, a["drafted"]), draft_s / target_s
        rows[cat] = {"prompts": len(a["prompts"]), "alpha": alpha, "c": c, "speedup": a["plain"] / a["spec"],
                     "predicted_speedup": float(analytic.speedup(alpha, gamma, c)),
                     "exact": _all_exact(a["exact"]),
                     "target_ms": 1e3 * target_s, "draft_ms": 1e3 * draft_s}

    def mean(key, cats):
        return sum(rows[c][key] for c in cats) / len(cats)

    overall = {k: mean(k, list(rows)) for k in ("alpha", "c", "speedup", "predicted_speedup")}
    overall["prompts"] = sum(r["prompts"] for r in rows.values())
    overall["exact"] = _all_exact([r["exact"] for r in rows.values()])
    code_json = [c for c in ("code", "json") if c in rows]
    cj = mean("speedup", code_json) if code_json else None
    goals = {
        "alpha_overall": {"goal": f"α ≥ {GOALS['alpha_overall']} overall", "value": overall["alpha"],
                          "met": overall["alpha"] >= GOALS["alpha_overall"]},
        "c": {"goal": f"c ≤ {GOALS['c_max']}", "value": overall["c"], "met": overall["c"] <= GOALS["c_max"]},
        "speedup_code_json": {"goal": f"measured speed-up ≥ {GOALS['speedup_code_json']}× on code/JSON",
                              "value": cj, "met": None if cj is None else cj >= GOALS["speedup_code_json"]},
    }
    return {"target": pair.target_label, "draft": pair.draft_label, "gamma": gamma,
            "settings": settings.describe(), "max_new_tokens": max_new_tokens, "repeats": repeats,
            "categories": rows, "overall": overall, "goals": goals}
