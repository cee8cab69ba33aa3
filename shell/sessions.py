"""Who is on this server: a browser's settings across page loads, and the classroom of open sessions.

Each page load is a new Panel session with a fresh LabState; a cookie names the browser, and
SNAPSHOTS keeps its last settings and answers (in memory, bounded) so they follow the student from
page to page. CLASSROOM lists the open sessions for the lecturer's controls. When several processes
serve the class (shell.store), a page load may land on any of them: the snapshots are kept in the
class's shared store too (written within half a second, off the event loop), and the lecturer's
count adds the other processes' open sessions.

    state = session_state(browser_id(), session_id)     # seeded from the browser's last settings
    session_id, doc = join_classroom()                  # left again when the session closes
"""
from __future__ import annotations

import logging
import dataclasses
import threading
import weakref
from collections import Counter, OrderedDict
from typing import Callable

import panel as pn

from lab import records
from serving import runtime
from serving.fairshare import Budget
from serving.workqueue import BURST, RATE, Allowance, Owner
from shell.heap import HEAP
from shell.identity import address_of, browsers_per_address, identify
from shell.listeners import Listeners
from shell.store import CLASS
from shell.tabclose import when_tab_closes
from uikit.inbox import admit_patches, on_cost, pace_patches
from uikit.pacing import end_with_its_tab, served
from uikit.state import SETTINGS, LabState


SNAPSHOT_FIELDS = (*SETTINGS, "answers")


class Snapshots:
    """Browser id → its last settings and answers; the oldest browsers are dropped past `size`.

    With a shared `store` (shell.store.ClassStore), a saved snapshot is also written there by
    `flush` (the store's watch thread calls it) and `get` reads the store first, so a browser's next
    page finds its settings whichever process serves it."""

    def __init__(self, size: int = 2000, store=None):
        self.size, self.store = size, store
        self._saved: OrderedDict[str, dict] = OrderedDict()
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        if store is not None:
            store.every_tick(self.flush)

    def get(self, bid: str) -> dict:
        with self._lock:
            if self.store is None or bid in self._dirty:
                return self._saved.get(bid, {})
        rows = self.store.read("SELECT value FROM snapshots WHERE browser = ?", (bid,))
        return self._snapshot(rows[0][0]) if rows else self._saved.get(bid, {})

    @staticmethod
    def _snapshot(blob: bytes) -> dict:
        """A stored snapshot: plain data (lab.records) with only the snapshot's fields, else {}."""
        try:
            value = records.loads(blob)
        except ValueError as exc:
            logging.getLogger(__name__).warning("A settings snapshot in the class store was ignored (%s).", exc)
            return {}
        return {k: v for k, v in value.items() if k in SNAPSHOT_FIELDS} if isinstance(value, dict) else {}

    def save(self, bid: str, state: LabState) -> None:
        with self._lock:
            self._saved[bid] = {f: getattr(state, f) for f in SNAPSHOT_FIELDS}
            self._saved.move_to_end(bid)
            while len(self._saved) > self.size:
                self._saved.popitem(last=False)
            if self.store is not None:
                self._dirty.add(bid)

    def flush(self) -> None:
        """Write the snapshots saved since the last flush to the shared store (one transaction),
        keeping its `size` newest."""
        with self._lock:
            rows = [(bid, records.dumps(self._saved[bid]).encode()) for bid in self._dirty if bid in self._saved]
            self._dirty.clear()
        if not rows:
            return
        import time
        with self.store.write() as db:
            db.executemany("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)",
                           [(bid, blob, time.time()) for bid, blob in rows])
            db.execute("DELETE FROM snapshots WHERE browser NOT IN "
                       "(SELECT browser FROM snapshots ORDER BY stamp DESC LIMIT ?)", (self.size,))


SNAPSHOTS = Snapshots(store=CLASS)


_BROWSER_IDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # served page → its browser id


def browser_id() -> str:
    """This page's identity (shell.identity): its cookie when this server signed it, else a new
    signed id (the page then sets the cookie) while its client address may start new browsers, else
    that address's pool; the same for every call in one served page (its snapshot and its poll
    votes agree)."""
    doc = pn.state.curdoc if served() else None
    if doc is not None and doc in _BROWSER_IDS:
        return _BROWSER_IDS[doc]
    cookie = (pn.state.cookies or {}).get("speclab_id", "")
    address = address_of(doc) if doc is not None else ""
    bid = identify(cookie, address)
    if doc is not None:
        remember_browser(doc, bid, address)
    return bid


_ADDRESSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # served page → its client address
TABS_PER_BROWSER = 10          # open pages of one browser (all its tabs) on this process
_TABS: Counter = Counter()     # browser id, or "address …" → its open pages on this process
_COUNTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # served page → what it counts in _TABS


def remember_browser(doc, bid: str, address: str = "") -> None:
    """Note that the page `doc` is shown by the browser `bid` from `address` (its tabs then share one
    allowance); a served page counts among its browser's and its address's open tabs until its
    connection is lost or its session closes, whichever is first (a page left for the next chapter
    stops counting at once)."""
    _BROWSER_IDS[doc] = bid
    _ADDRESSES[doc] = address
    if served(doc) and hasattr(doc, "on_session_destroyed"):
        _COUNTED[doc] = keys = [bid] + ([f"address {address}"] if address else [])
        _TABS.update(keys)
        doc.on_session_destroyed(lambda context: _uncount(doc))
        if hasattr(doc, "on_event"):
            from bokeh.events import ConnectionLost
            doc.on_event(ConnectionLost, lambda event: _uncount(doc))


def _uncount(doc) -> None:
    keys = _COUNTED.pop(doc, None)
    if keys:
        _TABS.subtract(keys)


def too_many_tabs(doc=None) -> pn.pane.HTML | None:
    """One sentence instead of the page when this page's browser has TABS_PER_BROWSER tabs open
    already (or its address that many per browser it may have); None otherwise. A refused tab does
    not count."""
    doc = doc if doc is not None else pn.state.curdoc
    bid, address = _BROWSER_IDS.get(doc), _ADDRESSES.get(doc, "")
    if bid is None or not served(doc):
        return None
    over = _TABS[bid] > TABS_PER_BROWSER or (
        address and _TABS[f"address {address}"] > TABS_PER_BROWSER * browsers_per_address())
    if not over:
        return None
    _uncount(doc)
    return pn.pane.HTML(f'<p class="notice" role="alert">This browser has {TABS_PER_BROWSER} pages of the lab '
                        "open already; close one of them, then reload this page.</p>", sizing_mode="stretch_width")


# Clicks per browser, all its tabs together: as many a second as model actions (serving.workqueue.RATE; a
# student stepping through chapter 9's code clicks about 3), and twice the model queue's burst at once,
# so a burst of clicks the queue would refuse still reaches it and is answered in a sentence.
CLICKS = Allowance(RATE, 2 * BURST)
_PER_ADDRESS = max(2, browsers_per_address() // 2)      # an address's allowances: this many browsers'
ADDRESS_CLICKS = Allowance(RATE * _PER_ADDRESS, 2 * BURST * _PER_ADDRESS)


def click_allowed(doc) -> bool:
    """Whether the browser showing `doc` may click now (uikit.clicks drops the click if not): twenty
    tabs of one browser share one allowance, as they share one model queue."""
    bid = _BROWSER_IDS.get(doc)
    if bid is None:
        return True
    address = _ADDRESSES.get(doc, "")
    if address and not ADDRESS_LOOP.ok(address):
        return False            # its machine's clicks and changes have used their share of the event loop
    return CLICKS.allowed(bid) and (not address or ADDRESS_CLICKS.allowed(address))


# Every message a page sends (a slider move, a tour step, a click) counts against its browser and its
# client address (uikit.inbox), twice. Read: a drag's moves pass (a browser sends up to ~60 a second);
# past that the page's websocket is not read until a token comes. Applied: a few tour steps or
# clicks a second, and a drag redrawn at 8 a second; past that a property's latest value waits.
READ_RATE, READ_BURST = 40.0, 120
READS = Allowance(READ_RATE, READ_BURST)
ADDRESS_READS = Allowance(READ_RATE * _PER_ADDRESS, READ_BURST * _PER_ADDRESS)
MESSAGE_RATE, MESSAGE_BURST = 20.0, 60
MESSAGES = Allowance(MESSAGE_RATE, MESSAGE_BURST)
ADDRESS_MESSAGES = Allowance(MESSAGE_RATE * _PER_ADDRESS, MESSAGE_BURST * _PER_ADDRESS)
# … and the event-loop time its pages took (uikit.inbox.on_cost: applying its changes and clicks, its
# redraws, writing its updates), per client address, the unit a class is fair between: one machine's
# pages may take LOOP_SHARE of the loop per browser it may have (40% by default), with
# LOOP_SAVED seconds per browser saved for a burst; past that its next change or click waits.
LOOP_SHARE, LOOP_SAVED = 0.2, 5.0
ADDRESS_LOOP = Budget(LOOP_SHARE * _PER_ADDRESS, LOOP_SAVED * _PER_ADDRESS)


def charge_loop(doc, seconds: float) -> None:
    """A page took `seconds` of the event loop: charge its client address."""
    if address := _ADDRESSES.get(doc, ""):
        ADDRESS_LOOP.charge(address, seconds)


def message_wait(doc) -> float:
    """Seconds before a message of the page `doc` may be read (0: now, and one of its browser's and
    its address's reads is spent)."""
    bid = _BROWSER_IDS.get(doc)
    if bid is None:
        return 0.0
    address = _ADDRESSES.get(doc, "")
    wait = max(READS.wait(bid), ADDRESS_READS.wait(address) if address else 0.0)
    if wait == 0:
        READS.allowed(bid)
        if address:
            ADDRESS_READS.allowed(address)
    return wait


def message_allowed(doc) -> bool:
    """Whether the browser showing `doc` may send a message now (spends one of its browser's and of
    its address's allowances)."""
    bid = _BROWSER_IDS.get(doc)
    if bid is None:
        return True
    address = _ADDRESSES.get(doc, "")
    if address and not ADDRESS_LOOP.ok(address):
        return False
    return MESSAGES.allowed(bid) and (not address or ADDRESS_MESSAGES.allowed(address))


def session_state(bid: str, owner: str | None = None) -> LabState:
    """This browser's LabState: a fresh object per session, seeded from its last settings. Its model
    work (`owner`) is queued under the browser and its client address (serving.workqueue)."""
    if isinstance(owner, Owner) and not owner.address and served():
        owner = dataclasses.replace(owner, address=_ADDRESSES.get(pn.state.curdoc, ""))
    state = LabState(runtime.service(), owner=owner, **SNAPSHOTS.get(bid))
    state.param.watch(lambda *_: SNAPSHOTS.save(bid, state), list(SNAPSHOT_FIELDS))
    return state


class Classroom:
    """The open sessions of this server process, for the lecturer's controls.

    Each entry is dropped when its session is destroyed (`leave`), so closed tabs hold nothing.
    Listeners (`subscribe`, as shell.poll's DocumentWatch takes a store) hear every join and leave:
    the lecturer's count of open sessions is live. With a shared `store`, this process's count is
    written there (by `report`, on the store's watch thread) and `total()` adds the others'.
    """

    def __init__(self, store=None):
        self._docs: dict[str, tuple] = {}      # session id → (document, its pn.state.location)
        self._lock = threading.Lock()
        self._listeners = Listeners("classroom")
        self.store = store
        self._reported: int | None = None
        if store is not None:
            store.on("sessions", lambda data: self._notify())
            store.every_tick(self.report)

    def report(self) -> None:
        """Write this process's open sessions to the shared store when the count has changed."""
        n = len(self)
        if n != self._reported:
            self.store.heartbeat(sessions=n)
            self._reported = n

    def total(self) -> int:
        """Open sessions of the whole class: this process's, and the other serving processes'."""
        return len(self) + (self.store.sessions_elsewhere() if self.store is not None else 0)

    def join(self, session_id: str, doc, location) -> None:
        with self._lock:
            self._docs[session_id] = (doc, location)
        self._notify()

    def leave(self, session_id: str, discarded: bool = True) -> None:
        """A session closed: forget it and drop its waiting model work, once (its tab's close comes
        first, `discarded=False`; Bokeh discarding the session later makes its page garbage)."""
        with self._lock:
            here = self._docs.pop(session_id, None) is not None
        if discarded:
            HEAP.session_closed()   # its page is garbage now, freed at the next sweep
        if here:
            runtime.service().forget(session_id)
            self._notify()

    def subscribe(self, listener: Callable[[None, str], None]) -> Callable[[], None]:
        """Call `listener(None, "sessions")` after every join and leave; returns the function that stops it."""
        return self._listeners.subscribe(listener)

    def _notify(self) -> None:
        self._listeners.notify(None, "sessions")

    def __len__(self) -> int:
        with self._lock:
            return len(self._docs)

    def reload_all(self, except_id: str | None = None) -> int:
        """Send every other session back to a fresh landing page (their state starts anew)."""
        with self._lock:
            docs = [(sid, d) for sid, d in self._docs.items() if sid != except_id]
        for _, (doc, location) in docs:
            doc.add_next_tick_callback(lambda location=location: _reload(location))
        return len(docs)


def _reload(location) -> None:
    if location is not None:
        location.search = ""
        location.reload = True


CLASSROOM = Classroom(CLASS)


def stylesheets_from_here(doc) -> None:
    """Panel's stylesheets of this page come from this server, never the CDN (the lab is offline).

    Panel tells a page's models where its stylesheets are (the document's "dist_url" template
    variable) when it serves the page's HTML. With several processes (`--num-procs`), the browser's
    websocket may reach another process than its HTML did, which then makes the session afresh
    without that variable: its models would name the CDN. Set first, every model gets this server's."""
    from panel.io.resources import LOCAL_DIST
    doc.template_variables.setdefault("dist_url", f"{pn.state.rel_path}/{LOCAL_DIST}" if pn.state.rel_path
                                      else LOCAL_DIST)


def join_classroom() -> tuple[str | None, object]:
    """Register this session with the classroom; its model work and entry go when it closes."""
    doc = pn.state.curdoc
    if not served():             # built outside a server (tests): nothing to register
        return None, doc
    stylesheets_from_here(doc)
    admit_patches(message_allowed)     # once per process: every message counts against its sender
    pace_patches(message_wait)
    on_cost(charge_loop)
    context = doc.session_context
    CLASSROOM.join(context.id, doc, pn.state.location)
    pn.state.on_session_destroyed(lambda ctx: CLASSROOM.leave(ctx.id))
    when_tab_closes(doc, lambda: CLASSROOM.leave(context.id, discarded=False))     # counted out at once
    pn.state.onload(lambda: end_with_its_tab(context))
    return context.id, doc
