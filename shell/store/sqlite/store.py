"""The class store as one SQLite file: its connections and transactions, the processes that use it,
and the events between them (an events table each process reads every half second).

    store = SQLiteStore(Path("~/speclab/class.sqlite").expanduser())   # claimed: shell.store.files
    with store.write() as db: ...          # one short transaction; StoreFault on a full disk

A file that cannot be written (a full disk, read-only, removed) is one sentence (`problem`, said once
in the terminal); the class's users then keep their writes in this process's memory
(shell.store.contract), and the sentence goes once writes have worked for RECOVERED_AFTER seconds.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from pathlib import Path

from lab.i18n import N_
from shell.store.contract import GONE_AFTER, ClassStore, said_once
from shell.store.events import INTERVAL, StoreFault
from shell.store.files import alive, claim, server_pid
from shell.store.sqlite.rows import SQLitePoll, SQLiteValues

log = logging.getLogger(__name__)

KEEP_EVENTS = 5000      # events kept for a process that looks late (older ones are trimmed)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, origin TEXT NOT NULL,
                                   kind TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS procs (proc TEXT PRIMARY KEY, pid INTEGER, seen REAL, sessions INTEGER DEFAULT 0,
                                  server INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS questions (number INTEGER PRIMARY KEY, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS votes (number INTEGER, voter TEXT, answer INTEGER, PRIMARY KEY (number, voter));
CREATE TABLE IF NOT EXISTS revealed (number INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS presence (proc TEXT, session TEXT, voter TEXT, PRIMARY KEY (proc, session));
CREATE TABLE IF NOT EXISTS snapshots (browser TEXT PRIMARY KEY, value BLOB, stamp REAL);
CREATE TABLE IF NOT EXISTS shared (key TEXT PRIMARY KEY, value BLOB, version INTEGER);
"""
CLASS_TABLES = ("questions", "votes", "revealed", "presence", "snapshots", "shared", "events", "procs")


class SQLiteStore(SQLitePoll, SQLiteValues, ClassStore):
    """One SQLite file shared by the class's server processes. Thread-safe: one connection per
    thread, every write one transaction."""

    def __init__(self, path: Path | str, run: str | None = None, interval: float = INTERVAL):
        """`run`: the serving run this file belongs to; a file of another run is emptied first (None:
        keep what the file holds)."""
        super().__init__(interval)
        self.path = claim(Path(path))                          # StoreRefused unless only this user can write it
        self.server = server_pid()                             # the server this process belongs to
        self.proc = f"{os.getpid()}-{secrets.token_hex(4)}"    # this process, in this file
        self._local = threading.local()
        self._seen = 0                                         # the last event this process has heard
        self._db().executescript(SCHEMA)
        if "server" not in {row[1] for row in self.read("PRAGMA table_info(procs)")}:    # an older file
            self._db().execute("ALTER TABLE procs ADD COLUMN server INTEGER DEFAULT 0")
        with self.write() as db:
            known = db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
            if run is not None and (known is None or known[0] != run):
                for table in CLASS_TABLES:
                    db.execute(f"DELETE FROM {table}")
                db.execute("DELETE FROM meta WHERE key = 'salt'")     # a new server, new voter hashes
                db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (run,))
            db.execute("INSERT OR IGNORE INTO meta VALUES ('salt', ?)", (secrets.token_hex(16),))
            others = [pid for pid, in db.execute(
                "SELECT DISTINCT server FROM procs WHERE server != ? AND seen >= ?", (self.server, time.time() - GONE_AFTER))
                if pid > 0 and alive(pid)]
            db.execute("INSERT OR REPLACE INTO procs VALUES (?, ?, ?, 0, ?)",
                       (self.proc, os.getpid(), time.time(), self.server))
            self._seen = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        if others:
            said_once(logging.WARNING, "Another server (pid %s) uses the class store %s too: both classes share "
                      "one poll and one set of settings; give each server its own SPECLAB_STORE.", others[0], self.path)
        self.salt = bytes.fromhex(self.read("SELECT value FROM meta WHERE key = 'salt'")[0][0])

    # --- connections and transactions ---
    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None or self._local.pid != os.getpid():       # a forked child opens its own
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            wal(db)
            db.execute("PRAGMA synchronous=NORMAL")             # WAL: durable enough for a lesson, fast
            self._local.db, self._local.pid = db, os.getpid()
        return db

    @contextlib.contextmanager
    def write(self):
        """One short write transaction (taken at once, so two writers queue rather than deadlock).
        A file that cannot be written (full disk, read-only, removed) raises StoreFault, one sentence."""
        try:
            db = self._db()
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self.fault(exc) from None
        try:
            yield db
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise self.fault(exc) from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise self.fault(exc) from None
        self._worked(f"The class store {self.path} can be written again.")

    def fault(self, exc: Exception) -> StoreFault:
        """The file failed (`exc`): noted for the pages (and the lecturer's view), said once in the
        terminal until writes work again for RECOVERED_AFTER seconds, returned to raise."""
        return self._failed(
            N_("The class's shared store cannot be written right now (the disk may be full or read-only): new "
               "votes and settings stay on this server process until it can."),
            f"The class store {self.path} cannot be written ({' '.join(str(exc).split())}); votes and settings "
            "stay in each process until it can: free disk space or check the folder.")

    @contextlib.contextmanager
    def reading(self):
        """One read transaction: every query inside sees the file as it was at the first."""
        try:
            db = self._db()
            db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self.fault(exc) from None
        try:
            yield db
        except sqlite3.Error as exc:
            raise self.fault(exc) from None
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.execute("COMMIT")

    def read(self, sql: str, args: tuple = ()) -> list[tuple]:
        try:
            return self._db().execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise self.fault(exc) from None

    # --- events ---
    def emit(self, db: sqlite3.Connection, kind: str, data) -> None:
        """Within a write transaction: tell every other process `kind` happened (with JSON `data`)."""
        db.execute("INSERT INTO events (origin, kind, data) VALUES (?, ?, ?)", (self.proc, kind, json.dumps(data)))

    def _emit(self, kind: str, text: str) -> None:
        with self.write() as db:
            db.execute("INSERT INTO events (origin, kind, data) VALUES (?, ?, ?)", (self.proc, kind, text))

    def _look(self) -> list[tuple[str, str]]:
        top = self.read("SELECT COALESCE(MAX(seq), 0) FROM events")[0][0]
        if top <= self._seen:
            return []
        rows = self.read("SELECT kind, data FROM events WHERE seq > ? AND origin != ? ORDER BY seq",
                         (self._seen, self.proc))
        self._seen = top
        return rows

    # --- the processes and their sessions ---
    def heartbeat(self, sessions: int | None = None) -> None:
        """This process is alive (with `sessions` open pages, if given); forget processes gone silent,
        their pages with them."""
        now = time.time()
        with self.write() as db:
            if sessions is None:
                db.execute("UPDATE procs SET seen = ? WHERE proc = ?", (now, self.proc))
            else:
                db.execute("UPDATE procs SET seen = ?, sessions = ? WHERE proc = ?", (now, sessions, self.proc))
            gone = [proc for proc, pid, seen in db.execute("SELECT proc, pid, seen FROM procs")
                    if seen < now - GONE_AFTER or (proc != self.proc and not alive(pid))]
            for proc in gone:
                db.execute("DELETE FROM presence WHERE proc = ?", (proc,))
                db.execute("DELETE FROM procs WHERE proc = ?", (proc,))
            if sessions is not None or gone:
                self.emit(db, "sessions", None)
            db.execute("DELETE FROM events WHERE seq < (SELECT MAX(seq) FROM events) - ?", (KEEP_EVENTS,))

    def _sessions_elsewhere(self) -> int:
        return self.read("SELECT COALESCE(SUM(sessions), 0) FROM procs WHERE proc != ? AND seen >= ?",
                         (self.proc, time.time() - GONE_AFTER))[0][0]


def wal(db: sqlite3.Connection, wait: float = 10.0) -> None:
    """Put the file in WAL mode. SQLite answers "database is locked" at once, without waiting, while
    another process is creating the same file (the processes `--num-procs` forks open it together),
    so this waits for it the way every other statement waits (the connection's timeout)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
