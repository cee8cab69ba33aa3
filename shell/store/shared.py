"""The class's one store when several server processes serve it: one SQLite file every process opens.

`panel serve app.py --num-procs N` forks N processes that each hold their own pages; what the class
shares goes through this file so that every process sees it: the poll (shell.poll.store's
`SharedPollStore`), the students' settings across page loads (shell.room.sessions), the lecturer's
actions (reset the class, switch the pair) and the measurements every page prices with (the cost
profile, request outcomes: serving.service). Standard library only; WAL mode, so readers never wait
for a writer, and every write is one short transaction.

    store, problem = open_class_store()   # None with one process (everything stays in memory)
    store.announce("reset", {})           # every *other* process hears it (on its watch thread)
    store.on("reset", fn)                 # fn(data) for each such announcement
    store.put("profile:tiny:aligned", blob); store.get(...)    # shared values, with a version

The server's class state (shell.frame.classstate) opens it when the server starts, never on import.

Change notice: each process polls the events table's highest number every `interval` seconds (0.5)
on a thread of its own, which never touches the event loop: a listener that changes a page does so
as that page's next-tick callback (shell.poll.answers.DocumentWatch), as for a change made in this process.

Where the file is: `SPECLAB_STORE=PATH` (several servers on one machine share it; it keeps the
class's poll across restarts until the lecturer resets it), else, in processes forked by
`--num-procs`, `<cache folder>/classroom/serve-<parent pid>.sqlite`, started afresh with each server
(the files of servers that have exited are removed).
"""
from __future__ import annotations

import contextlib
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path

from serving import serving_processes
from shell.store.events import INTERVAL, StoreEvents, StoreFault
from shell.store.files import StoreRefused, alive, claim, forked, server_pid, started

log = logging.getLogger(__name__)

GONE_AFTER = 30.0       # a process silent this long is gone: its pages no longer count as here
KEEP_EVENTS = 5000      # events kept for a process that looks late (older ones are trimmed)
KEEP_SHARED = 400       # shared request outcomes kept (the newest; each process also caches its own)
KEEP_SHARED_BYTES = 64 << 20    # and at most this many bytes of them
KEPT = 4096             # shared values kept in this process's memory while the store cannot be written
RECOVERED_AFTER = 60.0  # seconds of writes without a fault before the store is said to work again

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


class SharedValues:
    """The class store's shared values (its `shared` table): small records any process may put and
    read, kept in this process's memory while the file cannot be written."""

    def put(self, key: str, value: bytes) -> int:
        """Store `value` under `key`; returns its new version (one more than the last). While the file
        cannot be written, the value is kept in this process's memory instead (`get` reads it)."""
        try:
            return self._put(key, value)
        except StoreFault:
            with self._lock:
                version = (self._kept[key][0] if key in self._kept else 0) + 1
                self._kept[key] = (version, value)
                self._kept.move_to_end(key)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
            return version

    def _put(self, key: str, value: bytes) -> int:
        with self.write() as db:
            row = db.execute("SELECT version FROM shared WHERE key = ?", (key,)).fetchone()
            version = (row[0] if row else 0) + 1
            db.execute("INSERT OR REPLACE INTO shared VALUES (?, ?, ?)", (key, value, version))
            if key.startswith("outcome:"):           # the newest outcomes, by count and by size
                db.execute("DELETE FROM shared WHERE key LIKE 'outcome:%' AND rowid NOT IN (SELECT rowid FROM "
                           "shared WHERE key LIKE 'outcome:%' ORDER BY rowid DESC LIMIT ?)", (KEEP_SHARED,))
                db.execute("DELETE FROM shared WHERE key LIKE 'outcome:%' AND rowid < (SELECT COALESCE(MIN(rowid), 0) "
                           "FROM (SELECT rowid, SUM(LENGTH(value)) OVER (ORDER BY rowid DESC) AS total FROM shared "
                           "WHERE key LIKE 'outcome:%') WHERE total <= ?)", (KEEP_SHARED_BYTES,))
        with self._lock:
            self._kept.pop(key, None)
        return version

    def get(self, key: str) -> tuple[int, bytes] | None:
        """(version, value) under `key` (this process's own when the file refused it), or None."""
        with self._lock:
            if key in self._kept:
                return self._kept[key]
        try:
            rows = self.read("SELECT version, value FROM shared WHERE key = ?", (key,))
        except sqlite3.Error as exc:
            self.fault(exc)
            return None
        return (rows[0][0], rows[0][1]) if rows else None

    def drop(self, prefix: str) -> None:
        """Forget every shared value whose key starts with `prefix` (in this process's memory too)."""
        with self._lock:
            for key in [k for k in self._kept if k.startswith(prefix)]:
                del self._kept[key]
        with contextlib.suppress(StoreFault):      # said by `fault`; the next write tries again
            with self.write() as db:
                db.execute("DELETE FROM shared WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))


class ClassStore(StoreEvents, SharedValues):
    """One SQLite file shared by the class's server processes: events between them (shell.store.events),
    who is here, and shared values. Thread-safe: one connection per thread, every write one
    transaction."""

    def __init__(self, path: Path | str, run: str | None = None, interval: float = INTERVAL):
        """`run`: the serving run this file belongs to; a file of another run is emptied first (None:
        keep what the file holds)."""
        super().__init__(interval)
        self.path = claim(Path(path))                          # StoreRefused unless only this user can write it
        self.server = server_pid()                             # the server this process belongs to
        self.problem: str | None = None                        # the last fault, one page sentence
        self._kept: OrderedDict[str, tuple[int, bytes]] = OrderedDict()   # values the file refused, in memory
        self._faulted = float("-inf")                          # when a write last failed
        self.proc = f"{os.getpid()}-{secrets.token_hex(4)}"    # this process, in this file
        self._local = threading.local()
        self._lock = threading.Lock()
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
        if self.problem is not None and time.monotonic() - self._faulted > RECOVERED_AFTER:
            self.problem = None
            log.warning("The class store %s can be written again.", self.path)

    def fault(self, exc: Exception) -> "StoreFault":
        """The store failed (`exc`): noted for the pages (and the lecturer's view), said once in the
        terminal until writes work again for RECOVERED_AFTER seconds, returned to raise."""
        self._faulted = time.monotonic()
        if self.problem is None:
            log.error("The class store %s cannot be written (%s); votes and settings stay in each process "
                      "until it can: free disk space or check the folder.", self.path, " ".join(str(exc).split()))
        self.problem = ("The class's shared store cannot be written right now (the disk may be full or "
                        "read-only): new votes and settings stay on this server process until it can.")
        return StoreFault(self.problem)

    @contextlib.contextmanager
    def snapshot(self):
        """One read transaction: every query inside sees the file as it was at the first."""
        db = self._db()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    def read(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._db().execute(sql, args).fetchall()

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

    def sessions_elsewhere(self) -> int:
        """Open pages of the other live processes."""
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


def first_process() -> bool:
    """Whether this process speaks for the whole server: it serves alone, or it is the first of the
    processes `--num-procs` forked (tornado's task 0). The others find what it found."""
    if not forked():
        return True
    import sys
    return sys.modules["tornado.process"].task_id() == 0


def said_once(level: int, message: str, *args) -> None:
    """`message` in the terminal once for the whole server, not once per process: the first process
    says it at `level`, the others at debug level, which the server's log leaves out."""
    log.log(level if first_process() else logging.DEBUG, message, *args)


def open_class_store(environ=None) -> tuple[ClassStore | None, str | None]:
    """The class's shared store, or None when this process serves the class alone, or when the store
    cannot be used (said once in the terminal for the whole server: every process finds the same
    problem), with the sentence every page then shows (else None)."""
    env = os.environ if environ is None else environ
    try:
        if env.get("SPECLAB_STORE"):
            return ClassStore(Path(env["SPECLAB_STORE"]).expanduser()), None
        if not forked():
            return None, None
        from lab.pairs.cachedir import classroom_dir
        folder, parent = classroom_dir(), os.getppid()
        path = claim(folder / f"serve-{parent}.sqlite")
        for old in folder.glob("serve-*.sqlite*"):               # servers that have exited
            pid = old.name.split("-", 1)[1].split(".", 1)[0]
            if pid.isdigit() and int(pid) != parent and not alive(int(pid)):
                with contextlib.suppress(OSError):
                    old.unlink()
        return ClassStore(path, run=f"{parent}:{started(parent)}"), None
    except StoreRefused as exc:
        said_once(logging.ERROR, "%s Each server process now keeps its own poll and settings.", exc)
        return None, f"{exc.public} Each server process keeps its own poll and settings until then."
    except (OSError, sqlite3.Error) as exc:
        said_once(logging.ERROR, "The class store cannot be opened (%s); each server process now keeps its own "
                  "poll and settings: check SPECLAB_STORE or the cache folder (free space, write access).", exc)
        return None, ("The class's shared store cannot be opened on the server, so each server process keeps "
                      "its own poll and settings; the lecturer can check the cache folder.")


def share_cores() -> int | None:
    """In a process forked by `--num-procs N`, give torch its share of the cores (at least one),
    so N model workers do not each spin on every core; returns the threads set, or None."""
    if not forked():
        return None
    import torch
    threads = max(1, (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
                  // serving_processes())
    torch.set_num_threads(threads)
    return threads
