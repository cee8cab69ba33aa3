"""Chapter 1: Write races both models; the replay fills both lanes; unlikely draft tokens marked."""
import asyncio

import pytest

from chapters.ch01_dilemma import DilemmaChapter
from lab.speed.timeline import UNLIKELY


@pytest.fixture
def chapter(make_chapter, state):
    ch = make_chapter(DilemmaChapter, state)
    ch.animate = False
    return ch


def test_write_fills_both_lanes_and_marks_unlikely_tokens(chapter):
    race = asyncio.run(chapter.write())
    assert race is not None and 1 <= len(race.target_texts) <= 20 and len(race.draft_texts) == 20
    assert [c.text for c in chapter.big_strip.chips] == race.target_texts
    states = [c.state for c in chapter.small_strip.chips]
    assert states == ["unlikely" if p < UNLIKELY else "draft" for p in race.draft_target_p]
    assert race.target_ends == sorted(race.target_ends) and race.draft_done > 0
    assert chapter.race_figure.big_done.visible and chapter.race_figure.small_done.visible
    assert "The small model finished in" in chapter.summary.object


def test_replay_midway_shows_only_finished_calls(chapter):
    race = asyncio.run(chapter.write())
    t = race.draft_ends[4]
    chapter.show(t)
    assert len(chapter.small_strip.chips) == 5
    assert len(chapter.big_strip.chips) == sum(e <= t for e in race.target_ends)
    assert max(chapter.race_figure.calls.data["right"]) <= t
    assert chapter.summary.object == ""


def test_predict_card_reveals_after_the_race(chapter):
    card = chapter.predict
    card.commit(card.choices[0])
    assert card.correct is None
    asyncio.run(chapter.write())
    assert card.correct is False and chapter.state.answers[1]["correct"] is False


def test_an_empty_prompt_is_one_sentence_not_a_crash(chapter):
    chapter.state.prompt = "  "
    assert asyncio.run(chapter.write()) is None
    assert "empty" in chapter.problem.object


def test_the_size_ratio_in_the_intro_is_computed_from_the_pair(chapter):
    pair = chapter.state.service.pair
    assert f"{pair.target_params / pair.draft_params:.0f} times smaller" in chapter.page_intro()
    assert pair.draft_label in chapter.page_intro()


def test_reduced_motion_shows_the_finished_race_at_once(make_chapter, state):
    ch = make_chapter(DilemmaChapter, state)       # animate stays on: only the browser's setting stops it
    state.reduced_motion = True
    race = asyncio.run(ch.write())
    assert not ch.replay.running and ch.shown_time == race.end
    assert len(ch.small_strip.chips) == len(race.draft_texts)
    assert "reduced motion" in ch.summary.object


def test_the_lanes_grow_while_the_models_work(make_chapter):
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair
    from uikit.state import LabState
    pair = tiny_pair()
    ch = make_chapter(DilemmaChapter, LabState(ModelService(lambda: pair)))    # nothing cached yet
    seen = []
    shown = ch.show

    def record(t):
        shown(t)
        seen.append((ch.streaming, len(ch.big_strip.chips), len(ch.small_strip.chips), ch.summary.object))
        if ch.streaming and len(ch.big_strip.chips) < 20:      # the big lane is still writing
            assert not ch.race_figure.big_done.visible
    ch.show = record
    race = asyncio.run(ch.write())
    during = [s for s in seen if s[0]]
    assert len(during) >= 20                                   # drawn after every call but the last
    sizes = [b + s for _, b, s, _ in during]
    assert sizes == sorted(sizes) and sizes[0] <= 2 and sizes[-1] >= len(race.draft_texts)
    assert all(summary == "" for *_, summary in during)        # no verdict before the race is over
    assert seen[-1][0] is False and "The small model finished in" in seen[-1][3]
    assert not ch.replay.running and ch.shown_time == race.end  # computed live: nothing to replay
    again = []
    ch.show = lambda t: again.append(t) or shown(t)
    assert asyncio.run(ch.write()) is race                     # the second Write: from the cache
    assert again[0] == 0.0                                     # … replayed from the start


@pytest.mark.parametrize("small_call, big_call", [(0.01, 0.05), (0.05, 0.04)], ids=["small first", "small last"])
def test_the_done_labels_sit_clear_of_every_bar_and_of_the_right_edge(small_call, big_call):
    """A "done" label drawn over a lane's bars, or run past the figure's right edge, cannot be read.
    A label reaching right of its finish line sits in its own lane (no call of its own is left
    there) and only for the lane that finished first (the race, and the figure, go on after it);
    the last lane's label sits between the lanes' bars, reaching left of its finish line."""
    from chapters.ch01_dilemma.race import LANES, RaceFigure
    from lab.speed.timeline import Race
    race = Race(["w"] * 20, [big_call * (i + 1) for i in range(20)], ["w"] * 20,
                [small_call * (i + 1) for i in range(20)], [0.5] * 20)
    fig = RaceFigure()
    fig.draw(race, race.end)                                         # the finished race
    bar = fig.figure.renderers[0].glyph
    rows = {lane: i + 0.5 for i, lane in enumerate(LANES)}          # categorical rows: 0.5, 1.5
    calls = fig.calls.data
    labels = {"Small model": (fig.small_label, race.draft_done), "Big model": (fig.big_label, race.target_done)}
    for lane, (label, done) in labels.items():
        assert label.visible and label.x == done
        on_bars = [other for other, row in rows.items() if row - bar.height / 2 <= label.y <= row + bar.height / 2]
        if label.text_align == "left":                             # reaching right of its finish line …
            assert label.x_offset > 0 and on_bars == [lane] and done < race.end   # … in its own lane, first
            assert all(right <= done + 1e-12 for row, right in zip(calls["lane"], calls["right"]) if row == lane)
        else:                                                       # reaching left: clear of every lane's bars
            assert label.text_align == "right" and label.x_offset < 0 and on_bars == [] and done == race.end
    assert fig.small_label.y != fig.big_label.y


@pytest.mark.parametrize("slowdown", [1.0, 10.0], ids=["real speed", "10x slower"])
def test_a_replay_runs_from_the_start_to_the_race_end_at_the_chosen_speed(slowdown):
    """A race from the cache is shown again at its own speed (or ten times slower): the times shown
    grow, the last is the race's end, and the frames then stop."""
    import time

    from chapters.ch01_dilemma.race import Replay
    from tests.helpers import until
    end, shown = 0.05, []

    async def replay_it():
        replay = Replay(shown.append, slowdown=lambda: slowdown)
        started = time.perf_counter()
        replay.start(end)
        assert replay.running
        await until(lambda: not replay.running, message="the replay's end")
        return time.perf_counter() - started
    took = asyncio.run(replay_it())
    assert shown == sorted(shown) and shown[-1] == end and len(shown) >= 1
    assert took >= end * slowdown
