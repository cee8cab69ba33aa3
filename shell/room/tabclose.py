"""A page's tab closed: act at once, not when Bokeh discards its session.

Bokeh discards a session whose websocket has closed at its next check for unused sessions (every
17 s, intercept.pacing.end_with_its_tab), and only then runs the session's destroy hooks: a class's
counts that waited for those hooks (the poll's "browsers here", the lecturer's open pages) would
lag a closed tab by up to 17 s, longer under load. The websocket's close is announced to the
page's document at once as Bokeh's ConnectionLost event; this lab never reconnects a page (Panel's
`reconnect` is off), so a lost connection is a closed tab.

    when_tab_closes(doc, lambda: ballot.close())      # the destroy hook stays as the fallback
"""
from __future__ import annotations

import logging
from typing import Callable

from bokeh.events import ConnectionLost

log = logging.getLogger(__name__)


def when_tab_closes(doc, fn: Callable[[], None]) -> None:
    """Call `fn()` as soon as the page of `doc` loses its websocket (its tab closed or navigated away).
    `fn` should be safe to call again: the session's destroy hooks still run later."""
    def lost(event):
        try:
            fn()
        except Exception:            # a closing page must never break the server's websocket handler
            log.warning("a closed tab's clean-up failed", exc_info=True)
    doc.on_event(ConnectionLost, lost)
