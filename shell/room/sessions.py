"""Who is on this server: each page's browser and student state, and the open pages of this process.

Each page load is a new Panel session with a fresh LabState; a cookie names the browser, and the
class's snapshots (shell.room.snapshots) keep its last settings and answers so they follow the student
from page to page. `OpenPages` lists the open sessions for the lecturer's controls; when several
processes serve the class (shell.store.shared), its count adds the other processes' open sessions. All of
it belongs to the server's class state (shell.frame.classstate), which every function here is given.

    bid = browser_id(the_class)                          # this page's browser (signed cookie)
    state = session_state(the_class, bid, owner)        # seeded from the browser's last settings
    session_id, doc = join_open_pages(the_class)        # left again when the session closes
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Callable

import panel as pn

from serving.workqueue import Owner
from shell.room.identity import client_address, identify
from shell.store.listeners import Listeners
from shell.room.snapshots import SNAPSHOT_FIELDS
from shell.room.tabclose import when_tab_closes
from intercept.checks import PageChecks, register_page
from intercept.pacing import end_with_its_tab, served
from uikit.state import LabState


def browser_id(the_class) -> str:
    """This page's identity (shell.room.identity): its cookie when this server signed it, else a new
    signed id (the page then sets the cookie) while its client address may start new browsers, else
    that address's pool; the same for every call in one served page (its snapshot and its poll
    votes agree)."""
    doc = pn.state.curdoc if served() else None
    browsers = the_class.browsers
    if doc is not None and doc in browsers.ids:
        return browsers.ids[doc]
    cookie = (pn.state.cookies or {}).get("speclab_id", "")
    address = client_address(doc) if doc is not None else ""
    bid = identify(cookie, address, the_class.signer, the_class.new_ids)
    if doc is not None:
        browsers.remember(doc, bid, address)
    return bid


def session_state(the_class, bid: str, owner: str | None = None) -> LabState:
    """This browser's LabState: a fresh object per session, seeded from its last settings, with the
    page's way into the class poll. Its model work (`owner`) is queued under the browser and its
    client address (serving.workqueue)."""
    if isinstance(owner, Owner) and not owner.address and served():
        owner = dataclasses.replace(owner, address=the_class.browsers.addresses.get(pn.state.curdoc, ""))
    state = LabState(the_class.pair.service(), owner=owner, ballots=the_class.ballots.page_ballot,
                     **the_class.snapshots.get(bid))
    state.param.watch(lambda *_: the_class.snapshots.save(bid, state), list(SNAPSHOT_FIELDS))
    return state


class OpenPages:
    """The open sessions of this server process, for the lecturer's controls.

    Each entry is dropped when its session is destroyed (`leave`), so closed tabs hold nothing: its
    waiting model work goes (`service()`, the pair's ModelService) and the heap's policy counts it
    (`heap`, shell.frame.heap). Listeners (`subscribe`, as shell.poll.answers's DocumentWatch takes a store) hear
    every join and leave: the lecturer's count of open sessions is live. With a shared `store`, this
    process's count is written there (by `report`, on the store's watch thread) and `total()` adds
    the others'.
    """

    def __init__(self, store=None, heap=None, service: Callable | None = None):
        self._docs: dict[str, tuple] = {}      # session id → (document, its pn.state.location)
        self._lock = threading.Lock()
        self._listeners = Listeners("open pages")
        self.store, self.heap, self.service = store, heap, service
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
        if discarded and self.heap is not None:
            self.heap.session_closed()   # its page is garbage now, freed at the next sweep
        if here:
            if self.service is not None:
                self.service().forget(session_id)
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


def stylesheets_from_here(doc) -> None:
    """Panel's stylesheets of this page come from this server, never the CDN (the lab is offline).

    Panel tells a page's models where its stylesheets are (the document's "dist_url" template
    variable) when it serves the page's HTML. With several processes (`--num-procs`), the browser's
    websocket may reach another process than its HTML did, which then makes the session afresh
    without that variable: its models would name the CDN. Set first, every model gets this server's."""
    from panel.io.resources import LOCAL_DIST
    doc.template_variables.setdefault("dist_url", f"{pn.state.rel_path}/{LOCAL_DIST}" if pn.state.rel_path
                                      else LOCAL_DIST)


def join_open_pages(the_class) -> tuple[str | None, object]:
    """Register this session with the open pages; its model work and entry go when it closes."""
    doc = pn.state.curdoc
    if not served():             # built outside a server (tests): nothing to register
        return None, doc
    stylesheets_from_here(doc)
    browsers = the_class.browsers
    # this page's messages, callbacks and clicks count against its browser (intercept's hooks read it)
    register_page(doc, PageChecks(admit=browsers.message_allowed, pace=browsers.message_wait,
                                  cost=browsers.charge_loop, click=browsers.click_allowed))
    context = doc.session_context
    pages = the_class.open_pages
    pages.join(context.id, doc, pn.state.location)
    pn.state.on_session_destroyed(lambda ctx: pages.leave(ctx.id))
    when_tab_closes(doc, lambda: pages.leave(context.id, discarded=False))     # counted out at once
    pn.state.onload(lambda: end_with_its_tab(context))
    return context.id, doc
