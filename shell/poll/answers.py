"""The class poll: every locked "Pause & predict" answer is an anonymous answer; the lecturer sees each
question's histogram live, and can reveal it to every student's card and the tour, or reset it.

The votes live in the class's poll store (the class state's `poll`, shell.poll.shared.class_poll:
plain Python, in this process or shared by several). This module is the poll in pages: a page's
`Ballot` (what uikit.predict's cards talk to: the shell hands it down with the page's LabState,
`Ballots.page_ballot`) and the lecturer's `PollView`. Pages never touch the store from another
page's document: `DocumentWatch` carries a change into each page's own document as a next-tick
callback (Bokeh's thread-safe way in), several changes in one callback, so 40 votes in a second
cost the lecturer's page a few updates. Every sentence is in the page's language, made when the page
draws it (a change carried into a page runs with that page's document); the poll's keys, the choices
a class votes on, stay English (the store counts every language's answer together).
"""
from __future__ import annotations

import html
import threading
import weakref
from types import SimpleNamespace
from typing import Callable

import panel as pn
from panel.io.state import set_curdoc

from chapters import registry
from shell.poll.store import PollStore, Question, Tally
from shell.room.identity import client_address
from shell.room.tabclose import when_tab_closes
from intercept.clicks import on_click
from intercept.pacing import served
from uikit.language import gettext as _, ngettext, number as shown_number, page_language
from uikit.pollchart import PollChart, summary
from uikit.styles import BOX_CSS


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


# --- the lecturer's view ---------------------------------------------------------------------------
def status_html(number: int, tally: Tally | None) -> str:
    """The line under a question's histogram, in the page's language (the bench reads its count:
    data-q, 'N of M')."""
    if tally is None:
        text = _("No one has opened this question yet.")
    else:
        # who answered, as the students' cards say it (uikit.pollchart.summary), less the left-out
        # part: the lecturer's own sentence on it follows
        who = summary(SimpleNamespace(connected=tally.connected, here=tally.here, gone=tally.gone, left_out=0,
                                      per_address=tally.per_address))
        text = (_("{who} · revealed to the class.") if tally.revealed else _("{who}.")).format(who=who)
        if tally.left_out:
            text += " " + left_out_text(tally)
    return f'<div class="poll-status" data-q="{number}" role="status">{html.escape(text)}</div>'


def left_out_text(tally: Tally) -> str:
    """The lecturer's sentence on the answers left out of the histogram ("" when none), naming the
    setting that raises the limit."""
    if not tally.left_out:
        return ""
    return ngettext("1 answer left out of the histogram: it counts {limit} per question from one network "
                    "address (students sharing a computer or a network); set SPECLAB_VOTES_PER_ADDRESS when "
                    "you start the server to count more.",
                    "{n} answers left out of the histogram: it counts {limit} per question from one network "
                    "address (students sharing a computer or a network); set SPECLAB_VOTES_PER_ADDRESS when "
                    "you start the server to count more.", tally.left_out).format(
        n=shown_number(tally.left_out), limit=shown_number(tally.per_address or 0))


def said_html(sentence: str) -> str:
    """A dropped press's sentence (intercept.clicks, in English) in the page's language, as an alert."""
    if not sentence:
        return ""
    said = html.escape(_(sentence))
    return f'<div class="poll-status" role="alert">{said}</div>'


class QuestionPoll(pn.viewable.Viewer):
    """One question in the lecturer's view: its histogram, who answered, reveal and reset."""

    def __init__(self, store: PollStore, number: int, question_text: str, position: int | None = None,
                 answer: Callable[[int], object] | None = None, **params):
        """`number`: the asking chapter's (the poll's key); `position`: which question it is, as the
        students' cards count them (chapters.registry.question_position; default `number`);
        `answer(number)`: the correct answer where this page knows it (else None), marked ✓ once revealed."""
        super().__init__(**params)
        self.store, self.number, self.answer = store, number, answer
        self.chart: PollChart | None = None
        position = position or number
        label = _("Question {position} · chapter {number}").format(position=position, number=number)
        question = html.escape(_(question_text))
        self.head = pn.pane.HTML(f'<div class="plabel">{html.escape(label)}</div><p class="pq">{question}</p>', stylesheets=[BOX_CSS, POLL_CSS],
                                 sizing_mode="stretch_width", margin=(4, 0, 0, 0))
        self.status = pn.pane.HTML(status_html(number, None), stylesheets=[POLL_CSS],
                                   sizing_mode="stretch_width", margin=0)
        self.reveal_button = pn.widgets.Button(label=_("Reveal question {position}").format(position=position),
                                               color="primary",
                                               description=_("Show the class's answers on every student's card"))
        self.reset_button = pn.widgets.Button(label=_("Reset question {position}").format(position=position),
                                              color="warning")
        on_click(self.reveal_button, lambda e: self.store.reveal(self.number), say=self.say)
        on_click(self.reset_button, lambda e: self.store.reset(self.number), say=self.say)
        self.chart_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.buttons = pn.Row(self.reveal_button, self.reset_button, margin=0, visible=False)
        self.view = pn.Column(self.head, self.chart_slot, self.status, self.buttons,
                              sizing_mode="stretch_width", margin=(0, 0, 10, 0), css_classes=["poll-question"])
        self.refresh()

    def say(self, sentence: str) -> None:
        """A press of this question's buttons was dropped (intercept.clicks): said under its status line."""
        self.status.object = status_html(self.number, self.store.tally(self.number)) + said_html(sentence)

    def refresh(self) -> None:
        tally = self.store.tally(self.number)
        self.status.object = status_html(self.number, tally)
        self.reveal_button.disabled = tally is None or tally.revealed
        if tally is None:
            return
        self.buttons.visible = True
        if self.chart is None:
            self.chart = PollChart(tally.question.categories, numeric=tally.question.kind == "number", height=170)
            self.chart_slot.objects = [self.chart]
        truth = self.answer(self.number) if tally.revealed and self.answer is not None else None
        categories = tally.question.categories
        self.chart.show(tally.counts, truth=categories.index(str(truth)) if str(truth) in categories else None)

    def __panel__(self):
        return self.view


class PollView(pn.viewable.Viewer):
    """The lecturer's class poll: the question of the chapter on screen with its live histogram,
    reveal and reset; the other questions in a collapsed card (one click away, not five screens
    before the chapter); reset all."""

    def __init__(self, store: PollStore, current: int | None = None, ballot: Ballot | None = None,
                 **params):
        """`store`: the class's poll; `current`: the number of the chapter the lecturer's page shows
        (None: a page that asks nothing, such as the landing page: every question is in the card);
        `ballot`: the page's (Ballots.page_ballot), whose cards know their answers, marked on the
        histograms once revealed."""
        super().__init__(**params)
        self.store = store
        self.ballot = ballot
        answer = self.ballot.known_answer if self.ballot is not None else None
        self.questions = {p.number: QuestionPoll(store, p.number, p.chapter_class.question,
                                                 registry.question_position(p.chapter_class), answer)
                          for p in registry.chapter_pages() if p.chapter_class.question}
        if self.ballot is not None:        # the chapter's card ran its experiment: its answer is known now
            self.ballot.on_answer(lambda number: self.refresh({number}))
        self.current = current if current in self.questions else None
        self.reset_all_button = pn.widgets.Button(label=_("Reset all questions"), color="danger")
        self.said = pn.pane.HTML("", stylesheets=[POLL_CSS], sizing_mode="stretch_width", margin=0)
        on_click(self.reset_all_button, lambda e: self.store.reset_all(),
                 say=lambda sentence: setattr(self.said, "object", said_html(sentence)))
        others = [q for n, q in self.questions.items() if n != self.current]
        title = (_("Other questions ({n})") if self.current is not None else _("All {n} questions")).format(
            n=len(others))
        self.others = pn.Card(pn.FlexBox(*[pn.Column(q, width=440, margin=(0, 16, 0, 0)) for q in others],
                                         sizing_mode="stretch_width"),
                              title=title, collapsed=True, sizing_mode="stretch_width", margin=(4, 0),
                              css_classes=["poll-others"])
        self.watch = DocumentWatch(store, self.refresh)
        if served():
            pn.state.on_session_destroyed(lambda ctx: self.watch.stop())

    def refresh(self, numbers: set) -> None:
        for number, view in self.questions.items():
            if None in numbers or number in numbers:
                view.refresh()

    def __panel__(self):
        intro = pn.pane.HTML(f"<p>{html.escape(intro_text(self.store.per_address))}</p>", stylesheets=[POLL_CSS],
                             sizing_mode="stretch_width", margin=0)
        mine = [pn.Column(self.questions[self.current], max_width=640, sizing_mode="stretch_width")] \
            if self.current is not None else []
        return pn.Card(intro, *mine, self.others, self.reset_all_button, self.said, title=_("Class poll"),
                       collapsed=False, sizing_mode="stretch_width", css_classes=["class-poll"])


def intro_text(per_address: int | None) -> str:
    """What the lecturer's poll counts, in words (the page's language), with the setting that changes it."""
    if per_address is None:
        return _("Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                 "reveal the question (their latest answer until then). The histogram counts one anonymous bar "
                 "per browser.")
    return ngettext("Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                    "reveal the question (their latest answer until then). The histogram counts one anonymous "
                    "bar per browser, at most {n} browser per question from one network address; answers beyond "
                    "that are kept for their students and left out of the histogram (SPECLAB_VOTES_PER_ADDRESS "
                    "raises it).",
                    "Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                    "reveal the question (their latest answer until then). The histogram counts one anonymous "
                    "bar per browser, at most {n} browsers per question from one network address; answers beyond "
                    "that are kept for their students and left out of the histogram (SPECLAB_VOTES_PER_ADDRESS "
                    "raises it).", per_address).format(n=shown_number(per_address))


POLL_CSS = """
.pq { font-size: 1.05rem; color: #1b1b1f; margin: 2px 0; line-height: 1.3; }
.poll-status { font-size: 1rem; color: #1b1b1f; }
p { font-size: 1rem; color: #1b1b1f; margin: 2px 0; }
"""
