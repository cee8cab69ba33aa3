"""The class poll in the class's shared store (shell.store.shared), for a class served by several processes.

`SharedPollStore` keeps `PollStore`'s rules and answers (one answer per browser, its latest until the
question is revealed; counts only, and how many were left out of them; the browsers here) but holds the votes in the SQLite file every
serving process opens, so a vote taken by one process counts on a lecturer's page held by another.
Each change is one short write transaction that also records an event; this process's listeners
hear it at once, the other processes' at their next look at the file (shell.store.shared.INTERVAL), with
a burst of votes on one question heard as one change.

    poll = class_poll(store, per_address)    # a PollStore in memory, or a SharedPollStore over `store`

Votes this process kept in memory while the store refused them (shell.lecturer.classwide) count in its tallies,
merged with the store's: one answer per voter, and a vote the store takes again drops the copy in memory.
"""
from __future__ import annotations

import json
import time
from typing import Any

from shell.poll.store import PollStore, Question, Tally, refusal
from shell.store.shared import GONE_AFTER, ClassStore

LEFT = "left:"          # a voter's key prefix in the votes table: kept for the student, not in the histogram
OWN = "CASE WHEN substr(voter, 1, 5) = 'left:' THEN substr(voter, 6) ELSE voter END"    # the voter either way


class SharedPollStore(PollStore):
    """PollStore's methods on the class's shared file; the voters' salt is the file's, so every
    process hashes a browser the same way. Questions are cached per process (the first definition
    of a number stands everywhere, so a cached one never changes)."""

    def __init__(self, store: ClassStore, per_address: int | None = None):
        super().__init__(salt=store.salt, per_address=per_address)
        self.store = store
        store.on("poll", lambda data: self._notify(*data))    # [number, what] from another process

    def _changed(self, db, number: int | None, what: str) -> None:
        self.store.emit(db, "poll", [number, what])

    # --- questions and votes ---
    def ask(self, question: Question) -> Question:
        known = self.question(question.number)
        if known is not None:
            return known
        spec = json.dumps([question.kind, list(question.choices), list(question.bounds)])
        with self.store.write() as db:
            new = db.execute("INSERT OR IGNORE INTO questions VALUES (?, ?)", (question.number, spec)).rowcount == 1
            if new:
                self._changed(db, question.number, "ask")
        if new:
            with self._lock:
                self._questions[question.number] = question
            self._notify(question.number, "ask")
            return question
        return self.question(question.number)

    def question(self, number: int) -> Question | None:
        with self._lock:
            known = self._questions.get(number)
        if known is not None:
            return known
        rows = self.store.read("SELECT spec FROM questions WHERE number = ?", (number,))
        if not rows:
            return None
        kind, choices, bounds = json.loads(rows[0][0])
        known = Question(number, kind, tuple(choices), tuple(bounds))
        with self._lock:
            return self._questions.setdefault(number, known)

    def vote(self, number: Any, browser: str, value: Any, address: str = "") -> str | None:
        if isinstance(number, bool) or not isinstance(number, int):
            return f"There is no question {refusal(number)} in this lab; nothing was counted."
        question = self.question(number)
        if question is None:
            return f"There is no question {number} in this lab; nothing was counted."
        index, why = question.index(value)
        if index is None:
            return why
        voter = self.voter(browser)
        key = voter
        if address and self.per_address is not None and self.answer_of(number, browser) is None \
                and not self._counts_for(number, voter, address):
            key = LEFT + voter          # kept as the student's answer, left out of the histogram
        with self.store.write() as db:
            had = db.execute("SELECT voter, answer FROM votes WHERE number = ? AND voter IN (?, ?)",
                             (number, voter, LEFT + voter)).fetchone()
            if had is not None and had[1] == index:
                forget_kept(self, number, voter)
                return None              # the same answer again (a page reload): already kept
            if db.execute("SELECT 1 FROM revealed WHERE number = ?", (number,)).fetchone():
                return (f"The class's answers to question {number} are already revealed, so a new answer "
                        "is not counted; yours stays in your card.")
            db.execute("INSERT OR REPLACE INTO votes VALUES (?, ?, ?)", (number, had[0] if had else key, index))
            self._changed(db, number, "vote")
        forget_kept(self, number, voter)        # the store holds the newer answer
        self._notify(number, "vote")
        return None

    def left_out(self, number: int, browser: str) -> bool:
        if PollStore.answer_of(self, number, browser) is not None:
            return PollStore.left_out(self, number, browser)     # kept in memory on a full store
        return bool(self.store.read("SELECT 1 FROM votes WHERE number = ? AND voter = ?",
                                    (number, LEFT + self.voter(browser))))

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
        """The store's answers and those kept in memory while it refused them (`merged`), once each."""
        if (question := self.question(number)) is None:
            return None
        alive = time.time() - GONE_AFTER
        here = "FROM presence p JOIN procs r ON r.proc = p.proc WHERE r.seen >= ?"
        with self.store.snapshot() as db:
            rows = db.execute("SELECT voter, answer FROM votes WHERE number = ?", (number,)).fetchall()
            present = {v for (v,) in db.execute(f"SELECT DISTINCT p.voter {here}", (alive,))}
            revealed = db.execute("SELECT 1 FROM revealed WHERE number = ?", (number,)).fetchone() is not None
        counted, left, present, revealed = merged(self, number, rows, present, revealed)
        counts = tuple(list(counted.values()).count(i) for i in range(len(question.categories)))
        return Tally(question, counts, len(present), revealed, here=len(present & (counted.keys() | left.keys())),
                     left_out=len(left), per_address=self.per_address)

    def answer_of(self, number: int, browser: str) -> int | None:
        voter = self.voter(browser)
        if (kept := PollStore.answer_of(self, number, browser)) is not None:
            return kept                  # kept in this process's memory while the store refused it
        rows = self.store.read("SELECT answer FROM votes WHERE number = ? AND voter IN (?, ?)",
                               (number, voter, LEFT + voter))
        return rows[0][0] if rows else None

    # --- the lecturer's controls ---
    def reveal(self, number: int) -> None:
        if self.question(number) is None:
            return
        with self.store.write() as db:
            new = db.execute("INSERT OR IGNORE INTO revealed VALUES (?)", (number,)).rowcount == 1
            if new:
                self._changed(db, number, "reveal")
        if new:
            self._notify(number, "reveal")

    def reset(self, number: int) -> None:
        self.store.drop(f"poll-address:{number}:")
        with self.store.write() as db:
            db.execute("DELETE FROM votes WHERE number = ?", (number,))
            db.execute("DELETE FROM revealed WHERE number = ?", (number,))
            self._changed(db, number, "reset")
        forget_kept(self, number)
        self._notify(number, "reset")

    def reset_all(self) -> None:
        self.store.drop("poll-address:")
        with self.store.write() as db:
            db.execute("DELETE FROM votes")
            db.execute("DELETE FROM revealed")
            self._changed(db, None, "reset")
        forget_kept(self, None)
        self._notify(None, "reset")

    # --- who is here ---
    def join(self, session_id: str, browser: str) -> None:
        with self.store.write() as db:
            db.execute("INSERT OR REPLACE INTO presence VALUES (?, ?, ?)",
                       (self.store.proc, session_id, self.voter(browser)))
            self._changed(db, None, "presence")
        self._notify(None, "presence")

    def leave(self, session_id: str) -> None:
        with self.store.write() as db:
            gone = db.execute("DELETE FROM presence WHERE proc = ? AND session = ?",
                              (self.store.proc, session_id)).rowcount
            if gone:
                self._changed(db, None, "presence")
        if gone:
            self._notify(None, "presence")


def merged(poll: SharedPollStore, number: int, rows, present: set, revealed: bool):
    """The store's votes (`rows`: voter, answer) merged with those `poll` kept in memory while the
    store refused them: (counted, left out, present, revealed), one answer per voter, memory's later."""
    counted = {v: a for v, a in rows if not v.startswith(LEFT)}
    left = {v[len(LEFT):]: a for v, a in rows if v.startswith(LEFT)}
    with poll._lock:
        for voter, answer in poll._votes.get(number, {}).items():
            left.pop(voter, None)
            counted[voter] = answer
        for voter, answer in poll._left.get(number, {}).items():
            (counted if voter in counted else left)[voter] = answer
        return counted, left, present | set(poll._present.values()), revealed or number in poll._revealed


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
