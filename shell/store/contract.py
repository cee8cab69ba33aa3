"""The class store's one interface: every operation a class's server processes share, on any backend.

A class served by several processes (`--num-procs N`, several servers on one `SPECLAB_STORE`, several
machines on one Redis) shares its state through a `ClassStore`; its users call these methods, never
SQL or Redis commands. Two backends keep the same contract (tests/shell/test_store_contract.py runs
it on both): a SQLite file (shell.store.sqlite, the default, nothing to install) and a Redis server
(shell.store.redis, for several machines).

    store.salt                                 # the class's secret: signs browser ids, hashes voters
    store.announce("reset"); store.on("reset", fn)     # events between processes (shell.store.events)
    store.put("profile:tiny:aligned", blob); store.get(key) -> (version, blob); store.drop("outcome:")
    store.add_question(10, spec); store.question(10)   # the poll: questions (JSON specs) ...
    store.cast_vote(10, voter, 1, left=False)          # ... votes, "counted" | "same" | "revealed" | "full"
    store.poll_state(10) -> PollState                  # ... its votes, voters here, revealed or not
    store.reveal(10); store.clear_votes(None); store.join(session, voter); store.leave(session)
    store.save_snapshots({browser: blob}, keep); store.snapshot_of(browser)   # settings across pages
    store.heartbeat(sessions=n); store.sessions_elsewhere()                   # live pages, every process

Values are bytes of JSON records (lab.records), never code. Each poll write announces ("poll",
[number, what]) to the other processes. An operation the store cannot do raises StoreFault (one
sentence, also in `problem`, which the lecturer's view shows; the terminal says it once) — never the
backend's own error. Shared values (`put`/`get`/`drop`) never raise: while the store fails they are
kept in this process's memory, so the class keeps going here; `sessions_elsewhere` gives the last
count it read. When the store works again the process rejoins: its listeners of "rejoin" hear it.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from dataclasses import dataclass, field

from shell.store.events import INTERVAL, StoreEvents, StoreFault
from shell.store.files import forked

log = logging.getLogger("shell.store")     # every store module's sentences, under one name

GONE_AFTER = 30.0       # a process silent this long is gone: its pages no longer count as here
KEEP_SHARED = 400       # shared request outcomes kept (the newest; each process also caches its own)
KEEP_SHARED_BYTES = 64 << 20    # and at most this many bytes of them
MAX_VOTERS = 50_000     # answers kept per question (a class is far fewer; a flood of ids stops here)
KEPT = 4096             # shared values kept in this process's memory while the store cannot be written
RECOVERED_AFTER = 60.0  # seconds of writes without a fault before a failing file is said to work again


@dataclass
class PollState:
    """One question's poll as the store holds it: each voter's answer (`left`: kept for the student,
    not in the histogram), the voters with a page open in any live process, whether it is revealed."""
    votes: list[tuple[str, int, bool]] = field(default_factory=list)   # (voter, answer, left)
    present: set[str] = field(default_factory=set)
    revealed: bool = False


class ClassStore(StoreEvents, ABC):
    """What the class's processes share; a backend implements the abstract methods (and `_emit`,
    `_look`, `heartbeat`: shell.store.events). `proc` names this process in the store."""

    salt: bytes
    proc: str

    def __init__(self, interval: float = INTERVAL):
        super().__init__(interval)
        self.problem: str | None = None                        # the last fault, one page sentence
        self._faulted = float("-inf")                          # when the store last failed
        self._kept: OrderedDict[str, tuple[int, bytes]] = OrderedDict()   # values the store refused
        self._lock = threading.Lock()
        self._elsewhere = 0                                    # the other processes' pages, last read

    # --- faults: one sentence for the pages, said once in the terminal ---
    def _failed(self, sentence: str, terminal: str) -> StoreFault:
        """The store failed: `sentence` for the pages (and the lecturer's view), `terminal` said once
        until it works again; returns the StoreFault to raise."""
        self._faulted = time.monotonic()
        if self.problem is None:
            said_once(logging.ERROR, "%s", terminal)
        self.problem = sentence
        return StoreFault(sentence)

    def _worked(self, back: str, after: float = RECOVERED_AFTER) -> None:
        """A write worked: the problem is over once `after` seconds passed without a fault."""
        if self.problem is not None and time.monotonic() - self._faulted > after:
            self.problem = None
            said_once(logging.WARNING, "%s", back)

    # --- shared values: small records any process may put and read ---
    def put(self, key: str, value: bytes) -> int:
        """Store `value` under `key`; returns its new version (one more than the last). Outcomes
        ("outcome:…") are capped (KEEP_SHARED, KEEP_SHARED_BYTES). While the store fails the value is
        kept in this process's memory instead (`get` reads it) and written when it rejoins."""
        try:
            version = self._put(key, value)
        except StoreFault:
            with self._lock:
                version = (self._kept[key][0] if key in self._kept else 0) + 1
                self._kept[key] = (version, value)
                self._kept.move_to_end(key)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
            return version
        with self._lock:
            self._kept.pop(key, None)
        return version

    def get(self, key: str) -> tuple[int, bytes] | None:
        """(version, value) under `key` (this process's own while the store refused it), or None."""
        with self._lock:
            if key in self._kept:
                return self._kept[key]
        try:
            return self._get(key)
        except StoreFault:
            return None

    def drop(self, prefix: str) -> None:
        """Forget every shared value whose key starts with `prefix` (in this process's memory too)."""
        with self._lock:
            for key in [k for k in self._kept if k.startswith(prefix)]:
                del self._kept[key]
        with contextlib.suppress(StoreFault):      # said by the store
            self._drop(prefix)

    def write_kept(self) -> None:
        """Write the values kept in memory while the store failed (when it rejoins)."""
        with self._lock:
            kept = list(self._kept.items())
        for key, (_, value) in kept:
            self.put(key, value)

    def sessions_elsewhere(self) -> int:
        """Open pages of the other live processes (the last count read while the store fails)."""
        with contextlib.suppress(StoreFault):
            self._elsewhere = self._sessions_elsewhere()
        return self._elsewhere

    @abstractmethod
    def _put(self, key: str, value: bytes) -> int: ...

    @abstractmethod
    def _get(self, key: str) -> tuple[int, bytes] | None: ...

    @abstractmethod
    def _drop(self, prefix: str) -> None: ...

    @abstractmethod
    def _sessions_elsewhere(self) -> int: ...

    # --- the poll: questions, votes, reveals, who is here ---
    @abstractmethod
    def add_question(self, number: int, spec: list) -> bool:
        """Keep question `number`'s spec (JSON data) unless one is kept; True if this one is new."""

    @abstractmethod
    def question(self, number: int) -> list | None:
        """Question `number`'s spec, or None."""

    @abstractmethod
    def cast_vote(self, number: int, voter: str, answer: int, left: bool = False) -> str:
        """Keep `voter`'s answer (a voter answering for the first time is kept `left` out of the
        histogram if so; a later answer keeps its place): "counted", "same" (that answer is kept
        already), "revealed" (too late: nothing changed) or "full" (the question's cap: nothing kept)."""

    @abstractmethod
    def answer(self, number: int, voter: str) -> tuple[int, bool] | None:
        """`voter`'s answer to `number` and whether it is left out of the histogram, or None."""

    @abstractmethod
    def poll_state(self, number: int) -> PollState:
        """Question `number`'s votes, the voters here and whether it is revealed, read at one instant."""

    @abstractmethod
    def reveal(self, number: int) -> bool:
        """Reveal question `number`'s answers; True if it was not revealed yet."""

    @abstractmethod
    def clear_votes(self, number: int | None) -> None:
        """Forget question `number`'s votes and hide it again (None: every question)."""

    @abstractmethod
    def join(self, session: str, voter: str) -> None:
        """A page of `voter` is open in this process (it counts as here while this process lives)."""

    @abstractmethod
    def leave(self, session: str) -> bool:
        """That page closed; True if it was here."""

    # --- the students' settings across page loads ---
    @abstractmethod
    def save_snapshots(self, snapshots: dict[str, bytes], keep: int) -> None:
        """Keep each browser's snapshot (a JSON record), and only the `keep` newest browsers'."""

    @abstractmethod
    def snapshot_of(self, browser: str) -> bytes | None:
        """The browser's last snapshot, or None."""


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
