"""The class's poll, the students' snapshots and the shared values as rows of the SQLite file's tables
(shell.store.sqlite.store makes them): the ClassStore operations (shell.store.contract) in SQL, each
write one transaction that also records its event for the other processes.

A voter's answer kept for the student but left out of the histogram (the per-address limit) is the
row of `left:` + the voter.
"""
from __future__ import annotations

import json
import time

from shell.store import contract
from shell.store.contract import GONE_AFTER, PollState

LEFT = "left:"          # a voter's key prefix in the votes table: kept for the student, not in the histogram


class SQLitePoll:
    """The poll's questions, votes, reveals and presence, and the browsers' snapshots, in SQL."""

    # --- questions and votes ---
    def add_question(self, number: int, spec: list) -> bool:
        with self.write() as db:
            new = db.execute("INSERT OR IGNORE INTO questions VALUES (?, ?)", (number, json.dumps(spec))).rowcount == 1
            if new:
                self.emit(db, "poll", [number, "ask"])
        return new

    def question(self, number: int) -> list | None:
        rows = self.read("SELECT spec FROM questions WHERE number = ?", (number,))
        return json.loads(rows[0][0]) if rows else None

    def cast_vote(self, number: int, voter: str, answer: int, left: bool = False) -> str:
        with self.write() as db:
            had = db.execute("SELECT voter, answer FROM votes WHERE number = ? AND voter IN (?, ?)",
                             (number, voter, LEFT + voter)).fetchone()
            if had is not None and had[1] == answer:
                return "same"
            if db.execute("SELECT 1 FROM revealed WHERE number = ?", (number,)).fetchone():
                return "revealed"
            if had is None and db.execute("SELECT COUNT(*) FROM votes WHERE number = ?",
                                          (number,)).fetchone()[0] >= contract.MAX_VOTERS:
                return "full"
            key = had[0] if had is not None else LEFT + voter if left else voter
            db.execute("INSERT OR REPLACE INTO votes VALUES (?, ?, ?)", (number, key, answer))
            self.emit(db, "poll", [number, "vote"])
        return "counted"

    def answer(self, number: int, voter: str) -> tuple[int, bool] | None:
        rows = self.read("SELECT voter, answer FROM votes WHERE number = ? AND voter IN (?, ?)",
                         (number, voter, LEFT + voter))
        return (rows[0][1], rows[0][0].startswith(LEFT)) if rows else None

    def poll_state(self, number: int) -> PollState:
        with self.reading() as db:
            rows = db.execute("SELECT voter, answer FROM votes WHERE number = ?", (number,)).fetchall()
            present = {v for (v,) in db.execute("SELECT DISTINCT p.voter FROM presence p JOIN procs r ON "
                                                 "r.proc = p.proc WHERE r.seen >= ?", (time.time() - GONE_AFTER,))}
            revealed = db.execute("SELECT 1 FROM revealed WHERE number = ?", (number,)).fetchone() is not None
        votes = [(v[len(LEFT):], a, True) if v.startswith(LEFT) else (v, a, False) for v, a in rows]
        return PollState(votes, present, revealed)

    # --- the lecturer's controls ---
    def reveal(self, number: int) -> bool:
        with self.write() as db:
            new = db.execute("INSERT OR IGNORE INTO revealed VALUES (?)", (number,)).rowcount == 1
            if new:
                self.emit(db, "poll", [number, "reveal"])
        return new

    def clear_votes(self, number: int | None) -> None:
        with self.write() as db:
            if number is None:
                db.execute("DELETE FROM votes")
                db.execute("DELETE FROM revealed")
            else:
                db.execute("DELETE FROM votes WHERE number = ?", (number,))
                db.execute("DELETE FROM revealed WHERE number = ?", (number,))
            self.emit(db, "poll", [number, "reset"])

    # --- who is here ---
    def join(self, session: str, voter: str) -> None:
        with self.write() as db:
            db.execute("INSERT OR REPLACE INTO presence VALUES (?, ?, ?)", (self.proc, session, voter))
            self.emit(db, "poll", [None, "presence"])

    def leave(self, session: str) -> bool:
        with self.write() as db:
            gone = db.execute("DELETE FROM presence WHERE proc = ? AND session = ?", (self.proc, session)).rowcount
            if gone:
                self.emit(db, "poll", [None, "presence"])
        return bool(gone)

    # --- the students' settings across page loads ---
    def save_snapshots(self, snapshots: dict[str, bytes], keep: int) -> None:
        with self.write() as db:
            db.executemany("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)",
                           [(bid, blob, time.time()) for bid, blob in snapshots.items()])
            db.execute("DELETE FROM snapshots WHERE browser NOT IN "
                       "(SELECT browser FROM snapshots ORDER BY stamp DESC LIMIT ?)", (keep,))

    def snapshot_of(self, browser: str) -> bytes | None:
        rows = self.read("SELECT value FROM snapshots WHERE browser = ?", (browser,))
        return rows[0][0] if rows else None


class SQLiteValues:
    """The shared values (the `shared` table), the newest outcomes kept by count and by size."""

    def _put(self, key: str, value: bytes) -> int:
        with self.write() as db:
            row = db.execute("SELECT version FROM shared WHERE key = ?", (key,)).fetchone()
            version = (row[0] if row else 0) + 1
            db.execute("INSERT OR REPLACE INTO shared VALUES (?, ?, ?)", (key, value, version))
            if key.startswith("outcome:"):           # the newest outcomes, by count and by size
                db.execute("DELETE FROM shared WHERE key LIKE 'outcome:%' AND rowid NOT IN (SELECT rowid FROM "
                           "shared WHERE key LIKE 'outcome:%' ORDER BY rowid DESC LIMIT ?)", (contract.KEEP_SHARED,))
                db.execute("DELETE FROM shared WHERE key LIKE 'outcome:%' AND rowid < (SELECT COALESCE(MIN(rowid), 0) "
                           "FROM (SELECT rowid, SUM(LENGTH(value)) OVER (ORDER BY rowid DESC) AS total FROM shared "
                           "WHERE key LIKE 'outcome:%') WHERE total <= ?)", (contract.KEEP_SHARED_BYTES,))
        return version

    def _get(self, key: str) -> tuple[int, bytes] | None:
        rows = self.read("SELECT version, value FROM shared WHERE key = ?", (key,))
        return (rows[0][0], rows[0][1]) if rows else None

    def _drop(self, prefix: str) -> None:
        with self.write() as db:
            db.execute("DELETE FROM shared WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
