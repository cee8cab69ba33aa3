"""Chapter 3: writing n words takes n calls, checking them one call, whose cost the live measurement shows."""
import asyncio

import panel as pn
import pytest

from chapters.ch03_checking import CheckingChapter, honest_reading
from lab.speed.costs import CostProfile
from lab.speed.timing import VerifyCost


@pytest.fixture
def chapter(make_chapter, state):
    return make_chapter(CheckingChapter, state)


def test_ticks_count_writing_calls_and_one_checking_call(chapter):
    async def ticks(n):
        for _ in range(n):
            await chapter.tick()
    asyncio.run(ticks(2))
    assert chapter.ticks == 2 and ">2</b><span>big-model calls" in chapter.write_calls.object
    assert ">1</b><span>big-model call<" in chapter.check_calls.object
    asyncio.run(ticks(10))                             # stops at the number of words
    n = len(chapter.word_texts)
    assert chapter.ticks == n and len(chapter.write_strip.chips) == n and chapter.tick_button.disabled


def test_predict_answer_one_call(chapter):
    chapter.predict.commit("1")
    asyncio.run(chapter.tick())
    assert chapter.predict.correct is None            # revealed when writing is done
    for _ in range(10):
        asyncio.run(chapter.tick())
    assert chapter.predict.correct is True


def test_measurement_fills_the_chart_from_the_shared_profile(chapter):
    profile = asyncio.run(chapter.measure())
    assert profile is chapter.state.service.profiles.of()      # the one profile of chapters 3, 10, 11
    assert [c.positions for c in chapter.costs] == list(range(1, 9))
    assert chapter.cost_source.data["ratio"] == [profile.verify_units(n) for n in range(1, 9)]
    assert chapter.cost_source.data["ratio"][0] == pytest.approx(1.0)
    assert chapter.cost_source.data["writing"] == [float(n) for n in range(1, 9)]
    assert "One call over 1 position" in chapter.reading.object


def test_the_reading_is_honest_when_checking_is_not_free():
    free = [VerifyCost(n, 0.01, 1.0 + 0.02 * n) for n in range(1, 9)]
    assert "stops being free" not in honest_reading(free)
    costly = [VerifyCost(n, 0.01 * n, float(n)) for n in range(1, 9)]
    assert "stops being nearly free at 2 positions" in honest_reading(costly) and "no cheaper" in honest_reading(costly)


def test_a_class_pressing_measure_shares_one_fresh_measurement(chapter, state):
    first = asyncio.run(chapter.measure())
    other = CheckingChapter(state)
    other.__panel__()
    assert asyncio.run(other.measure()) is first         # reused, not queued again


def test_the_reading_names_the_first_bar_over_about_one_call_and_the_dips():
    """The bars of a busy class day: 1.47× at 2, 1.78× at 5, back under 1.5× at 6. The reading
    quotes bars, never a position the bars contradict."""
    ratios = [1.0, 1.47, 1.4, 1.45, 1.78, 1.3, 1.9, 2.0]
    reading = honest_reading([VerifyCost(n, 0.01, r) for n, r in enumerate(ratios, start=1)])
    assert "stops being nearly free at 5 positions: a call over 5 takes 1.78×" in reading
    assert "up to 4 positions: at most 1.47×" in reading and "over 8: 2.00×" in reading
    assert "6 positions measured 1.30×" in reading
    assert "Checking the question's 5 words: 1.78× one call" in reading
    assert "from 7" not in reading


def test_one_noisy_position_is_quoted_as_measured():
    noisy = [VerifyCost(n, 0.01, r) for n, r in enumerate([1.0, 1.1, 2.5, 1.2, 1.6, 1.8, 2.0, 2.2], start=1)]
    reading = honest_reading(noisy)
    assert "stops being nearly free at 3 positions: a call over 3 takes 2.50×" in reading
    assert "4 positions measured 1.20×" in reading


def test_the_bars_are_labelled_with_the_ratios_the_reading_quotes(chapter):
    asyncio.run(chapter.measure())
    assert chapter.cost_source.data["label"] == [f"{c.ratio:.2f}×" for c in chapter.costs]


def test_the_page_gives_the_memory_bandwidth_reason(chapter):
    text = " ".join(str(getattr(o, "object", "")) for o in chapter.__panel__().select(pn.pane.HTML))
    assert "moves all the model's weights from memory" in text and "Memory, not arithmetic, is the bottleneck" in text


def test_a_busy_profile_is_called_unreliable_not_a_verdict(chapter):
    busy = CostProfile(pair="t", draft_seconds=0.001, verify_seconds=tuple(0.01 * k for k in range(1, 18)),
                       prefill_seconds=0.5, prefill_tokens=64, spread=0.1, load=9.0, cores=2, threads=1, busy=True)
    chapter.profile = busy
    chapter.show_costs(busy.verify_costs(8))             # 8× for 8 positions, measured on a loaded machine
    reading = chapter.reading.object
    assert "unreliable" in reading and "load 9.0 on 2 cores" in reading
    assert "does not beat writing" not in reading and "no cheaper" not in reading
    assert "does not beat writing" in honest_reading(busy.verify_costs(8))      # what it would have said


def test_the_chart_is_never_empty_and_measure_shows_the_time_left(chapter, monkeypatch):
    expected = chapter.expected_source.data
    assert expected["positions"] == list(range(1, 9)) and expected["ratio"] == [1.0] * 8   # the lecture's shape
    assert expected["writing"] == [float(n) for n in range(1, 9)]
    assert chapter.placeholder.visible and chapter.cost_source.data["ratio"] == []
    progress, seen = chapter.measure_progress, []
    estimate = progress.set_estimate

    def spy(seconds):                               # called by the model worker once the estimate is known
        estimate(seconds)
        seen.append((progress.__panel__().visible, seconds, progress.refresh()))
    monkeypatch.setattr(progress, "set_estimate", spy)
    assert not progress.__panel__().visible
    asyncio.run(chapter.measure())
    assert len(seen) == 1
    visible, seconds, (value, line) = seen[0]
    assert visible and seconds > 0 and 0 <= value <= 99
    assert line == "Almost done…" if seconds < 1 else line.startswith("About ")
    assert not progress.__panel__().visible and not chapter.placeholder.visible
    assert len(chapter.cost_source.data["ratio"]) == 8


def test_bar_times_stay_readable_where_the_writing_line_crosses_them():
    """At n = 1 and 2 the writing line (y = n) passes through the top of a measured bar, where its
    time is written: the time is drawn after the line, on a white ground, so the line cannot cross it."""
    from chapters.ch03_checking import cost_figure
    fig = cost_figure()[0]
    kinds = [type(r.glyph).__name__ for r in fig.renderers]
    label = fig.renderers[kinds.index("Text")].glyph
    assert kinds.index("Text") > kinds.index("Line")
    assert label.background_fill_color == "#ffffff" and label.background_fill_alpha >= 0.85


def test_the_takeaway_holds_whatever_the_chart_measures():
    """Issue 49.2: the chart may show a check of five positions at 1.1× or at 3× one call; the
    takeaway counts calls (n against one) and leaves their cost to the chart, the page calls "about
    as long" the lecture's claim, and a costly reading never says checking is not one call."""
    takeaway = CheckingChapter.takeaway
    assert "takes one." not in takeaway and "as long" not in takeaway and "the chart" in takeaway
    cheap = [VerifyCost(n, 0.01, 1.0 + 0.02 * n) for n in range(1, 9)]
    costly = [VerifyCost(n, 0.01, 1.0 + 0.5 * (n - 1)) for n in range(1, 9)]      # five positions: 3×
    assert "about one call" in honest_reading(cheap)
    reading = honest_reading(costly)
    assert "3.00× one call" in reading and "not “about one call”" not in reading
    assert "about the time of one call" in reading


def test_the_page_calls_about_as_long_the_lectures_claim(chapter):
    texts = [p.object for p in chapter.body().select(pn.pane.HTML)]
    assert any("The lecture's claim: a call that looks at a handful" in t for t in texts)
