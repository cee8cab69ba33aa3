"""What the pages draw of a target distribution p and a draft distribution q.

    regions(p, q)            → overlap min(p, q), draft too eager (q − p)+, draft too shy (p − q)+
    top_k_union(p, q, k=8)   → the tokens worth a bar: either model's k most likely
    shown_settings(s)        → the sampling settings p and q are drawn under (greedy shown at T = 1)

>>> r = regions([0.6, 0.4], [0.8, 0.2])
>>> [round(float(x), 2) for x in r["agree"]], [round(float(x), 2) for x in r["shy"]]
([0.6, 0.2], [0.0, 0.2])
>>> top_k_union(np.array([0.5, 0.3, 0.2, 0.0]), np.array([0.0, 0.1, 0.2, 0.7]), k=1)
[0, 3]
"""
from __future__ import annotations

import numpy as np

from lab.core.sampling import SamplingSettings


def regions(p, q) -> dict[str, np.ndarray]:
    """Per token: where both agree, min(p, q); where the draft is too eager, (q − p)+; where it is
    too shy, (p − q)+ — the residual a rejection is corrected from (Leviathan et al., 2023, §2.3).
    agree + eager = q and agree + shy = p."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    return dict(agree=np.minimum(p, q), eager=np.clip(q - p, 0, None), shy=np.clip(p - q, 0, None))


def top_k_union(p: np.ndarray, q: np.ndarray | None = None, k: int = 8) -> list[int]:
    """The union of p's and q's k most likely token ids, without tokens both give 0; most likely
    under p first (ties: under q)."""
    ids = set(np.argsort(-p)[:k].tolist())
    if q is not None:
        ids |= set(np.argsort(-q)[:k].tolist())
    qq = q if q is not None else np.zeros_like(p)
    return sorted((i for i in ids if p[i] > 0 or qq[i] > 0), key=lambda i: (-p[i], -qq[i]))


def shown_settings(settings: SamplingSettings) -> SamplingSettings:
    """The settings p and q are drawn under: the student's, except that greedy decoding is shown at
    temperature 1 (with their top-k and top-p), since at temperature 0 every p and q is one-hot."""
    if settings.greedy:
        return SamplingSettings(1.0, settings.top_k, settings.top_p)
    return settings
