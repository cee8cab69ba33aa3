"""The model worker's queue: one thread, per-browser queues served by least recent use, limits that
answer in one sentence, identical waiting requests computed once, and long jobs that step aside.

Torch on a 2-core laptop gains nothing from two forward passes at once, so one worker thread runs
all model work, off the web server's event loop. Jobs are queued per browser (its signed id, so
twenty tabs of one browser get one share, not twenty). The next job is the waiting browser's whose
client address, then whose own id, has used the worker least recently: seconds of model work, halved
every HALF_LIFE seconds (first come first on a tie). So the few browsers one address may start
(shell.identity) share that address's turn: a script rotating cookies gains no turns over a student. A student who presses a button while one browser keeps the
worker busy goes next, and their few seconds of work run before the busy browser's next job. The
server's own work (owner None: the start-up warm-up) goes only when no browser has waited or run
for QUIET seconds (students first), unless a browser asks for the same.

A long job (a live measurement) is a generator: the worker runs it a step (one decoding round) at
a time, and after each step hands the worker to a browser waiting with STEP_ASIDE seconds less
recent use (to any browser, when the job is the server's own), parking the job at the head of its
browser's queue to resume later. A generator returns its result; its waiters see only that.
`serving.service.ModelService` is its only user.

    queue = FairQueue()
    future = queue.submit(Owner(browser_id, session_id), fn, args, kwargs)   # QueueFull past a limit
"""
from __future__ import annotations

import atexit
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from types import GeneratorType

import numpy as np

from serving.fairshare import BURST, RATE, REMEMBERED, Allowance, RecentUse, bound  # noqa: F401  (importable from here)

MAX_PENDING = 3      # waiting jobs per browser
MAX_TOTAL = 160      # waiting jobs on the whole server (a class of 40 with 3 each fits; a flood does not)
HALF_LIFE = 30.0     # seconds: a browser's model work counts half as much this long after
STEP_ASIDE = 5.0     # seconds of less recent use that make a running long job step aside
QUIET = 2.0          # seconds without browser work before the server's own work (the warm-up) goes on


class QueueFull(RuntimeError):
    """A browser (or the whole class) asked for more model work than may wait at once."""


@dataclass(frozen=True)
class Owner:
    """Who asked for model work: the browser (its signed id, shell.identity) shares one queue among
    its tabs; the session (one tab) is what closes, dropping only that tab's waiting work; the
    client address shares one fair share among the browsers it started ('' unknown)."""
    browser: str
    session: str | None = None
    address: str = ""


def _browser_and_session(owner) -> tuple:
    """(queue key, session) of an owner; a plain value is both (the server's own work: None)."""
    return (owner.browser, owner.session) if isinstance(owner, Owner) else (owner, owner)


def _address(owner) -> str:
    return owner.address if isinstance(owner, Owner) else ""


def _normalised(value):
    """`value` as a hashable key (lists → tuples); raises TypeError for what cannot be (arrays)."""
    if isinstance(value, (list, tuple)):
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


class FairQueue:
    """Per-browser FIFO queues served by least recent use, by one worker thread."""

    def __init__(self, max_pending: int = MAX_PENDING, max_total: int = MAX_TOTAL, rate: float = RATE,
                 burst: int = BURST, clock=time.monotonic, half_life: float = HALF_LIFE,
                 step_aside: float = STEP_ASIDE, quiet: float = QUIET, timer=time.perf_counter):
        """`clock` paces the browsers' allowance; `timer` times model work and the quiet before the
        server's own work (tests pass fake ones)."""
        self.max_pending, self.max_total, self.step_aside, self.quiet = max_pending, max_total, step_aside, quiet
        self._timer = timer
        self._browser_seen = -float("inf")   # `timer` when browser work last waited or ran
        self.allowance, self.use = Allowance(rate, burst, clock), RecentUse(half_life, timer)
        self._queues: dict[object, deque[_Job]] = {}      # browser → its waiting jobs
        self._addresses: OrderedDict[object, str] = OrderedDict()   # browser → its client address (bounded)
        self._arrival: dict[object, int] = {}             # browser → when its queue opened
        self._arrivals = 0
        self._waiting: dict[tuple, _Job] = {}       # job key → the identical job still waiting
        self._ready = threading.Condition()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="model-worker", daemon=True)
        self._worker.start()
        atexit.register(self.close)

    def close(self, timeout: float = 10.0) -> None:
        """Take no more jobs; wait (at most `timeout`) for the worker to finish the job or step it is
        running and end. At exit: a worker left inside torch while Python shuts down aborts the
        process ("terminate called without an active exception")."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        if threading.current_thread() is not self._worker:
            self._worker.join(timeout)

    @property
    def working(self) -> bool:
        """Whether the worker thread is still running (False once closed and its last step done)."""
        return self._worker.is_alive()

    def submit(self, owner, fn, args, kwargs) -> Future:
        browser, session = _browser_and_session(owner)
        address = _address(owner)
        future: Future = Future()
        key = _job_key(fn, args, kwargs)
        with self._ready:
            same = self._waiting.get(key) if key is not None else None
            if same is not None:          # asked for already and still waiting: computed once for all
                same.waiters.append((future, session))
                if same.browser is None and browser is not None:
                    self._adopt(same, browser)
                return future
            queue = self._queues.get(browser, ())
            if browser is not None:       # None: the server's own work, never refused
                if not self.allowance.allowed(browser):
                    raise QueueFull("You are asking faster than the models can answer; wait a moment, "
                                    "then try again.")
                if len(queue) >= self.max_pending:
                    raise QueueFull("Still working on your earlier requests; wait for them to finish, "
                                    "then try again.")
                if self._total() >= self.max_total:
                    raise QueueFull("The models are busy with the whole class's requests; "
                                    "try again in a few seconds.")
            job = _Job(fn, args, kwargs, key, browser)
            job.waiters.append((future, session))
            if browser is not None:
                self._addresses[browser] = address
                self._addresses.move_to_end(browser)
                bound(self._addresses)
            self._enqueue(job)
            if key is not None:
                self._waiting[key] = job
            self._ready.notify()
        return future

    def _enqueue(self, job: _Job, first: bool = False) -> None:
        """Put `job` in its browser's queue, opening the queue if needed (call under the lock)."""
        if job.browser not in self._queues:
            self._queues[job.browser] = deque()
            self._arrivals += 1
            self._arrival[job.browser] = self._arrivals
        (self._queues[job.browser].appendleft if first else self._queues[job.browser].append)(job)

    def _adopt(self, job: _Job, browser) -> None:
        """The server's waiting job goes on `browser`'s turn, who asked for the same (call under the lock)."""
        self._queues[None].remove(job)
        if not self._queues[None]:
            del self._queues[None], self._arrival[None]
        job.browser = browser
        self._enqueue(job)

    def used(self, browser, now: float | None = None) -> float:
        """`browser`'s recent model work in seconds (RecentUse.used)."""
        return self.use.used(browser, now)

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

        A job someone else also waits for still runs for them; a job nobody waits for leaves the queue
        (a parked long job is closed).
        """
        cancelled, closed = [], []
        with self._ready:
            for browser in list(self._queues):
                kept = deque()
                for job in self._queues[browser]:
                    cancelled += [future for future, s in job.waiters if s == session]
                    job.waiters = [w for w in job.waiters if w[1] != session]
                    if job.waiters:
                        kept.append(job)
                    else:
                        if self._waiting.get(job.key) is job:
                            del self._waiting[job.key]
                        if job.steps is not None:
                            closed.append(job.steps)
                if kept:
                    self._queues[browser] = kept
                else:
                    del self._queues[browser], self._arrival[browser]
        for future in cancelled:
            if not future.cancel():        # a parked long job's futures are already running
                future.set_exception(CancelledError())
        for steps in closed:
            steps.close()
        return len(cancelled)

    def _next(self) -> _Job | None:
        """The first job of the waiting browser with the least recent use (the earliest on a tie);
        None once closed."""
        with self._ready:
            while True:
                while not self._queues and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return None
                # Students first: the server's own work waits until browsers have been quiet a while,
                # so a click that comes a moment after another finds the worker free.
                left = self.quiet - (self._timer() - self._browser_seen)
                if list(self._queues) != [None] or left <= 0:
                    break
                self._ready.wait(left)
            now = self._timer()
            browser = min(self._queues, key=lambda b: (b is None, self.use.used(self._address_key(b), now),
                                                       self.use.used(b, now), self._arrival[b]))
            queue = self._queues[browser]
            job = queue.popleft()
            if not queue:
                del self._queues[browser], self._arrival[browser]
            if self._waiting.get(job.key) is job:
                del self._waiting[job.key]  # running: a new request for it queues anew
            return job

    def _address_key(self, browser):
        """What a browser's address is charged under (a browser of unknown address: itself)."""
        address = self._addresses.get(browser, "")
        return ("address", address) if address else browser

    def _should_step_aside(self, browser) -> bool:
        """Another browser waits that has used the worker `step_aside` seconds less recently (any
        browser, when the job is the server's own): compared by client address when theirs differ,
        else by browser."""
        now = self._timer()
        with self._ready:
            if browser is None:
                return any(b is not None for b in self._queues)
            mine = self._address_key(browser)

            def fresher(b) -> bool:
                theirs = self._address_key(b)
                mine_key, their_key = (mine, theirs) if theirs != mine else (browser, b)
                return self.use.used(their_key, now) + self.step_aside < self.use.used(mine_key, now)
            return any(fresher(b) for b in self._queues if b != browser)

    def _work(self):
        while (job := self._next()) is not None:
            if not job.start():
                continue
            while True:
                start = self._timer()
                finished = job.step()
                with self._ready:
                    spent = self._timer() - start
                    self.use.charge(job.browser, spent)
                    if self._address_key(job.browser) != job.browser:
                        self.use.charge(self._address_key(job.browser), spent)
                    if job.browser is not None:
                        self._browser_seen = self._timer()
                if finished or self._closed or self._should_step_aside(job.browser):
                    break
            if not finished:               # parked: it resumes when its browser's turn comes again
                with self._ready:
                    self._enqueue(job, first=True)
