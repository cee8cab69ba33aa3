"""The jobs waiting for the model worker (serving.workqueue.FairQueue): who asked (`Owner`), one
piece of work and everyone waiting for it (`Job`), and the per-browser queues they wait in
(`WaitingRoom`). Two requests with equal function and arguments are one job.
"""
from __future__ import annotations

from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass
from types import GeneratorType

import numpy as np

from serving.fairshare import bound


@dataclass(frozen=True)
class Owner:
    """Who asked for model work: the browser (its signed id, shell.room.identity) shares one queue among
    its tabs; the session (one tab) is what closes, dropping only that tab's waiting work; the
    client address shares one fair share among the browsers it started ('' unknown)."""
    browser: str
    session: str | None = None
    address: str = ""


def browser_and_session(owner) -> tuple:
    """(queue key, session) of an owner; a plain value is both (the server's own work: None)."""
    return (owner.browser, owner.session) if isinstance(owner, Owner) else (owner, owner)


def owner_address(owner) -> str:
    """The client address an owner's browsers share a fair share under ('' for the server's own work)."""
    return owner.address if isinstance(owner, Owner) else ""


def _normalised(value):
    """`value` as a hashable key (lists → tuples); raises TypeError for what cannot be (arrays)."""
    if isinstance(value, (list, tuple)):
        return tuple(_normalised(v) for v in value)
    if isinstance(value, np.ndarray):
        raise TypeError("arrays are not compared")
    hash(value)
    return value


def job_key(fn, args, kwargs):
    """What makes two requests identical, or None when they cannot be compared."""
    try:
        return (fn, _normalised(args), tuple(sorted((k, _normalised(v)) for k, v in kwargs.items())))
    except TypeError:
        return None


class Job:
    """One piece of model work and everyone waiting for it: [(future, session), ...]. `steps` is
    the generator of a long job once started (it may be parked between steps)."""
    __slots__ = ("fn", "args", "kwargs", "key", "browser", "waiters", "steps")

    def __init__(self, fn, args, kwargs, key, browser):
        self.fn, self.args, self.kwargs, self.key, self.browser = fn, args, kwargs, key, browser
        self.waiters: list[tuple[Future, object]] = []
        self.steps: GeneratorType | None = None

    def start(self) -> bool:
        """Mark the waiters' futures running (a parked job's are already); False when none is left."""
        if self.steps is None:
            self.waiters = [(f, s) for f, s in self.waiters if f.set_running_or_notify_cancel()]
        return bool(self.waiters)

    def step(self) -> bool:
        """Run the job, or a long job's next step; True once it has finished (its waiters told)."""
        try:
            if self.steps is None:
                result = self.fn(*self.args, **self.kwargs)
                if not isinstance(result, GeneratorType):
                    return self._settle(result)
                self.steps = result
            next(self.steps)
            return False
        except StopIteration as stop:
            return self._settle(stop.value)
        except BaseException as err:   # handed to the awaiting callbacks, never lost
            return self._settle(error=err)

    def _settle(self, result=None, error: BaseException | None = None) -> bool:
        for future, _ in self.waiters:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
        return True


class WaitingRoom:
    """The jobs waiting for the model worker: one FIFO queue per browser, opened in order of arrival,
    an identical request merged into the job already waiting, and the client address each browser
    came from (the REMEMBERED most recent). Not locked: FairQueue calls it under its own lock."""

    def __init__(self):
        self.queues: dict[object, deque[Job]] = {}      # browser → its waiting jobs
        self.arrival: dict[object, int] = {}            # browser → when its queue opened
        self._arrivals = 0
        self._addresses: OrderedDict[object, str] = OrderedDict()   # browser → its client address
        self._by_key: dict[tuple, Job] = {}             # job key → the identical job still waiting

    def same(self, key) -> Job | None:
        """The waiting job identical to a request with `key` (None: none, or not comparable)."""
        return self._by_key.get(key) if key is not None else None

    def add(self, job: Job, address: str) -> None:
        """A new job, from `address` when it is a browser's."""
        if job.browser is not None:
            self._addresses[job.browser] = address
            self._addresses.move_to_end(job.browser)
            bound(self._addresses)
        self.enqueue(job)
        if job.key is not None:
            self._by_key[job.key] = job

    def enqueue(self, job: Job, first: bool = False) -> None:
        """Put `job` in its browser's queue (at its head when `first`), opening the queue if needed."""
        if job.browser not in self.queues:
            self.queues[job.browser] = deque()
            self._arrivals += 1
            self.arrival[job.browser] = self._arrivals
        (self.queues[job.browser].appendleft if first else self.queues[job.browser].append)(job)

    def adopt(self, job: Job, browser) -> None:
        """The server's waiting job goes on `browser`'s turn, who asked for the same."""
        self.queues[None].remove(job)
        if not self.queues[None]:
            del self.queues[None], self.arrival[None]
        job.browser = browser
        self.enqueue(job)

    def pop(self, browser) -> Job:
        """The first job of `browser`'s queue, taken out: a new request for the same queues anew."""
        queue = self.queues[browser]
        job = queue.popleft()
        if not queue:
            del self.queues[browser], self.arrival[browser]
        if self._by_key.get(job.key) is job:
            del self._by_key[job.key]
        return job

    def total(self) -> int:
        return sum(len(q) for q in self.queues.values())

    def address_key(self, browser):
        """What a browser's address is charged under (a browser of unknown address: itself)."""
        address = self._addresses.get(browser, "")
        return ("address", address) if address else browser

    def drop_session(self, session) -> tuple[list[Future], list[GeneratorType]]:
        """A session closed: (the futures it waited for, the parked long jobs nobody waits for now),
        both taken out. A job someone else also waits for stays for them."""
        cancelled, closed = [], []
        for browser in list(self.queues):
            kept = deque()
            for job in self.queues[browser]:
                cancelled += [future for future, s in job.waiters if s == session]
                job.waiters = [w for w in job.waiters if w[1] != session]
                if job.waiters:
                    kept.append(job)
                else:
                    if self._by_key.get(job.key) is job:
                        del self._by_key[job.key]
                    if job.steps is not None:
                        closed.append(job.steps)
            if kept:
                self.queues[browser] = kept
            else:
                del self.queues[browser], self.arrival[browser]
        return cancelled, closed
