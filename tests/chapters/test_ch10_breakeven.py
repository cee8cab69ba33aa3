import asyncio
import html

import numpy as np
import pytest

from chapters.ch10_breakeven import BreakEvenChapter
from chapters.ch10_breakeven.figures import SPAN_AS_BUILT, BreakEvenFigures
from lab.core import analytic
from lab.experiments.breakeven import question_verdict
from lab.speed.costs import CostProfile
from lab.core.request import REQUEST_TOKENS, Request
from lab.speed.timeline import schedule
from serving.service import ModelService
from uikit import palette
from uikit.state import LabState
from uikit import verdicts


def fresh_server(tiny_service) -> ModelService:
    """Another server's model service on the tiny pair: its cost profile not measured yet."""
    return ModelService(lambda pair=tiny_service.pair: pair)


@pytest.fixture
def chapter(make_chapter, tiny_service):
    """A page opened before the pair's cost profile is measured (on a server of its own)."""
    return make_chapter(BreakEvenChapter, LabState(fresh_server(tiny_service)))


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


def test_a_hidden_break_even_line_is_the_line_as_built(chapter):
    """No α breaks even after a c that drew the line: the hidden line is the one a page that never
    drew it shows, so the export records one state for what looks the same (export/)."""
    chapter.param.update(c=0.3)
    assert chapter.figs.break_span.visible and chapter.figs.break_span.location != SPAN_AS_BUILT
    chapter.param.update(c=1.5)
    fresh = BreakEvenFigures()
    fresh.draw(chapter.alpha, chapter.gamma, chapter.c, chapter.numbers())
    assert not fresh.break_span.visible
    assert chapter.figs.break_span.properties_with_values() == fresh.break_span.properties_with_values()


def test_use_my_models_fills_alpha_gamma_and_c_from_the_request(chapter):
    asyncio.run(chapter.use_my_models())
    o = chapter.outcome
    assert o is not None and o.request.drafter == "model" and o.request.policy == "constant"
    assert chapter.alpha == pytest.approx(round(o.alpha, 2)) and chapter.gamma == o.mean_gamma
    assert chapter.c == pytest.approx(round(min(2, o.c), 2))
    live = chapter.live.object
    assert f"<b class='priced-speedup'>{o.speedup:.2f}×</b>" in live
    assert f"predicts {o.predicted():.2f}×" in live and html.escape(verdicts.verdict(o).split(":")[0]) in live
    assert "the draft model, γ = 4 guesses a round" in live and f"<b class='target-calls'>{o.target_calls}</b>" in live
    assert "Projection, not a measurement" in live
    # the formula read-out at the sliders now gives the prediction shown beside the measurement
    assert f"<b>{o.predicted():.2f}×</b>" in chapter.readout.object


def test_the_switch_of_who_guesses_measures_that_drafting(chapter):
    chapter.state.drafter = "lookup"
    asyncio.run(chapter.use_my_models())
    assert chapter.outcome.request.drafter == "lookup" and chapter.outcome.spec.drafter == "lookup"
    assert "copying from the text" in chapter.live.object
    assert chapter.preset_bar.drafter_switch.visible and chapter.preset_bar.drafter_switch.value == "lookup"


def test_when_no_gamma_pays_it_says_dont_draft(chapter):
    chapter.param.update(alpha=0.3, gamma=4, c=0.5)
    n = chapter.numbers()
    assert n["best_speedup"] < 1
    assert "don't draft" in chapter.readout.object and f"{n['best_speedup']:.2f}×" in chapter.readout.object
    assert "<b>γ = " not in chapter.readout.object
    assert palette.TARGET not in chapter.figs.bars.data["color"]          # no bar filled as "best"
    chapter.param.update(alpha=0.8, c=0.1)
    assert "don't draft" not in chapter.readout.object and "<b>γ = " in chapter.readout.object


def test_the_lecture_and_the_measured_cost_curves_side_by_side(chapter):
    profile = CostProfile(pair="t", draft_seconds=0.02, verify_seconds=tuple(0.1 * (1 + 0.1 * k) for k in range(17)),
                          prefill_seconds=0.5, prefill_tokens=64, spread=0.0, load=0.0, cores=2, threads=1,
                          busy=False)
    assert "appears once" in chapter.cost_note.object and chapter.figs.measured_cost.data["cost"] == []
    chapter.param.update(profile=profile, alpha=0.8, gamma=4, c=0.1)
    figs = chapter.figs
    assert np.allclose(figs.lecture_cost.data["cost"], 1 + np.arange(1, 13) * 0.1)
    assert np.allclose(figs.measured_cost.data["cost"], [1 + 0.1 * g + 0.1 * g for g in range(1, 13)])
    assert np.allclose(figs.measured.data["speedup"], analytic.expected_tokens(np.linspace(0, 1, 201), 4) / 1.8)
    assert "v(5) = 1.40" in chapter.cost_note.object and "below the lecture's" in chapter.cost_note.object
    busy = CostProfile(**{**profile.__dict__, "busy": True, "load": 5.0})
    chapter.param.update(profile=busy)
    assert "unreliable" in chapter.cost_note.object


def test_the_live_request_is_priced_with_the_shared_profile(chapter):
    asyncio.run(chapter.use_my_models())
    o, profile = chapter.outcome, chapter.profile
    assert profile is chapter.state.service.profiles.of() and o.profile is profile
    # chapter 11's request: the same prompt, γ, seed, settings and length, priced by the same profile
    svc, st = chapter.state.service, chapter.state
    ids = st.safe_prompt_ids()
    plain, spec = (svc.generation(Request(ids, mode=mode, settings=st.settings, gamma=st.gamma, seed=st.seed, max_new_tokens=REQUEST_TOKENS, drafter="model", policy="constant"))
                   for mode in ("plain", "speculative"))
    assert spec.new_ids == plain.new_ids == o.spec.new_ids and o.spec.target_calls == spec.target_calls
    assert o.speedup == pytest.approx(schedule(plain, spec, profile).decode_speedup)
    # the c on the slider is the profile's, the c chapter 11 draws
    assert o.c == pytest.approx(profile.c) and chapter.c == pytest.approx(round(min(2, profile.c), 2))


def _count_measurements(monkeypatch, chapter):
    """The requests the chapter sends to the model worker to be measured, counted by their γ."""
    service, calls = chapter.state.service, []
    run_as = service.run_as

    async def counting(owner, fn, *args, **kwargs):
        if getattr(fn, "__name__", "") == "outcome":
            calls.append(args[0].gamma)
        return await run_as(owner, fn, *args, **kwargs)
    monkeypatch.setattr(service, "run_as", counting)
    return calls


def test_measure_live_keeps_the_result_and_leaves_the_sliders(chapter, monkeypatch):
    calls = _count_measurements(monkeypatch, chapter)
    chapter.state.gamma = 3                              # the student's γ (the settings panel)
    chapter.param.update(alpha=0.33, gamma=5, c=0.77)    # where the lecturer is dragging
    got = asyncio.run(chapter.measure_live())
    assert calls == [3] and got is not None and chapter.state.gamma == 3   # the slider's γ is the formula's
    assert got.request.gamma == 3 and got.profile is chapter.state.service.profiles.of()
    assert (chapter.alpha, chapter.gamma, chapter.c) == (0.33, 5, 0.77)
    assert chapter.outcome is None and chapter.live.object == ""
    # Use my models applies the kept outcome: no second model call, the sliders move to it
    asyncio.run(chapter.use_my_models())
    assert calls == [3] and chapter.outcome is got and chapter.gamma == 3
    assert chapter.alpha == pytest.approx(round(got.alpha, 2)) and chapter.c == pytest.approx(round(min(2, got.c), 2))
    assert f"{got.speedup:.2f}×" in chapter.live.object


def test_a_kept_outcome_of_another_request_is_not_used(chapter, monkeypatch):
    calls = _count_measurements(monkeypatch, chapter)
    chapter.state.gamma = 2
    asyncio.run(chapter.measure_live())
    chapter.state.gamma = 5
    asyncio.run(chapter.use_my_models())
    assert calls == [2, 5] and chapter.outcome.request.gamma == 5


def test_trying_the_question_then_using_my_models_keeps_the_students_gamma(chapter, monkeypatch):
    """"Try α = 0.6, γ = 5, c = 0.3" moves the formula's sliders only: Use my models measures the
    student's own request, and chapters 4 and 11–13 keep the student's γ."""
    calls = _count_measurements(monkeypatch, chapter)
    before = chapter.state.gamma
    chapter.try_question.clicks += 1
    assert chapter.gamma == 5 and before != 5
    asyncio.run(chapter.use_my_models())
    assert chapter.state.gamma == before and calls == [before] and chapter.gamma == chapter.outcome.mean_gamma


def test_the_tour_starts_use_my_models_ahead():
    from shell.tour.steps import TOUR
    step = next(s for s in TOUR if s["chapter"] == 10 and "use_models" in str(s["show"]))
    assert step["prefetch"] == "measure_live" and callable(BreakEvenChapter.measure_live)


def test_a_measurement_shows_its_time_left_estimated_from_the_last_one(chapter, monkeypatch):
    from chapters import ch10_breakeven
    monkeypatch.setattr(chapter.state.service, "took", {})      # the server's first live measurement
    seen = []
    original = chapter.run_model

    async def watching(fn, *args, **kwargs):      # what the bar shows while the models work
        seen.append((chapter.time_left.__panel__().visible, chapter.time_left.estimate))
        return await original(fn, *args, **kwargs)
    monkeypatch.setattr(chapter, "run_model", watching)
    chapter.state.gamma = 2
    asyncio.run(chapter.measure_live())
    assert seen[0] == (True, None)                              # the first: "estimating…"
    took = chapter.state.service.took[ch10_breakeven.TOOK]
    assert took > 0
    chapter.state.gamma = 3
    asyncio.run(chapter.measure_live())
    assert seen[1] == (True, took)                              # the next: the last one's time
    assert not chapter.time_left.__panel__().visible


def test_a_measured_profile_is_drawn_in_the_first_draw(make_chapter, tiny_service):
    """A page opened after the profile was measured draws the measured curves at once: no second
    redraw of every figure once the page is shown."""
    service = fresh_server(tiny_service)
    first = make_chapter(BreakEvenChapter, LabState(service))
    assert first.profile is None
    profile = service.profiles.of()
    page = make_chapter(BreakEvenChapter, LabState(service))
    assert page.profile is profile
    assert list(page.figs.measured.data["speedup"]) == pytest.approx(
        list(profile.speedup(page.figs.curve.data["alpha"], page.gamma, page.c)))
    sent = []
    page.param.watch(lambda e: sent.append(e.name), "profile")
    asyncio.run(page.load())
    assert sent == []          # load finds the same profile: nothing to redraw


def test_the_page_sends_at_most_90_models_and_its_figures_when_scrolled_to(chapter):
    """Chapter 10's page is at most 90 Bokeh models when it opens; its figures,
    note and table come when the student scrolls to them (uikit.lazy), drawn from the sources the
    browser's redraw holds from the start."""
    from bokeh.document import Document
    from bokeh.models import Plot

    from uikit.lazy import show_all

    doc = Document()
    doc.add_root(chapter.__panel__().get_root(doc))
    opened = set(doc.models)
    assert len(opened) <= 90 and not any(isinstance(m, Plot) for m in opened)
    assert {chapter.figs.curve, chapter.figs.speed_range} <= opened      # the browser's redraw holds them
    show_all(chapter.__panel__())
    shown = set(doc.models)
    assert {chapter.speed_fig, chapter.gamma_fig, chapter.figs.cost_fig} <= set(shown)
    assert chapter.figs.curve in {r.data_source for r in chapter.speed_fig.renderers}
    assert chapter.speed_fig.y_range is chapter.figs.speed_range


def test_the_cost_figures_legend_is_outside_its_plot():
    """The measured points of the cost figure (γ 4–6 were hidden under a top-left legend): whatever c
    and the verify costs, no corner inside the plot is free of points, so the legend has a row of its
    own above the plot."""
    figs = BreakEvenFigures()
    (legend,) = figs.cost_fig.legend
    assert legend in figs.cost_fig.above and legend not in figs.cost_fig.center
    assert legend.orientation == "horizontal" and len(legend.items) == 2
