"""The lecturer's view says how the lab's default drafting did on the pair in use for the default
request: read from the outcome the warm-up computed, in chapter 12's words for the same request."""
import asyncio
import html

from chapters.ch12_cheaper_guesses import CheaperGuessesChapter
from serving.service import kept_outcome
from shell.frame import warmup
from shell.lecturer import controls as lecturer, drafting as lecturer_drafting
from tests.helpers import wait_until
from uikit import verdicts
from uikit.state import LabState


def refuse(*args, **kwargs):
    raise AssertionError("the lecturer's view started model work")


def test_the_line_waits_for_the_warm_up_then_says_what_chapter_12s_default_row_says(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    panel = lecturer.LecturerPanel(the_class, "s1")
    card = panel.__panel__()[0]
    assert panel.drafting.pane in card.objects             # in the lecturer's controls
    assert "measured once the pair has loaded and the warm-up has run" in panel.drafting.pane.object

    the_class.loader.load()
    service = the_class.pair.service()
    with monkeypatch.context() as m:                       # a page load computes nothing for the line
        m.setattr(service, "submit", refuse)
        m.setattr("lab.core.engine.Decoder.__init__", refuse)
        again = lecturer.LecturerPanel(the_class, "s2")
        assert "(tiny): measured once the warm-up has run." in again.drafting.pane.object
    assert service.pending() == 0

    # the server's warm-up (its profile and this job: the whole list is tests/shell/test_warmup.py's)
    real_jobs = warmup.jobs
    monkeypatch.setattr(warmup, "jobs", lambda s: [job for job in real_jobs(s)
                                                   if job[0] in ("the pair's cost profile", lecturer_drafting.WHAT)])
    assert the_class.warmup.start(the_class.loader) is True
    wait_until(lambda: the_class.warmup.retimer, timeout=120, message="the warm-up's end")
    the_class.warmup.retimer.stop()
    assert the_class.warmup.done
    panel.drafting.refresh()                               # what the served page does every LOOK_MS
    line = panel.drafting.pane.object

    # chapter 12 at a new student's defaults finds that very outcome, and words its default row alike
    chapter = CheaperGuessesChapter(LabState(service))
    chapter.__panel__()
    rows = {row.drafting.key: row for row in asyncio.run(chapter.measure())}
    auto = rows["auto"].outcome
    assert auto is kept_outcome(service, lecturer_drafting.default_request(service))
    words = verdicts.drafting(auto)
    assert html.escape(words) in chapter.table.object and f"<b class='speedup'>{auto.speedup:.2f}×</b>" in chapter.table.object
    assert line.startswith(f'<p class="drafting" role="status">Default drafting of the default request on this '
                           f"pair (tiny): {html.escape(words)} — {auto.speedup:.2f}× the speed of plain decoding.</p>")
    assert ("busy-warning" in line) == auto.profile.busy        # as beside chapter 12's figures
    rounds = len(auto.spec.rounds)
    assert any(said in words for said in (f"of {rounds} rounds", f"every round ({rounds})", f"all {rounds} rounds"))

    service.clear()                                        # a pair switch clears the outcomes: say how to measure
    panel.drafting.refresh()
    assert "not measured with this pair and its current timing yet; Measure all six in chapter 12" in \
        panel.drafting.pane.object


def test_the_warm_up_computes_it_last_as_chapter_12_asks_for_it():
    """The job is chapter 12's default row at a new student's defaults, after every chapter's own."""
    from lab.pairs.tiny import tiny_pair
    from serving.service import ModelService
    service = ModelService(lambda pair=tiny_pair(): pair)
    what, fn, args, kwargs = warmup.jobs(service)[-1]
    assert what == lecturer_drafting.WHAT and fn == service.outcome and kwargs == {}
    student = LabState(service)
    asked = args[0]
    assert (asked.drafter, asked.policy, asked.gamma) == ("hybrid", "auto", 12)
    assert asked.prompt_ids == tuple(student.prompt_ids()) and asked.settings == student.settings
