"""The class store's events between its processes, and the watch thread that hears them.

A process tells the others that something happened (`announce("reset")`, or a store operation that
announces its own change, such as a vote); each process looks for what the others announced every
`interval` seconds (INTERVAL) on a thread of its own, which never touches the event loop, and calls
the listeners of each kind it hears (`on(kind, fn)`): a listener that changes a page does so as that
page's next-tick callback (shell.poll.answers.DocumentWatch), as for a change made in this process.
The same thread runs every process's hooks (`every_tick`: snapshots to write, shared measurements),
its heartbeat and, while the store fails, its tries to rejoin it (`tick`).

`StoreEvents` is the part of every class store (shell.store.contract.ClassStore) that does this; a
backend gives it `_emit(kind, text)` (tell the others), `_look()` (what the others told since the
last look: (kind, JSON text) pairs, oldest first) and `heartbeat`. The SQLite file keeps an events
table; Redis delivers them by pub/sub (shell.store.redis).
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any, Callable

from lab.errors import public_message
from shell.store.listeners import Listeners

log = logging.getLogger(__name__)

INTERVAL = 0.5          # seconds between two looks for the other processes' events
HEARTBEAT = 5.0         # seconds between a process's "still here" writes
HOOK_QUIET = 60.0       # seconds between two log lines of a hook's own problem


class StoreFault(RuntimeError):
    """The class store could not be used; the message is one sentence for the pages."""


class StoreEvents:
    """Events between the class store's processes: announce, listen, and the watch thread."""

    def __init__(self, interval: float = INTERVAL):
        self.interval = interval
        self._handlers: dict[str, Listeners] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tick_hooks: list[Callable[[], None]] = []
        self._hook_said = float("-inf")                        # when a hook's problem was last logged
        self._beat = float("-inf")                             # when this process last said it is here

    def _emit(self, kind: str, text: str) -> None:
        raise NotImplementedError

    def _look(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def heartbeat(self, sessions: int | None = None) -> None:
        raise NotImplementedError

    def announce(self, kind: str, data: Any = None) -> None:
        """Tell every other process `kind` happened (with JSON `data`); StoreFault if the store fails."""
        self._emit(kind, json.dumps(data))

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
        """Hear the events other processes announced since the last look; returns how many. A run of
        the same event (40 votes on one question) is heard once."""
        events = self._look()
        heard: dict[tuple[str, str], Any] = {}
        for kind, text in events:
            try:
                heard.setdefault((kind, text), json.loads(text))
            except ValueError:
                log.warning("An event in the class store was not JSON and was ignored.")
        for (kind, _), data in heard.items():
            self.hear(kind, data)
        return len(events)

    def hear(self, kind: str, data: Any = None) -> None:
        """Call this process's listeners of `kind` (as for an event another process announced)."""
        listeners = self._handlers.get(kind)
        if listeners is not None:
            listeners.notify(data)

    def start(self) -> None:
        """Start this process's watch thread (once)."""
        if self._thread is None or self._thread.pid != os.getpid():
            self._thread = threading.Thread(target=self._watch, name="class-store", daemon=True)
            self._thread.pid = os.getpid()
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def tick(self) -> None:
        """One look: hear the others, run the hooks, say this process is here now and then.
        StoreFault when the store fails (said by the store; the next look tries again)."""
        self.poll()
        for hook in list(self._tick_hooks):
            self._run_hook(hook)
        if time.monotonic() - self._beat > HEARTBEAT:
            self._beat = time.monotonic()
            self.heartbeat()

    def _run_hook(self, hook: Callable[[], None]) -> None:
        """One hook's turn; its own problem (say, a pair that cannot be loaded, which every page
        already says) is one log line a minute, and the watch goes on."""
        try:
            hook()
        except StoreFault:
            raise
        except Exception as err:
            if time.monotonic() - self._hook_said > HOOK_QUIET:
                self._hook_said = time.monotonic()
                log.warning("the class store's %s skipped a turn: %s", getattr(hook, "__name__", "hook"),
                            public_message(err))

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.tick()
            except StoreFault:       # said once by the store; the next look tries again
                pass
