"""The class poll: every locked "Pause & predict" answer is an anonymous vote; the lecturer sees each
question's histogram live, and can reveal it to every student's card and the tour, or reset it.

    POLL.ask(Question(10, "choice", ("faster", "slower")))   # a card defines its question (once)
    POLL.vote(10, browser_id, "slower")      # None, or one sentence when the vote cannot count
    POLL.tally(10).counts                    # [0, 1]: one vote per browser, its latest answer
    POLL.reveal(10); POLL.reset(10); POLL.reset_all()
    unsubscribe = POLL.subscribe(lambda number, what: ...)   # what: "ask" | "vote" | "reveal" | "reset"

`PollStore` is plain Python, one object per server process, guarded by one lock. Votes are keyed by a
salted hash of the browser's cookie id (shell.sessions.browser_id), which nothing reads back: a tally
holds counts only. Pages never touch the store from another page's document: `DocumentWatch` carries
a change into each page's own document as a next-tick callback (Bokeh's thread-safe way in), several
changes in one callback, so 40 votes in a second cost the lecturer's page a few updates.

Scaling beyond one server process. Today the store lives inside the one `panel serve` process
(`--num-procs 1`), which is enough for a lecture hall: 40 students' votes are a few hundred bytes.
With several processes (`--num-procs N`, or several servers behind a load balancer) each process
would keep its `PollStore` as a local copy and share it through an existing store, Redis: a vote
becomes `HSET poll:<question> <voter hash> <answer>` (one vote per browser per question, for free);
reveal becomes `SADD poll:revealed <question>`, reset `DEL poll:<question>` with
`SREM poll:revealed <question>` (in one MULTI); each is followed by `PUBLISH poll <question>`. The
voter hash's salt becomes one secret the processes share (from the environment, like the token).
Every process subscribes to the `poll` channel (redis-py's `pubsub()` on a thread of its own) and,
on a message, reads that question's hash (`HVALS`) into its local copy and calls its listeners as it
does now, so pages are still updated through their own documents. Connected browsers become a sorted
set keyed by voter hash with a last-seen time. Validation stays where it is, in the process that
receives the vote, before anything is written. Nothing of this is built: the listener mechanism here
is the seam where it would plug in.
"""
from __future__ import annotations

import hashlib
import html
import logging
import math
import secrets
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import panel as pn
from panel.io.state import set_curdoc

from chapters import registry
from shell.sessions import browser_id
from uikit import predict
from uikit.pacing import served
from uikit.pollchart import PollChart
from uikit.styles import BOX_CSS

log = logging.getLogger(__name__)

MAX_TEXT = 200          # characters in a choice answer
MAX_CHOICES = 12
MAX_NUMBERS = 101       # a numeric question spans at most this many whole numbers
MAX_QUESTION = 99


def refusal(value: Any) -> str:
    """A crafted or broken answer as a short, safe description for a sentence."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


@dataclass(frozen=True)
class Question:
    """What a vote for question `number` may be: one of `choices`, or a whole number in `bounds`."""
    number: int
    kind: str                           # "choice" | "number"
    choices: tuple[str, ...] = ()
    bounds: tuple[int, int] = (0, 20)

    def __post_init__(self):
        if not (isinstance(self.number, int) and 1 <= self.number <= MAX_QUESTION):
            raise ValueError(f"a question's number is 1–{MAX_QUESTION}, not {self.number!r}")
        if self.kind == "choice":
            if not 1 <= len(self.choices) <= MAX_CHOICES or any(
                    not isinstance(c, str) or not 0 < len(c) <= MAX_TEXT for c in self.choices):
                raise ValueError(f"question {self.number}: 1–{MAX_CHOICES} choices of 1–{MAX_TEXT} characters")
        elif self.kind == "number":
            lo, hi = self.bounds
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= hi - lo < MAX_NUMBERS):
                raise ValueError(f"question {self.number}: bounds of at most {MAX_NUMBERS} whole numbers")
        else:
            raise ValueError(f"question {self.number}: kind is 'choice' or 'number', not {self.kind!r}")

    @property
    def categories(self) -> list[str]:
        """The histogram's bars: the choices, or every whole number in bounds."""
        if self.kind == "choice":
            return list(self.choices)
        return [str(n) for n in range(self.bounds[0], self.bounds[1] + 1)]

    def index(self, value: Any) -> tuple[int | None, str]:
        """The bar `value` counts in, or (None, the sentence that says why it cannot count)."""
        if self.kind == "choice":
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                return None, (f"An answer to question {self.number} is one of its choices (at most {MAX_TEXT} "
                              "characters); this one was not counted — press one of the buttons.")
            if value not in self.choices:
                return None, (f"{refusal(value)} is not one of question {self.number}'s choices, so it was not "
                              "counted; press one of the buttons.")
            return self.choices.index(value), ""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            return None, (f"Question {self.number} takes a whole number, not {refusal(value)}; type one and "
                          "lock it in again.")
        lo, hi = self.bounds
        if not lo <= int(value) <= hi:
            return None, (f"Question {self.number} takes a whole number from {lo} to {hi}, not {refusal(value)}; "
                          "type one in that range and lock it in again.")
        return int(value) - lo, ""


@dataclass(frozen=True)
class Tally:
    """One question's poll as anyone may see it: counts only, never who voted."""
    question: Question
    counts: tuple[int, ...]
    connected: int          # browsers with a question page open now
    revealed: bool

    @property
    def answered(self) -> int:
        return sum(self.counts)


class PollStore:
    """Votes per question, one per browser (keyed by a salted hash), and which questions are revealed.

    Thread-safe: every method takes one lock; listeners are called after it is released, on the
    caller's thread, with (question number or None for all, what happened).
    """

    def __init__(self, salt: bytes | None = None):
        self._salt = salt if salt is not None else secrets.token_bytes(16)
        self._lock = threading.Lock()
        self._questions: dict[int, Question] = {}
        self._votes: dict[int, dict[str, int]] = {}
        self._revealed: set[int] = set()
        self._present: dict[str, str] = {}       # open session id -> voter hash
        self._listeners: list[Callable[[int | None, str], None]] = []

    def _voter(self, browser: str) -> str:
        return hashlib.blake2b(str(browser).encode(), key=self._salt, digest_size=12).hexdigest()

    # --- questions and votes ---
    def ask(self, question: Question) -> Question:
        """Define a question (the first definition of its number stands); returns the one in force."""
        with self._lock:
            known = self._questions.setdefault(question.number, question)
            new = known is question
        if new:
            self._notify(question.number, "ask")
        return known

    def question(self, number: int) -> Question | None:
        with self._lock:
            return self._questions.get(number)

    def vote(self, number: Any, browser: str, value: Any) -> str | None:
        """Count `browser`'s answer to question `number` (replacing its earlier one); None when it
        counts, else one sentence saying why nothing changed."""
        if isinstance(number, bool) or not isinstance(number, int):
            return f"There is no question {refusal(number)} in this lab; nothing was counted."
        with self._lock:
            question = self._questions.get(number)
            if question is None:
                return f"There is no question {number} in this lab; nothing was counted."
            index, why = question.index(value)
            if index is None:
                return why
            votes = self._votes.setdefault(number, {})
            voter = self._voter(browser)
            if number in self._revealed:
                if votes.get(voter) == index:
                    return None             # the same answer again (a page reload): already counted
                return (f"The class's answers to question {number} are already revealed, so a new answer "
                        "is not counted; yours stays in your card.")
            if votes.get(voter) == index:
                return None
            votes[voter] = index
        self._notify(number, "vote")
        return None

    def tally(self, number: int) -> Tally | None:
        with self._lock:
            question = self._questions.get(number)
            if question is None:
                return None
            counts = [0] * len(question.categories)
            for index in self._votes.get(number, {}).values():
                counts[index] += 1
            return Tally(question, tuple(counts), len(set(self._present.values())), number in self._revealed)

    def answer_of(self, number: int, browser: str) -> int | None:
        """The bar `browser`'s vote counts in (for its own card only)."""
        with self._lock:
            return self._votes.get(number, {}).get(self._voter(browser))

    # --- the lecturer's controls ---
    def reveal(self, number: int) -> None:
        with self._lock:
            if number not in self._questions or number in self._revealed:
                return
            self._revealed.add(number)
        self._notify(number, "reveal")

    def reset(self, number: int) -> None:
        """Forget question `number`'s votes and hide it again."""
        with self._lock:
            self._votes.pop(number, None)
            self._revealed.discard(number)
        self._notify(number, "reset")

    def reset_all(self) -> None:
        with self._lock:
            self._votes.clear()
            self._revealed.clear()
        self._notify(None, "reset")

    # --- who is here ---
    def join(self, session_id: str, browser: str) -> None:
        with self._lock:
            self._present[session_id] = self._voter(browser)
        self._notify(None, "presence")

    def leave(self, session_id: str) -> None:
        with self._lock:
            gone = self._present.pop(session_id, None)
        if gone is not None:
            self._notify(None, "presence")

    # --- listeners ---
    def subscribe(self, listener: Callable[[int | None, str], None]) -> Callable[[], None]:
        """Call `listener(number, what)` after every change; returns the function that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe():
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def _notify(self, number: int | None, what: str) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(number, what)
            except Exception:     # one broken page must not stop the others' updates
                log.exception("a poll listener failed")


POLL = PollStore()


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

    def __init__(self, store: PollStore, browser: str, session_id: str | None = None):
        self.store, self._browser, self.session_id = store, browser, session_id
        self._watches: list[DocumentWatch] = []
        if session_id is not None:
            store.join(session_id, browser)

    def ask(self, number: int, kind: str, choices=(), bounds=(0, 20)) -> None:
        self.store.ask(Question(number, kind, tuple(choices or ()), tuple(bounds)))

    def vote(self, number: int, value) -> str | None:
        return self.store.vote(number, self._browser, value)

    def tally(self, number: int) -> Tally | None:
        return self.store.tally(number)

    def mine(self, number: int) -> int | None:
        return self.store.answer_of(number, self._browser)

    def watch(self, number: int, fn: Callable[[], None], live: Callable[[], bool]) -> None:
        """`fn()` in this page when question `number` is revealed or reset, and on every vote while
        `live()` (a revealed card, the tour on the projector)."""
        def wants(n, what):
            return (n is None or n == number) and (what in ("reveal", "reset", "ask") or live())
        self._watches.append(DocumentWatch(self.store, lambda numbers: fn(), wants))

    def on_projector(self) -> None:
        """This page is the tour on the projector: not counted among the browsers that may answer."""
        if self.session_id is not None:
            self.store.leave(self.session_id)

    def close(self) -> None:
        for w in self._watches:
            w.stop()
        if self.session_id is not None:
            self.store.leave(self.session_id)


_BALLOTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def session_ballot() -> Ballot | None:
    """This page's ballot (built once per served page), or None outside a served page."""
    if not served():
        return None
    doc = pn.state.curdoc
    ballot = _BALLOTS.get(doc)
    if ballot is None:
        ballot = _BALLOTS[doc] = Ballot(POLL, browser_id(), doc.session_context.id)
        pn.state.on_session_destroyed(lambda ctx: ballot.close())
    return ballot


predict.use_poll(session_ballot)


# --- the lecturer's view ---------------------------------------------------------------------------
def status_html(number: int, tally: Tally | None) -> str:
    """The line under a question's histogram (the bench reads its count: data-q, 'N of M')."""
    if tally is None:
        text = "No one has opened this question yet."
    else:
        shown = " · revealed to the class" if tally.revealed else ""
        text = (f"{tally.answered} of {tally.connected} browser(s) on a question page have answered"
                f"{shown}.")
    return f'<div class="poll-status" data-q="{number}" role="status">{html.escape(text)}</div>'


class QuestionPoll(pn.viewable.Viewer):
    """One question in the lecturer's view: its histogram, who answered, reveal and reset."""

    def __init__(self, store: PollStore, number: int, question_text: str, **params):
        super().__init__(**params)
        self.store, self.number = store, number
        self.chart: PollChart | None = None
        self.head = pn.pane.HTML(f'<div class="plabel">Question {number}</div><p class="pq">'
                                 f'{html.escape(question_text)}</p>', stylesheets=[BOX_CSS, POLL_CSS],
                                 sizing_mode="stretch_width", margin=(4, 0, 0, 0))
        self.status = pn.pane.HTML(status_html(number, None), stylesheets=[POLL_CSS],
                                   sizing_mode="stretch_width", margin=0)
        self.reveal_button = pn.widgets.Button(label=f"Reveal question {number}", color="primary",
                                               description="Show the class's answers on every student's card")
        self.reset_button = pn.widgets.Button(label=f"Reset question {number}", color="warning")
        self.reveal_button.on_click(lambda e: self.store.reveal(self.number))
        self.reset_button.on_click(lambda e: self.store.reset(self.number))
        self.chart_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.buttons = pn.Row(self.reveal_button, self.reset_button, margin=0, visible=False)
        self.view = pn.Column(self.head, self.chart_slot, self.status, self.buttons,
                              sizing_mode="stretch_width", margin=(0, 0, 10, 0), css_classes=["poll-question"])
        self.refresh()

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
        self.chart.show(tally.counts)

    def __panel__(self):
        return self.view


class PollView(pn.viewable.Viewer):
    """The lecturer's class poll: every question's live histogram, reveal and reset; reset all."""

    def __init__(self, store: PollStore = POLL, **params):
        super().__init__(**params)
        self.store = store
        self.questions = {p.number: QuestionPoll(store, p.number, p.chapter_class.question)
                          for p in registry.chapter_pages() if p.chapter_class.question}
        self.reset_all_button = pn.widgets.Button(label="Reset all questions", color="danger")
        self.reset_all_button.on_click(lambda e: self.store.reset_all())
        self.watch = DocumentWatch(store, self.refresh)
        if served():
            pn.state.on_session_destroyed(lambda ctx: self.watch.stop())

    def refresh(self, numbers: set) -> None:
        for number, view in self.questions.items():
            if None in numbers or number in numbers:
                view.refresh()

    def __panel__(self):
        intro = pn.pane.HTML("<p>Each locked answer is one anonymous vote per browser (its latest answer "
                             "until you reveal the question).</p>", stylesheets=[POLL_CSS],
                             sizing_mode="stretch_width", margin=0)
        grid = pn.FlexBox(*[pn.Column(q, width=440, margin=(0, 16, 0, 0)) for q in self.questions.values()],
                          sizing_mode="stretch_width")
        return pn.Card(intro, self.reset_all_button, grid, title="Class poll",
                       collapsed=False, sizing_mode="stretch_width", css_classes=["class-poll"])


POLL_CSS = """
.pq { font-size: 1.05rem; color: #1b1b1f; margin: 2px 0; line-height: 1.3; }
.poll-status { font-size: 1rem; color: #1b1b1f; }
p { font-size: 1rem; color: #1b1b1f; margin: 2px 0; }
"""
