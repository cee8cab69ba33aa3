"""The class poll: every locked "Pause & predict" answer is an anonymous answer; the lecturer sees each
question's histogram live, and can reveal it to every student's card and the tour, or reset it.

The votes live in the class's poll store (the class state's `poll`, shell.poll.shared.class_poll:
plain Python, in this process or shared by several). This module is the poll in pages: a page's
`Ballot` (what uikit.predict's cards talk to: the shell hands it down with the page's LabState,
`Ballots.page_ballot`); the lecturer's view is shell.poll.view. Pages never touch the store from another
page's document: `DocumentWatch` carries a change into each page's own document as a next-tick
callback (Bokeh's thread-safe way in), several changes in one callback, so 40 votes in a second
cost the lecturer's page a few updates. Every sentence is in the page's language, made when the page
draws it (a change carried into a page runs with that page's document); the poll's keys, the choices
a class votes on, stay English (the store counts every language's answer together).
"""
from __future__ import annotations

import threading
import weakref
from typing import Callable

import panel as pn
from panel.io.state import set_curdoc

from shell.poll.store import PollStore, Question, Tally
from shell.room.identity import client_address
from shell.room.tabclose import when_tab_closes
from intercept.pacing import served
from uikit.language import page_language


class DocumentWatch:
    """Carry store changes into one page's document: `fn(numbers)` runs there as a next-tick
    callback (holding its lock), with every question that changed since it last ran.

    Outside a served page (tests) `fn` runs at once. `wants(number, what)` filters on the caller's
    thread, so a change a page does not show costs it nothing.
    """

    def __init__(self, store: PollStore, fn: Callable[[set], None], wants=lambda number, what: True,
                 doc=None):
        self.fn, self.wants = fn, wants
        self.doc = doc if doc is not None else (pn.state.curdoc if served() else None)
        self._lock = threading.Lock()
        self._numbers: set = set()
        self._scheduled = False
        self.stop = store.subscribe(self._changed)

    def _changed(self, number, what) -> None:
        if not self.wants(number, what):
            return
        if self.doc is None:
            self.fn({number})
            return
        with self._lock:
            self._numbers.add(number)
            if self._scheduled:
                return
            self._scheduled = True
        try:
            self.doc.add_next_tick_callback(self._run)
        except Exception:        # the page has gone
            self.stop()

    def _run(self) -> None:
        with self._lock:
            numbers, self._numbers, self._scheduled = self._numbers, set(), False
        with set_curdoc(self.doc):   # Panel then updates this page's models directly
            self.fn(numbers)


class Ballot:
    """One page's way into the poll (what uikit.predict's cards talk to): its browser's votes and
    the tallies its cards show. Built once per page; it leaves the poll when the page closes."""

    def __init__(self, store: PollStore, browser: str, session_id: str | None = None, votes: bool = True,
                 address: str = ""):
        """`votes=False`: the lecturer's page, which sees the class's answers but is not one of the
        class (it neither votes nor counts among the browsers here). `address`: the page's client
        address (a few browsers' votes count per address and question)."""
        self.store, self._browser, self.votes, self._address = store, browser, votes, address
        self.session_id = session_id if votes else None
        self._watches: list[DocumentWatch] = []
        self._answers: dict[int, Callable[[], object]] = {}      # question → its card's known answer
        self._answer_listeners: list[Callable[[int], None]] = []
        if self.session_id is not None:
            store.join(self.session_id, browser)

    def ask(self, number: int, kind: str, choices=(), bounds=(0, 20)) -> None:
        self.store.ask(Question(number, kind, tuple(choices or ()), tuple(bounds)))

    def vote(self, number: int, value) -> str | None:
        return self.store.vote(number, self._browser, value, self._address, language=page_language()) \
            if self.votes else None

    def tally(self, number: int) -> Tally | None:
        return self.store.tally(number)

    def mine(self, number: int) -> int | None:
        return self.store.answer_of(number, self._browser)

    def left_out(self, number: int) -> bool:
        """Whether this browser's answer is kept but left out of the histogram (its address's share
        of the histogram is full)."""
        return self.votes and self.store.left_out(number, self._browser)

    def watch(self, number: int, fn: Callable[[], None], live: Callable[[], bool],
              answer: Callable[[], object] | None = None) -> None:
        """`fn()` in this page when question `number` is revealed or reset, and on every vote while
        `live()` (a revealed card, the tour on the projector). `answer()`: the correct answer as this
        page's card can show it, or None (the lecturer's histogram marks it after the reveal)."""
        if answer is not None:
            self._answers[number] = answer
        def wants(n, what):
            return (n is None or n == number) and (what in ("reveal", "reset", "ask") or live())
        self._watches.append(DocumentWatch(self.store, lambda numbers: fn(), wants))

    def known_answer(self, number: int):
        """The correct answer to question `number` as this page's card knows it, or None."""
        answer = self._answers.get(number)
        return answer() if answer is not None else None

    def answer_known(self, number: int) -> None:
        """This page's card for `number` may know its answer now (its experiment ran): tell the page's
        lecturer view (`on_answer`)."""
        for fn in list(self._answer_listeners):
            fn(number)

    def on_answer(self, fn: Callable[[int], None]) -> None:
        self._answer_listeners.append(fn)

    def on_projector(self) -> None:
        """This page is the tour on the projector: not counted among the browsers that may answer."""
        if self.session_id is not None:
            self.store.leave(self.session_id)

    def close(self) -> None:
        for w in self._watches:
            w.stop()
        self._watches.clear()       # each holds its page's document
        if self.session_id is not None:
            self.store.leave(self.session_id)


class Ballots:
    """The ballot of every served page of one server (built on first use, gone when its session
    closes), and which pages are the lecturer's: they watch the poll, they do not vote."""

    def __init__(self, store: PollStore, browser_of: Callable[[], str]):
        """`browser_of()`: the current page's browser id (shell.room.sessions.browser_id)."""
        self.store, self.browser_of = store, browser_of
        self._ballots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # page → its ballot
        self._lecturers: weakref.WeakSet = weakref.WeakSet()

    def lecturers_page(self) -> None:
        """This served page is the lecturer's: its cards neither vote nor count it among the browsers
        here (call before its chapter is built)."""
        if served():
            self._lecturers.add(pn.state.curdoc)

    def of(self, doc) -> Ballot | None:
        """The ballot of the served page `doc`, if `page_ballot` has built one and its session is open."""
        return self._ballots.get(doc)

    def page_ballot(self) -> Ballot | None:
        """This page's ballot (built once per served page), or None outside a served page."""
        if not served():
            return None
        doc = pn.state.curdoc
        ballot = self.of(doc)
        if ballot is None:
            ballot = self._ballots[doc] = Ballot(self.store, self.browser_of(), doc.session_context.id,
                                                 votes=doc not in self._lecturers, address=client_address(doc))

            def closed(context):   # the ballot's watches hold the document: weak keys alone would keep it
                ballot.close()
                self._ballots.pop(doc, None)
            pn.state.on_session_destroyed(closed)
            when_tab_closes(doc, ballot.close)     # the tab's browser leaves "here" at once, not 17 s later
        return ballot
