"""The model worker's queue: one thread, per-browser queues served by least recent use, limits that
answer in one sentence, identical waiting requests computed once, and long jobs that step aside.

Torch on a 2-core laptop gains nothing from two forward passes at once, so one worker thread runs
all model work, off the web server's event loop. Jobs are queued per browser (its signed id, so
twenty tabs of one browser get one share, not twenty). The next job is the waiting browser's whose
client address, then whose own id, has used the worker least recently: seconds of model work, halved
every HALF_LIFE seconds (first come first on a tie). So the few browsers one address may start
(shell.room.identity) share that address's turn: a script rotating cookies gains no turns over a student. A student who presses a button while one browser keeps the
worker busy goes next, and their few seconds of work run before the busy browser's next job. The
server's own work (owner None: the start-up warm-up) goes only when no browser has waited or run
for QUIET seconds (students first), unless a browser asks for the same.

A long job (a live measurement) is a generator: the worker runs it a step (one decoding round) at
a time, and after each step hands the worker to a browser waiting with STEP_ASIDE seconds less
recent use (to any browser, when the job is the server's own), parking the job at the head of its
browser's queue to resume later. A generator returns its result; its waiters see only that.
The jobs and the queues they wait in are serving.waiting's; `serving.service.ModelService` is this
queue's only user.

    queue = FairQueue()
    future = queue.submit(Owner(browser_id, session_id), fn, args, kwargs)   # QueueFull past a limit
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from concurrent.futures import CancelledError, Future

from serving.fairshare import BURST, RATE, Allowance, RecentUse  # noqa: F401  (importable from here)
from serving.waiting import Job, Owner, WaitingRoom, browser_and_session, job_key, owner_address  # noqa: F401  Owner: importable here

MAX_PENDING = 3      # waiting jobs per browser
MAX_TOTAL = 160      # waiting jobs on the whole server (a class of 40 with 3 each fits; a flood does not)
HALF_LIFE = 30.0     # seconds: a browser's model work counts half as much this long after
STEP_ASIDE = 5.0     # seconds of less recent use that make a running long job step aside
EXIT_WAIT = 3.0      # seconds the worker may take to end its step when the server stops
QUIET = 2.0          # seconds without browser work before the server's own work (the warm-up) goes on


class QueueFull(RuntimeError):
    """A browser (or the whole class) asked for more model work than may wait at once."""


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
        self._room = WaitingRoom()
        self._ready = threading.Condition()
        self._closed = False
        self._worker = threading.Thread(target=self._work, name="model-worker", daemon=True)
        self._worker.start()
        atexit.register(self.close_at_exit)

    def close(self, timeout: float = 10.0) -> None:
        """Take no more jobs; wait (at most `timeout`) for the worker to finish the job or step it is
        running and end. At exit: a worker left inside torch while Python shuts down aborts the
        process ("terminate called without an active exception")."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        if threading.current_thread() is not self._worker:
            self._worker.join(timeout)

    def close_at_exit(self, timeout: float = EXIT_WAIT) -> None:
        """At exit (Ctrl-C, SIGTERM): `close`, waiting at most `timeout` for the worker. A worker
        still inside torch then would abort the process as Python shuts down, so the process ends
        at once instead (the class's records are already written: every write commits)."""
        self.close(timeout)
        if self._worker.is_alive() and threading.current_thread() is not self._worker:
            logging.getLogger(__name__).warning(
                "stopping: the model worker was still computing after %.0f s; ended without waiting for it", timeout)
            logging.shutdown()
            os._exit(0)

    def submit(self, owner, fn, args, kwargs) -> Future:
        """Queue `fn(*args, **kwargs)` for `owner` (an Owner, or None: the server's own work); the
        future of its result. QueueFull, in one sentence, past a limit."""
        browser, session = browser_and_session(owner)
        future: Future = Future()
        key = job_key(fn, args, kwargs)
        with self._ready:
            same = self._room.same(key)
            if same is not None:          # asked for already and still waiting: computed once for all
                same.waiters.append((future, session))
                if same.browser is None and browser is not None:
                    self._room.adopt(same, browser)
                return future
            queue = self._room.queues.get(browser, ())
            if browser is not None:       # None: the server's own work, never refused
                if not self.allowance.allowed(browser):
                    raise QueueFull("You are asking faster than the models can answer; wait a moment, "
                                    "then try again.")
                if len(queue) >= self.max_pending:
                    raise QueueFull("Still working on your earlier requests; wait for them to finish, "
                                    "then try again.")
                if self._room.total() >= self.max_total:
                    raise QueueFull("The models are busy with the whole class's requests; "
                                    "try again in a few seconds.")
            job = Job(fn, args, kwargs, key, browser)
            job.waiters.append((future, session))
            self._room.add(job, owner_address(owner))
            self._ready.notify()
        return future

    def pending(self, owner=None) -> int:
        """Jobs waiting for `owner`'s browser, or on the whole server."""
        with self._ready:
            if owner is not None:
                return len(self._room.queues.get(browser_and_session(owner)[0], ()))
            return self._room.total()

    def idle_for(self) -> float:
        """Seconds since a browser's model work last ran (inf when none has yet)."""
        with self._ready:
            return self._timer() - self._browser_seen

    def forget(self, session) -> int:
        """A session (tab) closed: cancel what it was waiting for; returns how many were cancelled.

        A job someone else also waits for still runs for them; a job nobody waits for leaves the queue
        (a parked long job is closed).
        """
        with self._ready:
            cancelled, closed = self._room.drop_session(session)
        for future in cancelled:
            if not future.cancel():        # a parked long job's futures are already running
                future.set_exception(CancelledError())
        for steps in closed:
            steps.close()
        return len(cancelled)

    def _next(self) -> Job | None:
        """The first job of the waiting browser with the least recent use (the earliest on a tie);
        None once closed."""
        with self._ready:
            while True:
                while not self._room.queues and not self._closed:
                    self._ready.wait()
                if self._closed:
                    return None
                # Students first: the server's own work waits until browsers have been quiet a while,
                # so a click that comes a moment after another finds the worker free.
                left = self.quiet - (self._timer() - self._browser_seen)
                if list(self._room.queues) != [None] or left <= 0:
                    break
                self._ready.wait(left)
            now, room = self._timer(), self._room
            return room.pop(min(room.queues, key=lambda b: (b is None, self.use.used(room.address_key(b), now),
                                                            self.use.used(b, now), room.arrival[b])))

    def _should_step_aside(self, browser) -> bool:
        """Another browser waits that has used the worker `step_aside` seconds less recently (any
        browser, when the job is the server's own): compared by client address when theirs differ,
        else by browser."""
        now = self._timer()
        with self._ready:
            if browser is None:
                return any(b is not None for b in self._room.queues)
            mine = self._room.address_key(browser)

            def fresher(b) -> bool:
                theirs = self._room.address_key(b)
                mine_key, their_key = (mine, theirs) if theirs != mine else (browser, b)
                return self.use.used(their_key, now) + self.step_aside < self.use.used(mine_key, now)
            return any(fresher(b) for b in self._room.queues if b != browser)

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
                    if self._room.address_key(job.browser) != job.browser:
                        self.use.charge(self._room.address_key(job.browser), spent)
                    if job.browser is not None:
                        self._browser_seen = self._timer()
                if finished or self._closed or self._should_step_aside(job.browser):
                    break
            if not finished:               # parked: it resumes when its browser's turn comes again
                with self._ready:
                    self._room.enqueue(job, first=True)
