"""When does drafting save time (chapter 10): the analytic model's numbers for α, γ and c, the
predict question's verdict, and the live pair's measurement told with the pair's one cost profile.

    n = numbers(0.8, 4, 0.1, max_gamma=12)   # E, cost, speed-up, break-even α, the curve, the bars, best γ
    m, profile, decode = priced(*lab.measure.measure(pair, ids, gamma=4), profile)

No Panel: uikit.readouts writes these numbers out and chapters.ch10_breakeven draws them.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from lab import analytic
from lab.measure import Measurement, predicted
from lab.timeline import schedule

ALPHAS = np.linspace(0, 1, 201)   # the α of the speed-up curve
QUESTION = (0.6, 5, 0.3)          # chapter 10's predict question: α, γ, c


def numbers(a: float, g: int, c: float, max_gamma: int) -> dict:
    """The analytic model at α = a, γ = g, c: tokens per round E, round cost, speed-up, break-even α
    (nan when no α breaks even), the speed-up at every α of ALPHAS (`curve`) and of every γ from 1
    to max_gamma (`per_gamma`), both arrays, and the best γ (`best_gamma`, `best_speedup`)."""
    best, best_speedup = analytic.best_gamma(a, c, max_gamma)
    return dict(E=float(analytic.expected_tokens(a, g)), cost=float(analytic.round_cost(g, c)),
                speedup=float(analytic.speedup(a, g, c)), break_even=float(analytic.break_even_alpha(g, c)),
                curve=analytic.speedup(ALPHAS, g, c),
                per_gamma=analytic.speedup(a, np.arange(1, max_gamma + 1), c),
                best_gamma=int(best), best_speedup=float(best_speedup))


def question_verdict() -> tuple[str, float]:
    """("faster" | "slower", speed-up) for the predict question, from the analytic model."""
    a, g, c = QUESTION
    s = float(analytic.speedup(a, g, c))
    return ("faster" if s > 1 else "slower"), s


def priced(m: Measurement, plain, spec, profile) -> tuple[Measurement, object, float]:
    """(measurement, profile, decode speed-up) for a live measurement (lab.measure.measure's m, plain
    and speculative traces) and the pair's cost profile (lab.costs.CostProfile).

    One story of time: c, the mean call times and the predicted speed-up come from the shared
    profile, not from this run's calls, and the decode speed-up is chapter 11's schedule of the same
    request priced by that profile."""
    m = replace(m, c=profile.c, mean_draft_seconds=profile.draft_seconds, mean_target_seconds=profile.unit,
                predicted_speedup=predicted(m.alpha, spec.drafted / max(1, spec.target_calls), profile.c))
    return m, profile, schedule(plain, spec, profile).decode_speedup
