"""Live timing of the target: one call over n positions (with cache) against one over 1.

Chapter 3's claim, T(γ + 1) ≈ T(1), measured on whatever machine serves the lab — including
where it stops being true.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from lab.kv import CachedModel
from lab.modelpair import ModelPair


@dataclass
class VerifyCost:
    positions: int        # tokens scored in one target call
    seconds: float        # median wall time of that call
    ratio: float          # seconds ÷ seconds of a one-position call


def verify_costs(pair: ModelPair, prompt_ids: list[int], max_positions: int = 8,
                 repeats: int = 3) -> list[VerifyCost]:
    """Median time of one cached target call over 1..max_positions new positions."""
    if not 1 <= max_positions <= 32 or not 1 <= repeats <= 20:
        raise ValueError("max_positions must be 1–32 and repeats 1–20.")
    model = CachedModel(pair.target)
    model.forward(prompt_ids)                       # prefill once; every call below extends it
    base = model.length
    filler = prompt_ids * (max_positions // len(prompt_ids) + 1)
    model.forward(filler[:1])                       # warm-up call, not counted
    model.rollback(base)
    times = {n: [] for n in range(1, max_positions + 1)}
    for _ in range(repeats):
        for n in times:                             # interleaved, so drift hits every n alike
            times[n].append(model.forward(filler[:n])[1])
            model.rollback(base)
    medians = {n: statistics.median(ts) for n, ts in times.items()}
    return [VerifyCost(n, s, s / medians[1]) for n, s in medians.items()]
