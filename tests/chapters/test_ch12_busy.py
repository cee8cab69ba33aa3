"""Chapter 12's priced table and verdict carry the busy warning while the profile is flagged busy, and
one line when a re-timing changed the verdict shown (uikit.readouts)."""
from dataclasses import replace

from chapters.ch12_cheaper_guesses import CheaperGuessesChapter
from lab.experiments import cheaper
from lab.speed.request import Outcome
from tests.helpers import CHEAP, DEAR, scripted_outcome, scripted_round
from uikit import verdicts


def test_the_busy_warning_and_the_re_timed_line_stand_beside_the_prices(make_chapter):
    slower = scripted_outcome([scripted_round(i, 4, 1) for i in range(8)], DEAR, 0.018)
    busy = replace(slower.profile, draft_seconds=0.001, verify_seconds=tuple(CHEAP), busy=True, load=5.0)
    faster = Outcome.of(slower.request, slower.plain, slower.spec, busy, earlier=slower)
    ch = make_chapter(CheaperGuessesChapter)
    ch.rows, ch.plain = [cheaper.Row(d, faster) for d in cheaper.DRAFTINGS], faster.plain
    ch._draw()
    warning = verdicts.why_busy(busy)
    assert ch.table.object.startswith("<p class='busy-warning' role='note'>") and warning in ch.table.object
    assert warning in ch.summary.object and verdicts.retimed(faster) in ch.summary.object
    assert verdicts.retimed(faster).startswith("This machine re-timed: now")
    calm = Outcome.of(slower.request, slower.plain, slower.spec, replace(busy, busy=False))
    ch.rows = [cheaper.Row(d, calm) for d in cheaper.DRAFTINGS]
    ch._draw()
    assert "busy-warning" not in ch.table.object + ch.summary.object and "re-timed" not in ch.summary.object
