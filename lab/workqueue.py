"""The model worker's queue: one thread, per-browser queues served in fair turns, limits that answer in
one sentence, and identical waiting requests computed once.

Torch on a 2-core laptop gains nothing from two forward passes at once, so one worker thread runs
all model work, off the web server's event loop. Jobs are queued per browser (its cookie id, so
twenty tabs of one browser get one share, not twenty) and taken round-robin, so one student's long
generation never makes another wait behind all of it. Turns follow start-time fair queueing: each
browser carries a tag, the count of jobs it has been served, started at the tag of the job running
when its queue opened; the lowest tag goes next (first come first on a tie). A student who arrives
while another browser's queue is full waits for the running job only, not for the next of theirs. `lab.service.ModelService` is its only user.

    queue = FairQueue()
    future = queue.submit(Owner(browser_id, session_id), fn, args, kwargs)   # QueueFull past a limit
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

MAX_PENDING = 3      # waiting jobs per browser
MAX_TOTAL = 160      # waiting jobs on the whole server (a class of 40 with 3 each fits; a flood does not)
RATE, BURST = 5.0, 10  # model actions per second per browser, and how many may come at once


class QueueFull(RuntimeError):
    """A browser (or the whole class) asked for more model work than may wait at once."""


@dataclass(frozen=True)
class Owner:
    """Who asked for model work: the browser (its cookie id) shares one queue among its tabs; the
    session (one tab) is what closes, dropping only that tab's waiting work."""
    browser: str
    session: str | None = None


def _browser_and_session(owner) -> tuple:
    """(queue key, session) of an owner; a plain value is both (the server's own work: None)."""
    return (owner.browser, owner.session) if isinstance(owner, Owner) else (owner, owner)


def _normalised(value):
    """`value` as a hashable key (lists → tuples); raises TypeError for what cannot be (arrays)."""
    if isinstance(value, list):
        return tuple(_normalised(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_normalised(v) for v in value)
    if isinstance(value, np.ndarray):
        raise TypeError("arrays are not compared")
    hash(value)
    return value


def _job_key(fn, args, kwargs):
    """What makes two requests identical, or None when they cannot be compared."""
    try:
        return (fn, _normalised(args), tuple(sorted((k, _normalised(v)) for k, v in kwargs.items())))
    except TypeError:
        return None


class _Job:
    """One piece of model work and everyone waiting for it: [(future, session), ...]."""
    __slots__ = ("fn", "args", "kwargs", "key", "waiters")

    def __init__(self, fn, args, kwargs, key):
        self.fn, self.args, self.kwargs, self.key = fn, args, kwargs, key
        self.waiters: list[tuple[Future, object]] = []


class FairQueue:
    """Per-browser FIFO queues served round-robin by one worker thread."""

    def __init__(self, max_pending: int = MAX_PENDING, max_total: int = MAX_TOTAL, rate: float = RATE,
                 burst: int = BURST, clock=time.monotonic):
        self.max_pending, self.max_total = max_pending, max_total
        self.rate, self.burst, self._clock = rate, burst, clock
        self._allowance: OrderedDict[object, tuple[float, float]] = OrderedDict()   # browser → (left, at)
        self._queues: dict[object, deque[_Job]] = {}      # browser → its waiting jobs
        self._tags: dict[object, tuple[float, int]] = {}  # browser → (its turn, arrival), while it waits
        self._now = 0.0                                     # the tag of the job served last
        self._arrivals = 0
        self._waiting: dict[tuple, _Job] = {}       # job key → the identical job still waiting
        self._ready = threading.Condition()
        self._worker = threading.Thread(target=self._work, name="model-worker", daemon=True)
        self._worker.start()

    def submit(self, owner, fn, args, kwargs) -> Future:
        browser, session = _browser_and_session(owner)
        future: Future = Future()
        key = _job_key(fn, args, kwargs)
        with self._ready:
            same = self._waiting.get(key) if key is not None else None
            if same is not None:          # asked for already and still waiting: computed once for all
                same.waiters.append((future, session))
                return future
            queue = self._queues.get(browser, ())
            if browser is not None:       # None: the server's own work, never refused
                if not self._allowed(browser):
                    raise QueueFull("You are asking faster than the models can answer; wait a moment, "
                                    "then try again.")
                if len(queue) >= self.max_pending:
                    raise QueueFull("Still working on your earlier requests; wait for them to finish, "
                                    "then try again.")
                if self._total() >= self.max_total:
                    raise QueueFull("The models are busy with the whole class's requests; "
                                    "try again in a few seconds.")
            job = _Job(fn, args, kwargs, key)
            job.waiters.append((future, session))
            if browser not in self._queues:
                self._queues[browser] = deque()
                self._arrivals += 1
                self._tags[browser] = (self._now, self._arrivals)
            self._queues[browser].append(job)
            if key is not None:
                self._waiting[key] = job
            self._ready.notify()
        return future

    def _allowed(self, browser) -> bool:
        """A token bucket per browser: `rate` requests a second, `burst` at once. Even answers from
        the cache redraw the asking page on the event loop every student shares, so twenty tabs
        clicking as fast as they can must not get twenty times the share (call under the lock)."""
        now = self._clock()
        left, at = self._allowance.pop(browser, (float(self.burst), now))
        left = min(float(self.burst), left + (now - at) * self.rate)
        self._allowance[browser] = (left - 1 if left >= 1 else left, now)
        while len(self._allowance) > 4096:           # bounded: browsers long gone are dropped
            self._allowance.popitem(last=False)
        return left >= 1

    def _total(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def pending(self, owner=None) -> int:
        """Jobs waiting for `owner`'s browser, or on the whole server."""
        with self._ready:
            if owner is not None:
                return len(self._queues.get(_browser_and_session(owner)[0], ()))
            return self._total()

    def forget(self, session) -> int:
        """A session (tab) closed: cancel what it was waiting for; returns how many were cancelled.

        A job someone else also waits for still runs for them; a job nobody waits for leaves the queue.
        """
        cancelled = []
        with self._ready:
            for browser in list(self._queues):
                kept = deque()
                for job in self._queues[browser]:
                    mine = [w for w in job.waiters if w[1] == session]
                    job.waiters = [w for w in job.waiters if w[1] != session]
                    cancelled += [future for future, _ in mine]
                    if job.waiters:
                        kept.append(job)
                    elif self._waiting.get(job.key) is job:
                        del self._waiting[job.key]
                if kept:
                    self._queues[browser] = kept
                else:
                    del self._queues[browser], self._tags[browser]
        for future in cancelled:
            future.cancel()
        return len(cancelled)

    def _next(self) -> _Job:
        with self._ready:
            while not self._queues:
                self._ready.wait()
            browser = min(self._queues, key=self._tags.__getitem__)
            queue = self._queues[browser]
            job = queue.popleft()
            self._now, arrival = self._tags[browser]
            if queue:                      # its next job: one turn later
                self._tags[browser] = (self._now + 1, arrival)
            else:
                del self._queues[browser], self._tags[browser]
            if self._waiting.get(job.key) is job:
                del self._waiting[job.key]  # running: a new request for it queues anew
            return job

    def _work(self):
        while True:
            job = self._next()
            futures = [f for f, _ in job.waiters if f.set_running_or_notify_cancel()]
            if not futures:
                continue
            try:
                result = job.fn(*job.args, **job.kwargs)
            except BaseException as err:   # handed to the awaiting callbacks, never lost
                for future in futures:
                    future.set_exception(err)
            else:
                for future in futures:
                    future.set_result(result)
