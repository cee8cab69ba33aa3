"""A page's long work, kept: the result of a coroutine per request key, reused while fresh.

Something may start the work ahead (the tour starts a step's measurement two steps early); pressing
the button then awaits the same run, or takes its result at once when it has finished.

    kept = KeptWork(fresh_seconds=600)
    result = await kept.get(key, lambda: measure(...))   # a second get with the same key awaits the first run
"""
from __future__ import annotations

import asyncio
import time


class KeptWork:
    """The newest run of one kind of work: its key, when it started, and its task."""

    def __init__(self, fresh_seconds: float, clock=time.monotonic):
        self.fresh_seconds, self._clock = fresh_seconds, clock
        self._kept: tuple | None = None    # (key, start, task)

    def fresh(self, key) -> bool:
        """Whether a run for `key` is running, or finished with a result (not None) young enough."""
        if self._kept is None:
            return False
        k, start, task = self._kept
        if k != key or self._clock() - start > self.fresh_seconds or task.cancelled():
            return False
        return not task.done() or task.exception() is None and task.result() is not None

    async def get(self, key, make):
        """The kept result for `key`, or a new run of `make()` (a coroutine), kept for the next call."""
        if not self.fresh(key):
            self._kept = (key, self._clock(), asyncio.ensure_future(make()))
        return await self._kept[2]
