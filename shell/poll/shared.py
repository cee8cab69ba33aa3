"""The class poll in the class's shared store (shell.store.contract), for a class served by several processes.

`SharedPollStore` keeps `PollStore`'s rules and answers (one answer per browser, its latest until the
question is revealed; counts only, and how many were left out of them; the browsers here) but holds
the votes in the class store every serving process opens (a SQLite file, or Redis for several
machines), so a vote taken by one process counts on a lecturer's page held by another. A vote is in
the store before the page shows it counted; each change is one store operation that also announces
it: this process's listeners hear it at once, the other processes' at their next look
(shell.store.events.INTERVAL), with a burst of votes on one question heard as one change.

    poll = class_poll(store, per_address)    # a PollStore in memory, or a SharedPollStore over `store`

While the store fails (a full disk, a Redis away: StoreFault) every method does what PollStore does in
this process's memory, so pages keep opening and votes keep counting here; tallies merge those votes
with the store's last reading, one answer per voter, and a vote the store takes again drops the copy
in memory. When the store is back ("rejoin") the process writes what it kept there.
"""
from __future__ import annotations

import contextlib
import functools
import json
from typing import Any

from lab import i18n
from shell.poll.store import PollStore, Question, Tally, in_language, refusal
from shell.store.contract import ClassStore, PollState
from shell.store.events import StoreFault


def or_in_memory(method):
    """`method` on the store; on StoreFault, PollStore's method of the same name in this process's
    memory (the store says the one sentence)."""
    own = getattr(PollStore, method.__name__)

    @functools.wraps(method)
    def either(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except StoreFault:
            return own(self, *args, **kwargs)
    return either


class SharedPollStore(PollStore):
    """PollStore's methods on the class's shared store, whose salt every process hashes voters with.
    Questions (the first definition stands everywhere) and this process's pages are cached here."""

    def __init__(self, store: ClassStore, per_address: int | None = None):
        super().__init__(salt=store.salt, per_address=per_address)
        self.store = store
        self._last: dict[int, PollState] = {}       # each question as last read, for a store that fails
        self._resets: set[int | None] = set()       # resets the store missed while it failed
        store.on("poll", lambda data: self._notify(*data))    # [number, what] from another process
        store.on("rejoin", lambda data: self.rejoin())

    # --- questions and votes ---
    @or_in_memory
    def ask(self, question: Question) -> Question:
        known = self.question(question.number)
        if known is not None:
            return known
        if self.store.add_question(question.number, [question.kind, list(question.choices), list(question.bounds)]):
            with self._lock:
                self._questions[question.number] = question
            self._notify(question.number, "ask")
            return question
        return self.question(question.number)

    @or_in_memory
    def question(self, number: int) -> Question | None:
        with self._lock:
            known = self._questions.get(number)
        if known is not None:
            return known
        spec = self.store.question(number)
        if spec is None:
            return None
        kind, choices, bounds = spec
        known = Question(number, kind, tuple(choices), tuple(bounds))
        with self._lock:
            return self._questions.setdefault(number, known)

    @or_in_memory
    def vote(self, number: Any, browser: str, value: Any, address: str = "",
             language: str = i18n.DEFAULT) -> str | None:
        _ = in_language(language)
        question = None if isinstance(number, bool) or not isinstance(number, int) else self.question(number)
        if question is None:        # a crafted number, or one no page asked (repr() of an int is the int)
            return _("There is no question {number} in this lab; nothing was counted.").format(number=refusal(number))
        index, why = question.index(value, language)
        if index is None:
            return why
        voter = self.voter(browser)
        left = bool(address) and self.per_address is not None and self.answer_of(number, browser) is None \
            and not self._counts_for(number, voter, address)     # kept for the student, not in the histogram
        done = self.store.cast_vote(number, voter, index, left)
        if done == "revealed":
            return _("The class's answers to question {number} are already revealed, so a new answer is "
                     "not counted; yours stays in your card.").format(number=number)
        if done == "full":
            return _("Question {number} has all the answers the class's poll keeps; yours stays in your "
                     "card.").format(number=number)
        forget_kept(self, number, voter)        # the store holds the newer answer
        return None if done == "same" else self._notify(number, "vote")

    @or_in_memory
    def left_out(self, number: int, browser: str) -> bool:
        if PollStore.answer_of(self, number, browser) is not None:
            return PollStore.left_out(self, number, browser)     # kept in memory while the store failed
        return (self.store.answer(number, self.voter(browser)) or (0, False))[1]

    def _counts_for(self, number: int, voter: str, address: str) -> bool:
        """Whether `address` may have one more browser's vote counted on question `number` (every
        process reads the same record, in the store's shared values; noted if so)."""
        key = f"poll-address:{number}:{self.voter('address ' + address)}"
        found = self.store.get(key)
        voters = json.loads(found[1]) if found is not None else []
        if voter in voters:
            return True
        if len(voters) >= self.per_address:
            return False
        self.store.put(key, json.dumps(voters + [voter]).encode())
        return True

    def tally(self, number: int) -> Tally | None:
        """The store's answers and those kept in memory while it refused them (`merged`), once each;
        while the store fails, its last reading of the question."""
        if (question := self.question(number)) is None:
            return None
        try:
            state = self._last[number] = self.store.poll_state(number)
        except StoreFault:
            state = self._last.get(number, PollState())
        counted, left, present, revealed = merged(self, number, state)
        counts = tuple(list(counted.values()).count(i) for i in range(len(question.categories)))
        return Tally(question, counts, len(present), revealed, here=len(present & (counted.keys() | left.keys())),
                     left_out=len(left), per_address=self.per_address)

    @or_in_memory
    def answer_of(self, number: int, browser: str) -> int | None:
        if (kept := PollStore.answer_of(self, number, browser)) is not None:
            return kept                  # kept in this process's memory while the store refused it
        return (self.store.answer(number, self.voter(browser)) or (None, False))[0]

    # --- the lecturer's controls ---
    @or_in_memory
    def reveal(self, number: int) -> None:
        if self.question(number) is not None and self.store.reveal(number):
            self._notify(number, "reveal")

    def reset(self, number: int) -> None:
        self.store.drop(f"poll-address:{number}:")
        try:
            self.store.clear_votes(number)
        except StoreFault:
            self._resets.add(number)             # cleared in the store when it is back
        self._last.pop(number, None)
        PollStore.reset(self, number)            # and what this process kept

    def reset_all(self) -> None:
        self.store.drop("poll-address:")
        try:
            self.store.clear_votes(None)
        except StoreFault:
            self._resets.add(None)
        self._last.clear()
        PollStore.reset_all(self)

    # --- who is here: this process's pages, in memory too (written again when the store is back) ---
    def join(self, session_id: str, browser: str) -> None:
        with self._lock:
            self._present[session_id] = voter = self.voter(browser)
        with contextlib.suppress(StoreFault):        # said by the store; written again when it is back
            self.store.join(session_id, voter)
        self._notify(None, "presence")

    def leave(self, session_id: str) -> None:
        with self._lock:
            gone = self._present.pop(session_id, None)
        with contextlib.suppress(StoreFault):
            self.store.leave(session_id)
        if gone is not None:
            self._notify(None, "presence")

    def rejoin(self) -> None:
        """The store is back: write the questions, pages, resets, reveals and votes this process kept."""
        for number in sorted(self._resets, key=lambda n: -1 if n is None else n):
            self.store.clear_votes(number)
            self._resets.discard(number)
        with self._lock:
            questions, present, revealed = list(self._questions.values()), dict(self._present), set(self._revealed)
            kept = [(n, v, a, False) for n, votes in self._votes.items() for v, a in votes.items()] + \
                [(n, v, a, True) for n, votes in self._left.items() for v, a in votes.items()]
        for q in questions:
            self.store.add_question(q.number, [q.kind, list(q.choices), list(q.bounds)])
        for session, voter in present.items():
            self.store.join(session, voter)
        for number, voter, answer, left in kept:
            if self.store.cast_vote(number, voter, answer, left) in ("counted", "same"):
                forget_kept(self, number, voter)
        for number in revealed:
            self.store.reveal(number)
        self._notify(None, "presence")


def merged(poll: SharedPollStore, number: int, state: PollState):
    """The store's votes (`state`) merged with those `poll` kept in memory while the store refused
    them: (counted, left out, present, revealed), one answer per voter, memory's later."""
    counted = {v: a for v, a, left in state.votes if not left}
    left = {v: a for v, a, is_left in state.votes if is_left}
    with poll._lock:
        for voter, answer in poll._votes.get(number, {}).items():
            left.pop(voter, None)
            counted[voter] = answer
        for voter, answer in poll._left.get(number, {}).items():
            (counted if voter in counted else left)[voter] = answer
        return (counted, left, state.present | set(poll._present.values()),
                state.revealed or number in poll._revealed)


def forget_kept(poll: SharedPollStore, number: int | None, voter: str | None = None) -> None:
    """Drop what `poll` kept in memory (a voter's answer, a question's, or all) once the store holds
    the newer state."""
    with poll._lock:
        for kept in (poll._votes, poll._left):
            for n in ([number] if number is not None else list(kept)):
                if voter is None:
                    kept.pop(n, None)
                else:
                    kept.get(n, {}).pop(voter, None)
        if voter is None and number is None:
            poll._revealed.clear()
        elif voter is None:
            poll._revealed.discard(number)


def class_poll(store: ClassStore | None, per_address: int | None = None) -> PollStore:
    """The class's poll (pages reach it through shell.poll.answers): in this process's memory when it serves
    the class alone (`store` None), else in the class's shared store (shell.store.shared)."""
    return PollStore(per_address=per_address) if store is None else SharedPollStore(store, per_address=per_address)
