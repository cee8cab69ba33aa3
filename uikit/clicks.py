"""Every button's click goes through `on_click`, which drops a click that should not run.

A browser cannot click a disabled button; a crafted client can, and Panel runs the callback all the
same. Twenty tabs of one browser can click as fast as they like, and every callback that runs (a
redraw, a model request) takes turns of the event loop the class shares. So the callback returns at
once when its button is disabled or when the browser of its page clicks too fast (the shell
installs that check with `allow_when`; by default every click is allowed). tests/uikit/test_clicks.py
checks that no module of the lab registers a click any other way.

    on_click(self.run_button, self._on_run)       # an async method works too
    allow_when(click_allowed)                     # once per process, by the shell
"""
from __future__ import annotations

import inspect
import time
from typing import Callable

import panel as pn

from uikit.inbox import charge_sender
from uikit.pacing import served


def anyone(doc) -> bool:
    """The default check: every page may click."""
    return True


_allowed: Callable[[object], bool] = anyone   # served document → may its browser click now


def allow_when(allowed: Callable[[object], bool] = anyone) -> None:
    """Let a served page's clicks run only while `allowed(document)` is true (installing again
    replaces the check)."""
    global _allowed
    _allowed = allowed


def dropped(button: pn.widgets.Button) -> bool:
    """Whether a click of `button` now should not run: the button is disabled, or its page's browser
    clicks too fast."""
    return button.disabled or (served() and not _allowed(pn.state.curdoc))


def on_click(button: pn.widgets.Button, fn: Callable) -> None:
    """`button.on_click(fn)`, skipping the clicks that `dropped` says should not run; `fn` may be
    async. The event-loop time a click's callback takes (each step of an async one, not its waits)
    is charged to the page's sender (uikit.inbox.charge_sender), as a browser's other changes are."""
    if inspect.iscoroutinefunction(fn):
        async def guarded(event):
            if not dropped(button):
                doc = pn.state.curdoc if served() else None
                await Timed(fn(event), lambda seconds: charge_sender(doc, seconds))
    else:
        def guarded(event):
            if not dropped(button):
                start = time.perf_counter()
                try:
                    fn(event)
                finally:
                    if served():
                        charge_sender(pn.state.curdoc, time.perf_counter() - start)
    button.on_click(guarded)


class Timed:
    """Await `coro`, calling `charge(seconds)` with the time each of its steps held the event loop
    (the time between its awaits; not the waits themselves)."""

    def __init__(self, coro, charge: Callable[[float], object]):
        self.coro, self.charge = coro, charge

    def __await__(self):
        steps = self.coro.__await__()
        value, error = None, None
        while True:
            start = time.perf_counter()
            try:
                waited = steps.send(value) if error is None else steps.throw(error)
            except StopIteration as stop:
                self.charge(time.perf_counter() - start)
                return stop.value
            self.charge(time.perf_counter() - start)
            try:
                value, error = (yield waited), None
            except BaseException as err:      # a cancellation or error goes into the callback
                value, error = None, err
