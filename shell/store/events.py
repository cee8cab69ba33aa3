"""The class store's events between its processes, and the watch thread that hears them.

A process tells the others that something happened (`announce("reset")`, or `emit` inside a write
transaction); each process looks at the events table every `interval` seconds (INTERVAL) on a
thread of its own, which never touches the event loop, and calls the listeners of each kind it
hears (`on(kind, fn)`): a listener that changes a page does so as that page's next-tick callback
(shell.poll.answers.DocumentWatch), as for a change made in this process. The same thread runs every
process's hooks (`every_tick`: snapshots to write, shared measurements) and its heartbeat.

`StoreEvents` is the part of shell.store.shared.ClassStore that does this; the store gives it `_db`,
`read`, `write`, `fault` and `heartbeat`.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from typing import Any, Callable

from lab.errors import public_message
from shell.store.listeners import Listeners

log = logging.getLogger(__name__)

INTERVAL = 0.5          # seconds between two looks at the events table
HEARTBEAT = 5.0         # seconds between a process's "still here" writes
HOOK_QUIET = 60.0       # seconds between two log lines of a hook's own problem


class StoreFault(RuntimeError):
    """The class store could not be written; the message is one sentence for the pages."""


class StoreEvents:
    """Events between the class store's processes: announce, listen, and the watch thread."""

    def __init__(self, interval: float = INTERVAL):
        self.interval = interval
        self._handlers: dict[str, Listeners] = {}
        self._seen = 0                                         # the last event this process has heard
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tick_hooks: list[Callable[[], None]] = []
        self._hook_said = float("-inf")                        # when a hook's problem was last logged

    def emit(self, db: sqlite3.Connection, kind: str, data: Any) -> None:
        """Within a write transaction: tell every other process `kind` happened (with JSON `data`)."""
        db.execute("INSERT INTO events (origin, kind, data) VALUES (?, ?, ?)", (self.proc, kind, json.dumps(data)))

    def announce(self, kind: str, data: Any = None) -> None:
        """Tell every other process `kind` happened, in a transaction of its own."""
        with self.write() as db:
            self.emit(db, kind, data)

    def on(self, kind: str, handler: Callable[[Any], None]) -> Callable[[], None]:
        """Call `handler(data)` (on the watch thread) for each `kind` another process announces;
        returns the function that stops it."""
        self.start()
        return self._handlers.setdefault(kind, Listeners(f"class store {kind}")).subscribe(handler)

    def every_tick(self, hook: Callable[[], None]) -> None:
        """Call `hook()` on the watch thread at every look (a process's shared measurements)."""
        self._tick_hooks.append(hook)
        self.start()

    def poll(self) -> int:
        """Hear the events other processes wrote since the last look; returns how many. A run of the
        same event (40 votes on one question) is heard once."""
        top = self.read("SELECT COALESCE(MAX(seq), 0) FROM events")[0][0]
        if top <= self._seen:
            return 0
        rows = self.read("SELECT seq, kind, data FROM events WHERE seq > ? AND origin != ? ORDER BY seq",
                         (self._seen, self.proc))
        self._seen = top
        heard: dict[tuple[str, str], Any] = {}
        for _, kind, data in rows:
            heard.setdefault((kind, data), json.loads(data))
        for (kind, _), data in heard.items():
            listeners = self._handlers.get(kind)
            if listeners is not None:
                listeners.notify(data)
        return len(rows)

    def start(self) -> None:
        """Start this process's watch thread (once)."""
        if self._thread is None or self._thread.pid != os.getpid():
            self._thread = threading.Thread(target=self._watch, name="class-store", daemon=True)
            self._thread.pid = os.getpid()
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run_hook(self, hook: Callable[[], None]) -> None:
        """One hook's turn; its own problem (say, a pair that cannot be loaded, which every page
        already says) is one log line a minute, and the watch goes on."""
        try:
            hook()
        except (StoreFault, sqlite3.Error):
            raise
        except Exception as err:
            if time.monotonic() - self._hook_said > HOOK_QUIET:
                self._hook_said = time.monotonic()
                log.warning("the class store's %s skipped a turn: %s", getattr(hook, "__name__", "hook"),
                            public_message(err))

    def _watch(self) -> None:
        beat = 0.0
        while not self._stop.wait(self.interval):
            try:
                self.poll()
                for hook in list(self._tick_hooks):
                    self._run_hook(hook)
                if time.monotonic() - beat > HEARTBEAT:
                    beat = time.monotonic()
                    self.heartbeat()
            except StoreFault:       # said once a minute by `fault`; the next look tries again
                pass
            except sqlite3.Error as exc:     # a locked or vanished file: the next look tries again
                self.fault(exc)
