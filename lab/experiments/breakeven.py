"""When does drafting save time (chapter 10): the analytic model's numbers for α, γ and c and the
predict question's verdict. The live pair's side is lab.speed.request's Outcome.

    n = analytic_figures(0.8, 4, 0.1, max_gamma=12)   # E, cost, speed-up, break-even α, the curve,
                                                      # the bars, best γ

No Panel: uikit.readouts writes these figures out and chapters.ch10_breakeven draws them.
"""
from __future__ import annotations

import numpy as np

from lab.core import analytic

ALPHAS = np.linspace(0, 1, 201)   # the α of the speed-up curve
QUESTION = (0.6, 5, 0.3)          # chapter 10's predict question: α, γ, c


def analytic_figures(a: float, g: int, c: float, max_gamma: int) -> dict:
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
