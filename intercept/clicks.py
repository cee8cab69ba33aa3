"""Every button's click goes through `on_click`, which drops a click that should not run.

A browser cannot click a disabled button; a crafted client can, and Panel runs the callback all the
same. Twenty tabs of one browser can click as fast as they like, and every callback that runs (a
redraw, a model request) takes turns of the event loop the class shares. So the callback returns at
once when its button is disabled or when the browser of its page clicks too fast (the `click`
check each served page registers, intercept.checks; a page without one may always click).
A dropped click is never silent: it says one sentence to the student who pressed (DISABLED or
TOO_FAST), through the `say` given with the button, else the one its page had registered with
`say_dropped_on` when the button was wired (a chapter: its working line, chapters.base; a tour holds
several chapters, each button says on its own), else the terminal's debug log. The sentence is the
English constant (marked `N_`): each `say` shows it in its page's language (`_(sentence)`).
tests/intercept/test_clicks.py checks that no module of the lab registers a click any other way.

    on_click(self.run_button, self._on_run)                 # an async method works too
    on_click(button, fn, say=lambda sentence: ...)          # where this button's dropped click is said
    allow_clicks_when(doc, allowed)                         # a page's click check alone (tests)
    say_dropped_on(doc, chapter.say_dropped)                # per page: where its dropped clicks are said
"""
from __future__ import annotations

import inspect
import logging
from typing import Callable

import panel as pn

from lab.i18n import N_
from intercept.checks import change_checks, checks_of
from intercept.pacing import served

log = logging.getLogger(__name__)

SAY = "speclab_say_dropped"     # a page's attribute: where its dropped clicks are said (gone with it)

# English, marked for the catalog: the page that says one translates it (`_(sentence)`, in its language)
DISABLED = N_("That press came while its button was off (its last press still running, or the page not "
              "ready yet), so it did nothing; press again once the button is on.")
TOO_FAST = N_("That press came faster than this browser's share of the class allows, so it did nothing; "
              "wait a second and press again.")


def allow_clicks_when(doc, allowed: Callable[[object], bool] | None) -> None:
    """Let the clicks of the served page `doc` run only while `allowed(doc)` is true (None: always);
    its other checks are kept (intercept.checks)."""
    change_checks(doc, click=allowed)


def say_dropped_on(doc, say: Callable[[str], None] | None) -> None:
    """Say the dropped clicks of page `doc` with `say(sentence)` (None: no longer); the latest wins."""
    if doc is not None:
        setattr(doc, SAY, say)


def dropped_why(button: pn.widgets.Button) -> str:
    """Why a click of `button` now should not run ("" when it should): the button is disabled, or its
    page's browser clicks too fast."""
    if button.disabled:
        return DISABLED
    if not served():
        return ""
    allowed = checks_of(pn.state.curdoc).click
    return TOO_FAST if allowed is not None and not allowed(pn.state.curdoc) else ""


def dropped(button: pn.widgets.Button) -> bool:
    """Whether a click of `button` now should not run."""
    return bool(dropped_why(button))


def tell_dropped(sentence: str, say: Callable[[str], None] | None = None) -> None:
    """Say `sentence` about a dropped click ("": the next press ran, clear it): with `say`, else where
    the current page said."""
    doc = pn.state.curdoc
    say = say or getattr(doc, SAY, None)
    if say is not None:
        say(sentence)
    elif sentence:
        log.debug("a click dropped on a page that names no place to say so: %s", sentence)


def on_click(button: pn.widgets.Button, fn: Callable, say: Callable[[str], None] | None = None) -> None:
    """`button.on_click(fn)`, skipping the clicks that `dropped_why` says should not run, each said in
    one sentence (`tell_dropped`, with `say` when given); `fn` may be async. Without `say`, the place
    its page named when the button was wired is kept (the chapter being built, in a tour of several)."""
    say = say or getattr(pn.state.curdoc, SAY, None)

    def runs() -> bool:
        why = dropped_why(button)
        if why or getattr(button, "_speclab_said", False):     # a press that runs clears the sentence
            tell_dropped(why, say)
            button._speclab_said = bool(why)
        return not why

    if inspect.iscoroutinefunction(fn):
        async def guarded(event):
            if runs():
                await fn(event)
    else:
        def guarded(event):
            if runs():
                fn(event)
    button.on_click(guarded)
