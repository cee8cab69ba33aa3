"""Chapter 10's live box and read-out for one request: one verdict line, the details folded, one
break-even named in the same words by the read-out and the verdict, the formula's prediction beside a
measured figure that differs from it with the reason, the busy warning and the re-timed line."""
import asyncio
import html
import re
import time
from dataclasses import replace

import pytest

from chapters.ch10_breakeven import BreakEvenChapter
from lab.speed.request import Outcome
from serving.service import ModelService
from tests.helpers import CHEAP, DEAR, made_profile, scripted_outcome, scripted_round
from uikit.state import LabState
from uikit import verdicts


@pytest.fixture
def chapter(make_chapter, tiny_service):
    """A page on a server of its own (the tiny pair), its cost profile not measured yet."""
    return make_chapter(BreakEvenChapter, LabState(ModelService(lambda pair=tiny_service.pair: pair)))


def applied(chapter, monkeypatch, outcome):
    """Press "Use my models" with `outcome` as the measured request."""
    async def measured():
        return outcome
    monkeypatch.setattr(chapter, "measure_live", measured)
    asyncio.run(chapter.use_my_models())
    return chapter.live.object


def in_runs():
    """Every round keeps 3 of 4 guesses, then misses: α = 0.75 and E = 3.05, yet 4 tokens a round (c = 0.6):
    the formula says slower, the measurement faster, and the rounds' evenness is why."""
    return scripted_outcome([scripted_round(i, 4, 3) for i in range(16)], CHEAP, 0.06)


def shown(text: str) -> str:
    """The live box's text outside its folded details."""
    return html.unescape(re.sub(r"<[^>]+>", "", text.split("<details>")[0]))


def test_a_measured_faster_beside_a_formula_saying_slower_names_both_and_why(chapter, monkeypatch):
    o = in_runs()
    assert o.speedup > 1 > o.predicted() and o.verdict_word() == "faster"
    live = applied(chapter, monkeypatch, o)
    assert (chapter.alpha, chapter.gamma, chapter.c) == (0.75, 4, 0.6)
    assert f"<b>{o.predicted():.2f}×</b> — slower than standard decoding" in chapter.readout.object
    line = shown(live)
    assert line.startswith(f"Measured on this machine: {o.speedup:.2f}× — faster than plain decoding, though the "
                           f"formula at this request's α = 0.75, γ = 4, c = 0.60 predicts {o.predicted():.2f}× "
                           "(slower): the guesses were kept unevenly across rounds: 0 of 16 rounds kept every guess "
                           "and 0 kept none, where independent guesses at α = 0.75 would give 5.1 and 4.0, so a round "
                           "gave 4.00 tokens, more than the 3.05 ± 0.80 of independent guesses.")
    assert "kept in runs" not in live and "these sliders" not in live


def test_the_sentence_on_the_sliders_follows_them(chapter, monkeypatch):
    """After Use my models the sliders sit at the request; moved, the line says the formula there and
    here and never names the request's figure as the sliders' (the browser redraws the same line:
    tests/uikit/test_js_analytic.py)."""
    o = in_runs()
    applied(chapter, monkeypatch, o)
    assert chapter.versus.object == (f"<p class='versus'>The sliders are at your request's α = 0.75, γ = 4, c = 0.60: "
                                     f"the formula predicts {o.predicted():.2f}× there; your request measured "
                                     f"{o.speedup:.2f}×.</p>")
    assert chapter.figs.request.data["speedup"] == [o.speedup]      # what the browser compares the sliders with
    chapter.param.update(alpha=0.9, gamma=4, c=0.1)
    here = (1 - 0.9 ** 5) / (1 - 0.9) / 1.4
    assert chapter.versus.object.startswith("<p class='versus'>The sliders have moved from your request's α = 0.75, "
                                            f"γ = 4, c = 0.60: the formula predicts {here:.2f}× at the sliders and "
                                            f"{o.predicted():.2f}× there")


def test_the_live_box_is_one_verdict_line_and_its_figures_with_the_details_folded(chapter, monkeypatch):
    # every first guess rejected: α = 0, slower by the formula and measured alike (no gap to explain up front)
    o = scripted_outcome([scripted_round(i, 4, 0) for i in range(8)], DEAR, 0.018)
    live = applied(chapter, monkeypatch, o)
    assert "<details><summary>" in live and html.escape(verdicts.verdict(o)) in live and "Projection, not a measurement" in live
    line = shown(live)
    assert line.startswith(f"Measured on this machine: {o.speedup:.2f}× — slower than plain decoding.")
    assert len(line) < 220 and "Slower here" not in line and "Projection" not in line


def test_the_read_out_and_the_verdict_name_one_break_even(chapter, monkeypatch):
    o = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.0183)
    applied(chapter, monkeypatch, o)
    be = o.break_even()
    assert f"below the break-even α = {be:.2f} for c = {o.c:.2f} at γ = 4 (with this machine's verify cost)" in verdicts.verdict(o)
    assert f"α = {be:.2f} with this machine's verify cost v(5) = 1.50" in chapter.readout.object
    assert "with the lecture's cost 1 + γc" in chapter.readout.object


def test_the_busy_warning_stands_beside_the_priced_figures(chapter, monkeypatch):
    o = in_runs()
    busy = Outcome.of(o.request, o.plain, o.spec, replace(o.profile, busy=True, load=5.0))
    live = applied(chapter, monkeypatch, busy)
    warning = verdicts.why_busy(busy.profile)
    assert "unreliable" in warning and warning in shown(live)          # in the verdict's box, not folded
    assert warning in chapter.readout.object and warning in chapter.cost_note.object


def test_a_re_timing_that_changed_the_verdict_says_so_in_one_line(chapter, monkeypatch):
    slower = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018)
    cheap = replace(slower.profile, draft_seconds=0.001, verify_seconds=tuple(CHEAP))
    faster = Outcome.of(slower.request, slower.plain, slower.spec, cheap, earlier=slower)
    live = applied(chapter, monkeypatch, faster)
    assert verdicts.retimed(faster) in shown(live) and verdicts.retimed(faster).startswith("This machine re-timed: now")


def test_a_kept_measurement_is_priced_anew_once_the_machine_is_re_timed(chapter):
    first = asyncio.run(chapter.measure_live())
    assert asyncio.run(chapter.measure_live()) is first                  # kept
    retimed = made_profile(verify=[0.001] * 17, draft=0.0001, measured_at=time.monotonic())
    chapter.state.service.profiles.adopt(chapter.state.service.pair_for("aligned"), retimed)
    again = asyncio.run(chapter.measure_live())
    assert again is not first and again.profile is retimed and again.earlier_speedup == first.speedup
