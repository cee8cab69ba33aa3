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
from typing import Callable

import panel as pn

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
    """`button.on_click(fn)`, skipping the clicks that `dropped` says should not run; `fn` may be async."""
    if inspect.iscoroutinefunction(fn):
        async def guarded(event):
            if not dropped(button):
                await fn(event)
    else:
        def guarded(event):
            if not dropped(button):
                fn(event)
    button.on_click(guarded)
