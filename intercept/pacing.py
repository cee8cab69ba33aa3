"""Pacing work on Bokeh's event loop, which every student of a class shares.

A slider move waits for whatever is ahead of it on the server's one event loop. The tricks that
keep that short are all here, because some of them need Panel or Bokeh internals that have no
public API. Each internal is listed in intercept/patched.py (tests/test_internals.py fails, naming
it, when a Panel or Bokeh upgrade changes one).

    self.param.watch(Throttled(self._redraw), ["alpha"])   # a drag redraws at most every 50 ms
    in_document(draw)                                      # change raw Bokeh models safely
    async with page_turn(): ...                            # one piece of page building at a time
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import weakref
from typing import Callable

import panel as pn
from bokeh.protocol.exceptions import ProtocolError
from panel.io.state import set_curdoc

_CURRENT = object()


def served(doc=_CURRENT) -> bool:
    """Whether `doc` (default: the current document) is a page a browser is showing (False for None,
    and in tests and scripts)."""
    doc = pn.state.curdoc if doc is _CURRENT else doc
    return doc is not None and doc.session_context is not None


class Throttled:
    """`fn()` at most once per `gap` seconds: at once when the last call is older than that (a key
    press, a click, a drag's first move), otherwise once at the end of the gap with the values as
    they are then (a drag's later moves, gathered). Outside a served page it always runs at once.

        redraw = Throttled(self._update)
        self.param.watch(redraw, ["alpha", "gamma", "c"])
    """

    def __init__(self, fn: Callable[[], None], gap: float = 0.05, clock: Callable[[], float] = time.monotonic):
        self.fn, self.gap, self.clock = fn, gap, clock
        self._last = float("-inf")
        self._due = False   # a call at the end of the gap is scheduled

    def __call__(self, *_events) -> None:
        if self._due:
            return
        wait = self._last + self.gap - self.clock()
        if wait <= 0 or not served():
            self._run()
        else:
            self._due = True
            doc = pn.state.curdoc
            doc.add_timeout_callback(functools.partial(self._run_in, doc), max(1, int(wait * 1000)))

    def _run_in(self, doc) -> None:
        with set_curdoc(doc):   # Panel then updates this page's models directly
            self._run()

    def _run(self) -> None:
        self._due = False
        self._last = self.clock()
        self.fn()


def in_document(fn, *args) -> None:
    """Run `fn(*args)` where it may change Bokeh models (figures, sources).

    After an `await`, an async Panel callback no longer holds the document lock, so changes to raw
    Bokeh models are queued as a next-tick callback (which holds it); Panel panes and widgets handle
    this themselves. Without a served document (tests), or while the lock is held, `fn` runs at once.
    """
    doc = pn.state.curdoc
    session = getattr(doc.session_context, "_session", None) if served() else None
    # Bokeh's session collects writes while its document lock is held: then change the models now
    # (one event-loop turn sooner, which counts when a class shares the loop).
    if session is None or getattr(session, "_pending_writes", None) is not None:
        fn(*args)
    else:
        doc.add_next_tick_callback(lambda: fn(*args))


def end_with_its_tab(context) -> None:
    """Let Bokeh discard this session at its next check (every 17 s) once its page disconnects.

    By default a session outlives its closed tab by 15–32 s, kept for a reconnection this lab never
    makes (Panel's `reconnect` is off). Left behind, a class's closed pages would be most of the
    server's heap, and every full garbage collection would walk them. Asked once the page is
    connected (on load): a session whose page has not connected yet is kept as before. Bokeh's
    `--unused-session-lifetime` is not used: a lifetime this short would also discard the pages whose
    websocket has not connected yet.
    """
    try:
        session = context.server_context.application_context.get_session(context.id)
    except ProtocolError:   # already discarded
        return
    session.request_expiration()


PAGE_TURN_YIELDS = 3
_TURNSTILES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


@contextlib.asynccontextmanager
async def page_turn():
    """One piece of page building, one at a time across all sessions, after other work has had
    PAGE_TURN_YIELDS turns of the event loop.

    All sessions share the server's one event loop, and answering a classmate's slider move takes it
    several turns (the message, Panel's change callback, the redraw and its reply). When a class
    opens pages at once, a piece from every opening page would queue ahead of each of those turns;
    this way at most one piece (~10–50 ms) is ahead of every few.
    """
    loop = asyncio.get_running_loop()
    lock = _TURNSTILES.setdefault(loop, asyncio.Lock())
    async with lock:                        # FIFO: the pages in progress take turns
        for _ in range(PAGE_TURN_YIELDS):   # other sessions' work first (free when there is none)
            await asyncio.sleep(0)
        yield


PIECE_OBJECTS = 25   # Panel objects one turn of page building shows (a section with more is a turn alone)
TINY_SECTION = 2     # a section this small (a problem line, the takeaway) rides with the turn before it


def page_pieces(sections: list) -> list[list]:
    """A chapter's sections, in order, grouped into the turns that show them.

    Each turn ends with Bokeh walking the whole page's models again (a document's model graph is
    recomputed whenever a layout's children change), so a turn per section makes a long page cost
    its length several times over: sections are gathered up to PIECE_OBJECTS Panel objects a turn,
    a larger one (the page's figures) takes a turn alone, and a tiny one rides with the turn before.
    """
    turns: list[list] = []
    weight = 0
    for section in sections:
        size = sum(1 for _ in section.select())
        if turns and (weight + size <= PIECE_OBJECTS or size <= TINY_SECTION):
            turns[-1].append(section)
            weight += size
        else:
            turns.append([section])
            weight = size
    return turns


async def show_in_pieces(slot: pn.Column, view: pn.Column) -> None:
    """Show a page's content in `slot` a few sections at a time (page_pieces), each in a `page_turn`.

    Turning a chapter page into Bokeh models takes the loop a tenth of a second or so: done in one
    piece, every other student's slider move would wait behind each page a classmate opens. In
    pieces, the light sections go in one turn and the figures in the next, each turn short.
    """
    sections = view.objects[-1] if view.objects else None   # the chapter's own column of sections
    if not isinstance(sections, pn.Column):
        async with page_turn():
            slot.objects = [view]
        return
    first, *rest = page_pieces(list(sections.objects)) or [[]]
    sections.objects = first
    async with page_turn():
        slot.objects = [view]
    for turn in rest:
        async with page_turn():
            sections.extend(turn)
