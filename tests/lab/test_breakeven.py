"""lab.breakeven: chapter 10's numbers from the analytic model, and a live measurement priced by the
pair's one cost profile."""
import numpy as np
import pytest

from lab import analytic
from lab.breakeven import ALPHAS, QUESTION, numbers, priced, question_verdict
from lab.measure import measure, predicted
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.sampling import GREEDY
from lab.timeline import schedule
from lab.tiny import tiny_pair
from tests.lab.test_costs import made


def test_the_lectures_row_and_the_best_gamma():
    n = numbers(0.8, 4, 0.1, max_gamma=12)
    assert (round(n["E"], 2), round(n["cost"], 2), round(n["speedup"], 2)) == (3.36, 1.4, 2.4)
    assert n["break_even"] == pytest.approx(float(analytic.break_even_alpha(4, 0.1)))
    assert round(n["break_even"], 2) == 0.29
    assert np.allclose(n["curve"], analytic.speedup(ALPHAS, 4, 0.1)) and len(n["curve"]) == 201
    assert np.allclose(n["per_gamma"], analytic.speedup(0.8, np.arange(1, 13), 0.1)) and len(n["per_gamma"]) == 12
    assert (n["best_gamma"], round(n["best_speedup"], 2)) == (6, 2.47)
    assert n["best_speedup"] == pytest.approx(n["per_gamma"].max())


def test_a_dear_draft_breaks_even_nowhere_and_no_gamma_pays():
    n = numbers(0.3, 4, 1.5, max_gamma=12)
    assert np.isnan(n["break_even"]) and n["best_speedup"] < 1 and n["speedup"] < 1


def test_the_predict_question_is_slower_by_the_formula():
    a, g, c = QUESTION
    verdict, s = question_verdict()
    assert verdict == "slower" and s == pytest.approx(float(analytic.speedup(a, g, c))) and s < 1


def test_a_live_measurement_is_told_with_the_shared_profile():
    pair = tiny_pair()
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    m, plain, spec = measure(pair, ids, gamma=4, settings=GREEDY, max_new_tokens=8, warmup=False)
    profile = made(verify=[0.1 * (1 + 0.1 * k) for k in range(17)], draft=0.02)   # c = 0.2, v(k) = 1 + 0.1(k − 1)
    told, same, decode = priced(m, plain, spec, profile)
    assert same is profile and profile.c == pytest.approx(0.2) and m.c != pytest.approx(0.2)
    assert (told.c, told.mean_draft_seconds, told.mean_target_seconds) == (profile.c, 0.02, profile.unit)
    assert told.predicted_speedup == predicted(m.alpha, spec.drafted / max(1, spec.target_calls), profile.c)
    assert decode == schedule(plain, spec, profile).decode_speedup
    # what was measured stays as measured
    assert (told.alpha, told.measured_speedup, told.plain_seconds) == (m.alpha, m.measured_speedup, m.plain_seconds)
