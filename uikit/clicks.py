"""Every button's click goes through `on_click`, which drops a click that should not run.

A browser cannot click a disabled button; a crafted client can, and Panel runs the callback all the
same. Twenty tabs of one browser can click as fast as they like, and every callback that runs (a
redraw, a model request) takes turns of the event loop the class shares. So the callback returns at
once when its button is disabled or when the browser of its page clicks too fast (the shell gives
each served page that check with `allow_clicks_when`; a page without one may always click).
tests/uikit/test_clicks.py checks that no module of the lab registers a click any other way.

    on_click(self.run_button, self._on_run)                 # an async method works too
    allow_clicks_when(doc, browsers.click_allowed)          # per served page, by the shell
"""
from __future__ import annotations

import inspect
import weakref
from typing import Callable

import panel as pn

from uikit.pacing import served

# served document → may its browser click now (per page, gone with it)
_ALLOWED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def allow_clicks_when(doc, allowed: Callable[[object], bool] | None) -> None:
    """Let the clicks of the served page `doc` run only while `allowed(doc)` is true (None: always)."""
    if allowed is None:
        _ALLOWED.pop(doc, None)
    else:
        _ALLOWED[doc] = allowed


def dropped(button: pn.widgets.Button) -> bool:
    """Whether a click of `button` now should not run: the button is disabled, or its page's browser
    clicks too fast."""
    if button.disabled:
        return True
    if not served():
        return False
    allowed = _ALLOWED.get(pn.state.curdoc)
    return allowed is not None and not allowed(pn.state.curdoc)


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
