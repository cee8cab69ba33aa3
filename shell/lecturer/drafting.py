"""The lecturer's line on the lab's default drafting: how the pair in use drafts the request a new
student starts from, and how often it fell back to plain steps.

The default drafting is chapter 12's "Hybrid, auto γ" row (lab.experiments.cheaper: copy or draft,
only as many guesses as pay, a plain step where none does). Its outcome for a new student's request
(uikit.state.LabState's defaults, as chapter 12 asks for it) is computed once per server by the
start-up warm-up (`warmup_job`, shell.frame.warmup) into the model service's outcomes, shared by the
class's processes, where chapter 12's "Measure all six" finds it too. The lecturer's view only reads
it there, every LOOK_MS, and never computes it on a page load; it says it in chapter 12's words
(uikit.verdicts.drafting), beside the speed-up chapter 12's table prints (and the busy
warning every figure priced by a busy cost profile has):

    Default drafting of the default request on this pair (tiny): drafted in 6 of 31 rounds; plain
    steps elsewhere — 1.12× the speed of plain decoding.

    line = DraftingLine(the_class)     # a pane that looks again every LOOK_MS on a served page
    line.refresh()                     # look again now
"""
from __future__ import annotations

import html
import weakref

import panel as pn

from lab.experiments.cheaper import BY_KEY
from serving.service import kept_outcome
from intercept.pacing import served
from uikit.language import gettext as _, number
from uikit.readouts import VERDICT_CSS, busy_html
from uikit.state import LabState
from uikit.verdicts import drafting

WHAT = "the default drafting of the default request (chapter 12's default row, the lecturer's view)"
LOOK_MS = 3000     # how often the lecturer's view looks for the outcome (the load line's pace, shell.frame.app)


def default_request(service):
    """A new student's request drafted the lab's default way, exactly as chapter 12's "auto" row
    asks for it (the same request, so the same outcome in the service's cache)."""
    student = LabState(service)
    return BY_KEY["auto"].request(student.request(student.prompt_ids()))


def warmup_job(service) -> tuple:
    """The warm-up's job that computes it: (what, fn, args, kwargs), as shell.frame.warmup.jobs lists them."""
    return (WHAT, service.outcome, (default_request(service),), {})


def drafting_sentence(outcome) -> str:
    """What the outcome says: how often it drafted, and its speed-up as chapter 12 prints it (in the
    page's language)."""
    return _("{drafting} — {speedup}× the speed of plain decoding.").format(
        drafting=drafting(outcome), speedup=number(outcome.speedup, 2))


class DraftingLine(pn.viewable.Viewer):
    """One line in the lecturer's controls: the default drafting on the pair in use, measured or when
    it will be. `the_class`: the server's class state (its loader, pair, warm-up)."""

    def __init__(self, the_class, **params):
        super().__init__(**params)
        self.the_class = the_class
        self._asked = (lambda: None, None)   # (the pair, weakly: a switched-out pair goes; its request)
        self.pane = pn.pane.HTML(self.html(), sizing_mode="stretch_width", margin=(0, 10),
                                 stylesheets=[VERDICT_CSS])
        if served():
            pn.state.add_periodic_callback(self.refresh, period=LOOK_MS)

    def said(self) -> tuple[str, object]:
        """(the line, the cost profile its figure is priced by, or None)."""
        if not self.the_class.loader.ready:   # no pair yet: asking the service would load it here
            return _("Default drafting of the default request: measured once the pair has loaded and the "
                     "warm-up has run."), None
        service = self.the_class.pair.service()
        pair = service.pair
        if self._asked[0]() is not pair:     # tokenized once per pair
            self._asked = (weakref.ref(pair), default_request(service))
        outcome = kept_outcome(service, self._asked[1])
        if outcome is not None:
            return _("Default drafting of the default request on this pair ({pair}): {outcome}").format(
                pair=pair.name, outcome=drafting_sentence(outcome)), outcome.profile
        if not self.the_class.warmup.done:
            return _("Default drafting of the default request on this pair ({pair}): measured once the warm-up "
                     "has run.").format(pair=pair.name), None
        return _("Default drafting of the default request on this pair ({pair}): not measured with this pair "
                 "and its current timing yet; Measure all six in chapter 12, at the default prompt and "
                 "settings, measures it.").format(pair=pair.name), None

    def html(self) -> str:
        line, profile = self.said()
        return f'<p class="drafting" role="status">{html.escape(line)}</p>' + busy_html(profile)

    def refresh(self) -> None:
        """Look again (a warm-up finished, a pair switched, a profile re-timed); patch only a change."""
        line = self.html()
        if line != self.pane.object:
            self.pane.object = line

    def __panel__(self):
        return self.pane
