import asyncio

import numpy as np
import pytest

from chapters.ch10_breakeven import BreakEvenChapter, question_verdict
from lab import analytic


@pytest.fixture
def chapter(make_chapter):
    return make_chapter(BreakEvenChapter)


def test_reproduces_the_seed_table(chapter):
    chapter.param.update(alpha=0.8, gamma=4, c=0.1)
    n = chapter.numbers()
    assert round(n["E"], 2) == 3.36 and round(n["speedup"], 2) == 2.40
    table = chapter.table.object
    for e, s in (("3.36", "2.40×"), ("4.10", "2.93×"), ("1.94", "1.38×"), ("2.44", "2.03×")):
        assert e in table and s in table


def test_question_ten_is_slower(chapter):
    assert question_verdict()[0] == "slower"
    chapter.predict.commit("slower")
    chapter.param.update(alpha=0.6, gamma=5, c=0.3)
    assert chapter.numbers()["speedup"] < 1
    assert "slower than standard decoding" in chapter.readout.object
    assert chapter.predict.correct is True


def test_sliders_update_the_figures_at_once(chapter):
    chapter.param.update(alpha=0.5, gamma=3, c=0.2)
    curve = np.asarray(chapter.figs.curve.data["speedup"])
    assert np.allclose(curve, analytic.speedup(np.linspace(0, 1, 201), 3, 0.2))
    assert chapter.figs.point.data["speedup"][0] == pytest.approx(float(analytic.speedup(0.5, 3, 0.2)))
    assert chapter.figs.break_span.location == pytest.approx(float(analytic.break_even_alpha(3, 0.2)))
    best, _ = analytic.best_gamma(0.5, 0.2, max_gamma=12)
    assert chapter.figs.bars.data["color"][int(best) - 1] != chapter.figs.bars.data["color"][(int(best)) % 12]


def test_a_draft_as_dear_as_the_target_breaks_even_only_at_alpha_one(chapter):
    chapter.param.update(c=1.0)
    assert chapter.figs.break_span.location == pytest.approx(1.0)
    assert "α = 1.00" in chapter.readout.object
    chapter.param.update(c=1.5)
    assert not chapter.figs.break_span.visible and "never" in chapter.readout.object


def test_use_my_models_fills_alpha_and_c(chapter):
    asyncio.run(chapter.use_my_models())
    m = chapter.measurement
    assert m is not None
    assert chapter.alpha == pytest.approx(round(m.alpha, 2))
    assert chapter.c == pytest.approx(round(min(2, m.c), 2))
    assert f"{m.measured_speedup:.2f}×" in chapter.live.object
    assert f"{m.predicted_speedup:.2f}×" in chapter.live.object
