"""lab.experiments.breakeven: chapter 10's numbers from the analytic model (its live side: tests/lab/test_request.py)."""
import numpy as np
import pytest

from lab.core import analytic
from lab.experiments.breakeven import ALPHAS, QUESTION, analytic_figures, question_verdict


def test_the_lectures_row_and_the_best_gamma():
    n = analytic_figures(0.8, 4, 0.1, max_gamma=12)
    assert (round(n["E"], 2), round(n["cost"], 2), round(n["speedup"], 2)) == (3.36, 1.4, 2.4)
    assert n["break_even"] == pytest.approx(float(analytic.break_even_alpha(4, 0.1)))
    assert round(n["break_even"], 2) == 0.29
    assert np.allclose(n["curve"], analytic.speedup(ALPHAS, 4, 0.1)) and len(n["curve"]) == 201
    assert np.allclose(n["per_gamma"], analytic.speedup(0.8, np.arange(1, 13), 0.1)) and len(n["per_gamma"]) == 12
    assert (n["best_gamma"], round(n["best_speedup"], 2)) == (6, 2.47)
    assert n["best_speedup"] == pytest.approx(n["per_gamma"].max())


def test_a_dear_draft_breaks_even_nowhere_and_no_gamma_pays():
    n = analytic_figures(0.3, 4, 1.5, max_gamma=12)
    assert np.isnan(n["break_even"]) and n["best_speedup"] < 1 and n["speedup"] < 1


def test_the_predict_question_is_slower_by_the_formula():
    a, g, c = QUESTION
    verdict, s = question_verdict()
    assert verdict == "slower" and s == pytest.approx(float(analytic.speedup(a, g, c))) and s < 1
