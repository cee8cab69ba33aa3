"""The class poll's store: the questions, each browser's anonymous answer, which are revealed.

    poll = PollStore()
    poll.ask(Question(10, "choice", ("faster", "slower")))   # a card defines its question (once)
    poll.vote(10, browser_id, "slower")      # None (kept), or one sentence when the answer is refused
    poll.vote(10, browser_id, "x", language="es")   # … that sentence in the voting page's language
    poll.tally(10).counts                    # [0, 1]: one bar per counted browser, its latest answer
    poll.reveal(10); poll.reset(10); poll.reset_all()
    unsubscribe = poll.subscribe(lambda number, what: ...)   # what: "ask" | "vote" | "reveal" | "reset"

`PollStore` is plain Python (no Panel), one object per server process, guarded by one lock. Votes
are keyed by a salted hash of the browser's identity (shell.room.sessions.browser_id: an id this server
signed, limited per client address), which nothing reads back: a tally holds counts only. Per
question, the votes of at most `per_address` browsers count from one client address, so a script
minting browser ids on one machine is that many votes, however long it runs. An answer beyond that
limit (students sharing one computer, or a class behind one NAT address) is still the student's:
kept under their browser (`answer_of`, their card's verdict after the reveal) but left out of the
histogram, and the tally says how many were left out (`Tally.left_out`). Pages reach it through
shell.poll.answers (their ballots and the lecturer's view). A refused answer's sentence is in the
language the voting page names (`language`, a code of lab.i18n; English by default); the
poll's keys, its choices, stay English whatever the page's language.

The class's poll (its class state's `poll`, shell.poll.shared.class_poll) is a `PollStore` when one
process serves the class, and with several (`panel serve --num-procs N`, or servers sharing
`SPECLAB_STORE`) a `SharedPollStore` with these rules and methods on the class's one SQLite file
(shell.store.shared), which every process opens: a vote taken by one process counts on a lecturer's page
held by another. Validation stays in the process that receives the vote.
"""
from __future__ import annotations

import functools
import hashlib
import math
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Callable

from lab import i18n
from shell.store.listeners import Listeners


MAX_TEXT = 200          # characters in a choice answer
MAX_CHOICES = 12
MAX_NUMBERS = 101       # a numeric question spans at most this many whole numbers
MAX_QUESTION = 99


def in_language(language: str = i18n.DEFAULT):
    """The gettext of `language` (bound here, as `_`: the poll is plain Python, its pages' language
    is given)."""
    return functools.partial(i18n.translate, language)


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

    def index(self, value: Any, language: str = i18n.DEFAULT) -> tuple[int | None, str]:
        """The bar `value` counts in, or (None, the sentence in `language` that says why it cannot count)."""
        _ = in_language(language)
        if self.kind == "choice":
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                return None, _("An answer to question {number} is one of its choices (at most {limit} characters); "
                               "this one was not counted — press one of the buttons.").format(
                    number=self.number, limit=MAX_TEXT)
            if value not in self.choices:
                return None, _("{answer} is not one of question {number}'s choices, so it was not counted; press "
                               "one of the buttons.").format(answer=refusal(value), number=self.number)
            return self.choices.index(value), ""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value != int(value):
            return None, _("Question {number} takes a whole number, not {answer}; type one and lock it in "
                           "again.").format(number=self.number, answer=refusal(value))
        lo, hi = self.bounds
        if not lo <= int(value) <= hi:
            return None, _("Question {number} takes a whole number from {low} to {high}, not {answer}; type one in "
                           "that range and lock it in again.").format(number=self.number, low=lo, high=hi,
                                                                       answer=refusal(value))
        return int(value) - lo, ""


@dataclass(frozen=True)
class Tally:
    """One question's poll as anyone may see it: counts only, never who voted."""
    question: Question
    counts: tuple[int, ...]
    connected: int          # browsers with a question page open now
    revealed: bool
    here: int = 0           # of the `connected` browsers, those that have answered (never more)
    left_out: int = 0       # answers kept for their students but not in the histogram (per-address limit)
    per_address: int | None = None   # the limit: answers counted per question from one network address

    @property
    def answered(self) -> int:
        """Every answer, from browsers here or gone since they answered: those in the histogram and
        those left out of it."""
        return sum(self.counts) + self.left_out

    @property
    def gone(self) -> int:
        """Answers from browsers that have since closed every question page."""
        return self.answered - self.here

    def summary(self, left_out: bool = True) -> str:
        """Who has answered, in words, the same on students' cards and the lecturer's page: the
        browsers here that answered, out of the browsers here (so never more than all of them), then
        the answers of browsers that have left, which the histogram still counts, and (`left_out`)
        how many answers the histogram leaves out."""
        if self.connected == 0:
            text = "No browser has a question page open now"
        else:
            text = (f"{self.here} of {self.connected} {'browser' if self.connected == 1 else 'browsers'} "
                    f"here {'has' if self.here == 1 else 'have'} answered")
        if self.gone:
            text += (f" · {'1 answer' if self.gone == 1 else f'{self.gone} answers'} from "
                     f"{'a browser that has' if self.gone == 1 else 'browsers that have'} left")
        if self.left_out and left_out:
            text += (f" · {self.left_out} not in the histogram (it counts {self.per_address} per network "
                     "address)")
        return text



class PollStore:
    """Answers per question, one per browser (keyed by a salted hash): those counted in the histogram
    (`per_address` browsers per network address) and those kept but left out; which are revealed.

    Thread-safe: every method takes one lock; listeners are called after it is released, on the
    caller's thread, with (question number or None for all, what happened).
    """

    def __init__(self, salt: bytes | None = None, per_address: int | None = None):
        """`per_address`: how many browsers' votes one client address may have counted per question
        (None: no limit), so a script minting browser ids on one machine is a few votes at most."""
        self._salt = salt if salt is not None else secrets.token_bytes(16)
        self.per_address = per_address
        self._by_address: dict[tuple[int, str], set[str]] = {}   # (question, address hash) → its voters
        self._lock = threading.Lock()
        self._questions: dict[int, Question] = {}
        self._votes: dict[int, dict[str, int]] = {}     # question → voter → answer, in the histogram
        self._left: dict[int, dict[str, int]] = {}      # question → voter → answer, kept, not counted
        self._revealed: set[int] = set()
        self._present: dict[str, str] = {}       # open session id -> voter hash
        self._listeners = Listeners("poll")

    def voter(self, browser: str) -> str:
        """The anonymous name a browser's votes are kept under: a hash salted per server run, so neither
        the store nor a tally holds the browser's id."""
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

    def vote(self, number: Any, browser: str, value: Any, address: str = "",
             language: str = i18n.DEFAULT) -> str | None:
        """Keep `browser`'s answer to question `number` (replacing its earlier one); None when it is
        kept, else one sentence (in `language`, the voting page's) saying why nothing changed.
        `address`: the client address it came from ('' unknown), of which `per_address` browsers count
        in the histogram per question; a browser beyond them keeps its answer, left out of the
        histogram (`left_out`)."""
        _ = in_language(language)
        if isinstance(number, bool) or not isinstance(number, int):
            return _("There is no question {number} in this lab; nothing was counted.").format(number=refusal(number))
        with self._lock:
            question = self._questions.get(number)
            if question is None:
                return _("There is no question {number} in this lab; nothing was counted.").format(number=number)
            index, why = question.index(value, language)
            if index is None:
                return why
            votes = self._votes.setdefault(number, {})
            left = self._left.setdefault(number, {})
            voter = self.voter(browser)
            had = votes.get(voter, left.get(voter))
            if number in self._revealed:
                if had == index:
                    return None             # the same answer again (a page reload): already kept
                return _("The class's answers to question {number} are already revealed, so a new answer is "
                         "not counted; yours stays in your card.").format(number=number)
            if had == index:
                return None
            if voter in left or (voter not in votes and not self._room(number, voter, address)):
                left[voter] = index         # the student's answer, not in the histogram
            else:
                votes[voter] = index
        self._notify(number, "vote")
        return None

    def _room(self, number: int, voter: str, address: str) -> bool:
        """Whether `address` may have `voter`'s answer counted in question `number`'s histogram (noted
        if so); called under the lock."""
        if not address or self.per_address is None:
            return True
        mine = self._by_address.setdefault((number, self.voter("address " + address)), set())
        if voter not in mine and len(mine) >= self.per_address:
            return False
        mine.add(voter)
        return True

    def left_out(self, number: int, browser: str) -> bool:
        """Whether `browser`'s answer to `number` is kept but not in the histogram."""
        with self._lock:
            return self.voter(browser) in self._left.get(number, {})

    def tally(self, number: int) -> Tally | None:
        with self._lock:
            question = self._questions.get(number)
            if question is None:
                return None
            counts = [0] * len(question.categories)
            votes = self._votes.get(number, {})
            for index in votes.values():
                counts[index] += 1
            left = self._left.get(number, {})
            present = set(self._present.values())
            return Tally(question, tuple(counts), len(present), number in self._revealed,
                         here=len(present.intersection(votes)) + len(present.intersection(left)),
                         left_out=len(left), per_address=self.per_address)

    def answer_of(self, number: int, browser: str) -> int | None:
        """The bar of `browser`'s answer, counted or left out (for its own card only)."""
        voter = self.voter(browser)
        with self._lock:
            return self._votes.get(number, {}).get(voter, self._left.get(number, {}).get(voter))

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
            self._left.pop(number, None)
            self._revealed.discard(number)
            self._by_address = {k: v for k, v in self._by_address.items() if k[0] != number}
        self._notify(number, "reset")

    def reset_all(self) -> None:
        with self._lock:
            self._votes.clear()
            self._left.clear()
            self._revealed.clear()
            self._by_address.clear()
        self._notify(None, "reset")

    # --- who is here ---
    def join(self, session_id: str, browser: str) -> None:
        with self._lock:
            self._present[session_id] = self.voter(browser)
        self._notify(None, "presence")

    def leave(self, session_id: str) -> None:
        with self._lock:
            gone = self._present.pop(session_id, None)
        if gone is not None:
            self._notify(None, "presence")

    # --- listeners ---
    def subscribe(self, listener: Callable[[int | None, str], None]) -> Callable[[], None]:
        """Call `listener(number, what)` after every change; returns the function that stops it."""
        return self._listeners.subscribe(listener)

    def _notify(self, number: int | None, what: str) -> None:
        self._listeners.notify(number, what)

