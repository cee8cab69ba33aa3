import html

import pytest

from chapters.ch11_timeline import TimelineChapter
from uikit import verdicts
from uikit.verdicts import why_busy


@pytest.fixture(scope="module")
def chapter(make_chapter):
    return make_chapter(TimelineChapter, load=True)


def test_both_lanes_come_from_real_traces(chapter):
    s, plain, spec = chapter.sched, chapter.plain, chapter.spec
    assert s.tokens("standard") == len(plain.new_ids)
    assert s.tokens("draft + verify") == len(spec.new_ids)
    assert plain.new_ids == spec.new_ids            # greedy: the same text, token for token
    targets = [b for b in s.blocks if b[0] == "draft + verify" and b[3] == "target"]
    drafts = [b for b in s.blocks if b[0] == "draft + verify" and b[3] == "draft"]
    assert len(targets) == spec.target_calls and len(drafts) == spec.draft_calls


def test_prefill_is_identical_and_standard_ticks_evenly(chapter):
    s = chapter.sched
    prefills = [b for b in s.blocks if b[3] == "prefill"]
    assert len(prefills) == 2 and prefills[0][1:3] == prefills[1][1:3]
    times = [t for lane, t, _ in s.arrivals if lane == "standard"]
    assert all(abs((b - a) - 1) < 1e-9 for a, b in zip(times, times[1:]))


def test_the_first_token_sentence_follows_the_table_row(chapter):
    """The sentence under the table says what its "first token at" row shows: later with drafting
    when the first round's guesses come before it, never "no sooner" beside a later figure."""
    from types import SimpleNamespace
    from chapters.ch11_timeline import first_token_sentence, summary_html
    s = chapter.sched
    plain, spec = s.first_token("standard"), s.first_token("draft + verify")
    said = first_token_sentence(s)
    assert said in html.unescape(summary_html(chapter.outcome))
    assert f"({spec:.1f} against {plain:.1f})" in said
    assert ("comes later with drafting" in said) == (round(spec, 1) > round(plain, 1))
    for times, words in (((5.0, 6.4), "comes later with drafting (6.4 against 5.0)"),
                         ((5.0, 5.0), "comes no sooner (5.0 against 5.0)"),
                         ((5.0, 4.6), "not a gain from drafting")):
        race = SimpleNamespace(first_token=dict(zip(("standard", "draft + verify"), times)).get)
        assert words in first_token_sentence(race)


def test_bursts_and_cards(chapter):
    s = chapter.sched
    bursts = [n for lane, _, n in s.arrivals if lane == "draft + verify"]
    assert sum(bursts) == s.tokens("draft + verify")
    assert len(chapter.block_src.data["left"]) == len(s.blocks)
    for head in ("What stays the same?", "What gets faster?", "What does it cost?"):
        assert head in chapter.cards.object
    assert f"{chapter.plain.target_calls} target calls became {chapter.spec.target_calls}" in chapter.cards.object


def test_the_speedup_is_priced_by_the_pairs_shared_cost_profile(chapter):
    s, spec = chapter.sched, chapter.spec
    profile = chapter.state.service.profiles.of()
    assert s.profile is profile                          # the one profile every chapter shares
    verifies = [e - b for lane, b, e, kind in s.blocks if lane == "draft + verify" and kind == "target"]
    assert verifies == pytest.approx([profile.verify_units(len(r.guesses) + 1) for r in spec.rounds])
    spec_decode = s.decode_time("draft + verify")
    assert spec_decode == pytest.approx(sum(verifies) + sum(e - b for lane, b, e, kind in s.blocks
                                                             if lane == "draft + verify" and kind == "draft"))
    assert s.decode_speedup == pytest.approx(len(chapter.plain.rounds) / spec_decode)
    assert f"{s.decode_speedup:.2f}×" in chapter.summary.object
    assert "where the lecture counts 1" in chapter.summary.object


def test_burst_labels_sit_above_their_markers_not_on_them(chapter):
    text = [r for r in chapter.lane_fig.renderers if type(r.glyph).__name__ == "Text"][0].glyph
    assert text.text_align == "center" and text.text_baseline == "bottom" and text.y_offset < -5


def test_the_lane_legend_waits_for_its_blocks(make_chapter, chapter):
    """Before the first request is drawn the lanes have no blocks, so their legend (one item per kind
    of block) would be an empty box under the chart, and the delivery chart's legend would name lines
    it has not drawn, with no swatches: both are hidden until the request is drawn."""
    fresh = make_chapter(TimelineChapter)
    assert fresh.block_src.data["kind"] == [] and fresh.plain_cum.data["t"] == []
    assert fresh.lane_fig.legend[0].visible is False and fresh.cum_fig.legend[0].visible is False
    assert chapter.block_src.data["kind"] and chapter.plain_cum.data["t"]
    assert chapter.lane_fig.legend[0].visible is True and chapter.cum_fig.legend[0].visible is True


@pytest.mark.parametrize("faster", [False, True])
def test_the_captions_say_slower_or_faster_as_the_figure_does(make_chapter, faster):
    """A scripted slower run (α 0.5, dear verify passes) and a faster one (every copied guess kept):
    the verdict under the figure, the card and the takeaway never contradict the measured speed-up."""
    from tests.helpers import CHEAP, DEAR, scripted_outcome, scripted_round
    o = (scripted_outcome([scripted_round(i, 4, 4, "lookup") for i in range(8)], CHEAP, 0.02, "lookup") if faster
         else scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018))
    ch = make_chapter(TimelineChapter)
    ch.show(o)
    assert (o.speedup > 1) is faster and ch.sched is o.timed
    summary, cards = ch.summary.object, ch.cards.object
    verdict = "Faster here" if faster else "Slower here"
    assert f"{verdict} ({o.speedup:.2f}×)" in summary and f"{o.speedup:.2f}×</b>" in summary
    assert ("Slower here" in summary) is not faster and ("Faster here" in summary) is faster
    assert ("yet decoding was slower" in cards) is not faster and ("as fast" in cards) is faster
    assert "copied from the text in 8 rounds" in summary if faster else "the draft model in 8 rounds" in summary
    copied = "guesses copied from the text (about 0 each)</td><td>0</td><td>{}</td>".format(32 if faster else 0)
    assert copied in summary
    assert "Speed comes from a second model" not in TimelineChapter.takeaway
    # α as the formula takes it, its counts, and the formula against the measured rounds, derived
    alpha = "1.00 (32 of 32)" if faster else "0.50 (8 of 16)"
    assert f"α, the acceptance rate: kept ÷ (kept + rejected)</td><td>–</td><td>{alpha}</td>" in summary
    assert html.escape(verdicts.formula_sentence(o)) in summary and "kept in runs" not in summary
    if faster:
        assert verdicts.formula_sentence(o).endswith(f"{o.speedup:.2f}×, as predicted.")
    else:
        assert "a verify pass cost 1.50 target calls on average here, where the formula counts 1" in summary


def test_the_busy_warning_the_re_timed_line_and_a_level_verdict_stand_beside_the_figures(make_chapter):
    """A profile flagged busy puts its warning above the table, once for the whole summary; a re-timing that
    changed the verdict is named there in one line; a speed-up within the profile's noise reads level
    in the verdict and the card alike."""
    from dataclasses import replace
    from lab.speed.request import Outcome
    from tests.helpers import CHEAP, DEAR, scripted_outcome, scripted_round
    slower = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018)
    faster = Outcome.of(slower.request, slower.plain, slower.spec,
                        replace(slower.profile, draft_seconds=0.001, verify_seconds=tuple(CHEAP), busy=True, load=5.0),
                        earlier=slower)
    ch = make_chapter(TimelineChapter)
    ch.show(faster)
    table, verdict = ch.summary.object.split("<table", 1)[0], ch.summary.object.split("verdict'>", 1)[1]
    warning = why_busy(faster.profile)
    assert warning in table and ch.summary.object.count(warning) == 1
    assert verdict.startswith(f"<p class='retimed' role='status'>This machine re-timed: now {faster.speedup:.2f}×")
    level = scripted_outcome([scripted_round(i, 4, 2) for i in range(8)], CHEAP, 0.04)
    level = Outcome.of(level.request, level.plain, level.spec, replace(level.profile, spread=0.2))
    ch.show(level)
    assert "Level with plain decoding here" in ch.summary.object and "retimed" not in ch.summary.object
    assert "busy-warning" not in ch.summary.object
    assert "ran level with plain decoding" in ch.cards.object and "as fast" not in ch.cards.object


def test_the_priced_lanes_carry_the_busy_warning_and_the_re_timed_line(make_chapter):
    """Above the lanes (the tour's timeline step shows it too): the warning while the profile is busy."""
    from dataclasses import replace
    from lab.speed.request import Outcome
    from tests.helpers import CHEAP, DEAR, scripted_outcome, scripted_round
    slower = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018)
    ch = make_chapter(TimelineChapter)
    ch.show(slower)
    assert ch.warning.object == ""
    busy = replace(slower.profile, draft_seconds=0.001, verify_seconds=tuple(CHEAP), busy=True, load=5.0)
    ch.show(Outcome.of(slower.request, slower.plain, slower.spec, busy, earlier=slower))
    assert "This machine re-timed: now" in ch.warning.object and why_busy(busy) in ch.warning.object
    assert "warning" in TimelineChapter.tour_parts
