"""Listeners of a process-wide store (the class poll, the open sessions): subscribe, and call every
one after a change, one failing page never stopping the others' updates. Plain Python, thread-safe.

    listeners = Listeners("poll")
    stop = listeners.subscribe(lambda number, what: ...)
    listeners.notify(3, "votes")
"""
from __future__ import annotations

import logging
import threading
from typing import Callable

log = logging.getLogger(__name__)


class Listeners:
    def __init__(self, what: str):
        self._what = what                # named in the log when a listener fails
        self._lock = threading.Lock()
        self._items: list[Callable] = []

    def subscribe(self, listener: Callable) -> Callable[[], None]:
        """Call `listener(*args)` on every `notify(*args)`; returns the function that stops it."""
        with self._lock:
            self._items.append(listener)

        def unsubscribe():
            with self._lock:
                if listener in self._items:
                    self._items.remove(listener)
        return unsubscribe

    def notify(self, *args) -> None:
        with self._lock:
            listeners = list(self._items)
        for listener in listeners:
            try:
                listener(*args)
            except Exception:     # one closed or broken page must not stop the others' updates
                log.exception("a %s listener failed", self._what)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
