"""One cost profile per model pair, measured once and shared by every caller of one cache; a profile
another serving process measured can be adopted, so the whole class prices with one.

    cache = ProfileCache(measure, measure_steps)   # how to time a pair at once, or a call at a time
    cache.profile(pair)                # measured on the first call; later callers get the same object
    yield from cache.profile_steps(pair)    # the same, as a model-worker job that yields between calls
    cache.finished(pair)               # that very pair's profile, or None: never waits
    cache.measured(pair)               # the profile of these two models, or None: never waits
    cache.adopt(pair, theirs)          # another process's profile of this pair, as if measured here

No cache lives in a module: a server's is its model service's (serving.serviceprofiles.ServiceProfiles,
measuring with lab.speed.costs.measure_profile), and the decoder is handed a profile, never reaches
for one. The cache knows pairs by identity (a weak reference: a dropped pair's profile goes with
it). A measurement that fails is not kept (the next caller measures again); one flagged busy is
measured again when a caller asks `retry_busy` over RETRY_AFTER seconds after it was timed.
"""
from __future__ import annotations

import threading
import time
import weakref
from concurrent.futures import Future

RETRY_AFTER = 30                   # seconds before a busy profile may be measured again


class _Steps:
    """A shared measurement going a timed call at a time (`profile_steps`). A job that steps aside
    leaves it parked; whoever needs the profile meanwhile advances it, so no caller waits on a job
    parked behind it on the one model worker."""

    def __init__(self, steps, future: Future, on_error):
        self.steps, self.future, self.on_error = steps, future, on_error
        self.lock = threading.Lock()

    def advance(self) -> None:
        with self.lock:
            if self.future.done():
                return
            try:
                next(self.steps)
            except StopIteration as done:
                self.future.set_result(done.value)
            except BaseException as err:       # the next caller measures again
                self.on_error()
                self.future.set_exception(err)


class ProfileCache:
    """The cost profile of each pair, measured by `measure(pair)` (or `measure_steps(pair)`, a
    generator yielding between timed calls and returning the profile) once, and shared."""

    def __init__(self, measure, measure_steps, clock=time.monotonic):
        self._measure, self._measure_steps, self._clock = measure, measure_steps, clock
        self._lock = threading.Lock()
        self._entries: dict[tuple[int, str], tuple[weakref.ref, Future, _Steps | None]] = {}
        self._kept: dict[tuple[int, str], object] = {}   # a busy profile, priced with while timed again

    def _drop(self, key, future: Future) -> None:
        """A measurement failed: the next caller measures again, or prices with the busy profile it was
        to replace."""
        with self._lock:
            ref, mine, _ = self._entries.get(key, (None, None, None))
            if mine is future:
                del self._entries[key]
                if (kept := self._kept.pop(key, None)) is not None:
                    self._entries[key] = (ref, _done(kept), None)

    def _still_kept(self, key, future: Future):
        """The busy profile the unfinished `future` is timing again, or None."""
        with self._lock:
            return None if future.done() else self._kept.get(key)

    def _claim(self, pair, retry_busy: bool, stepwise: bool):
        """(future, steps, mine): the shared measurement of `pair`, a new one (mine) when there is
        none or `retry_busy` asks for it; `steps` when it goes a call at a time."""
        key = (id(pair), pair.name)
        with self._lock:
            ref, future, steps = self._entries.get(key, (None, None, None))
            stale = future is None or ref() is not pair or (
                retry_busy and future.done() and future.exception() is None and future.result().busy
                and self._clock() - future.result().measured_at > RETRY_AFTER)
            if stale:
                if future is not None and ref() is pair:       # timed again: kept for the others meanwhile
                    self._kept[key] = future.result()
                else:
                    self._kept.pop(key, None)
                future = Future()
                steps = (_Steps(self._measure_steps(pair), future, lambda f=future: self._drop(key, f))
                         if stepwise else None)
                self._entries[key] = (weakref.ref(pair), future, steps)
        return future, steps, stale

    def profile(self, pair, *, retry_busy: bool = False):
        """The pair's cost profile: measured on the first call, shared with every later one (a caller
        arriving while it is measured waits for the same result, or finishes it when it goes a call
        at a time). `retry_busy` measures again when the shared profile was flagged busy over
        RETRY_AFTER seconds ago, and shares the new one (a class pressing "Measure" together on a
        busy machine still shares one measurement). While a busy profile is timed again, a caller not
        asking `retry_busy` gets the busy one at once (were it to finish the timing on the one model
        worker, a class would wait behind that caller)."""
        future, steps, mine = self._claim(pair, retry_busy, stepwise=False)
        if not (mine or retry_busy) and (kept := self._still_kept((id(pair), pair.name), future)) is not None:
            return kept
        if mine:
            try:
                future.set_result(self._measure(pair))
            except BaseException as err:       # the next caller measures again
                self._drop((id(pair), pair.name), future)
                future.set_exception(err)
        while steps is not None and not future.done():
            steps.advance()
        return future.result()

    def profile_steps(self, pair, *, retry_busy: bool = False):
        """`profile` as a job for the model worker that yields between timed calls and returns the
        shared profile: a student's click waits for one call, not the whole measurement."""
        future, steps, mine = self._claim(pair, retry_busy, stepwise=True)
        if not (mine or retry_busy) and (kept := self._still_kept((id(pair), pair.name), future)) is not None:
            return kept
        while steps is not None and not future.done():
            steps.advance()
            yield
        return future.result()

    def finished(self, pair):
        """The shared profile of this very pair object if measured (the busy one while it is timed
        again), else None (never waits)."""
        key = (id(pair), pair.name)
        with self._lock:
            ref, future, _ = self._entries.get(key, (None, None, None))
        if future is None or ref() is not pair:
            return None
        return _usable(future, self._still_kept(key, future))

    def measured(self, pair):
        """The shared profile of `pair`'s two models, if it is measured (for this pair object or
        another holding the same target and draft); else None. Measures nothing and never waits:
        what a caller of lab.core.engine passes for the auto draft length policy to price with."""
        with self._lock:
            entries = [(ref, future, self._kept.get(key)) for key, (ref, future, _) in self._entries.items()]
        found = [_usable(future, kept) for ref, future, kept in entries
                 if (other := ref()) is not None and other.target is pair.target and other.draft is pair.draft]
        return max((p for p in found if p is not None), key=lambda p: p.measured_at, default=None)

    def adopt(self, pair, shared) -> None:
        """Make `shared` (this pair's profile as another serving process measured it,
        serving.sharing) the profile every later caller gets for `pair`, as if measured here."""
        with self._lock:
            self._entries[(id(pair), pair.name)] = (weakref.ref(pair), _done(shared), None)
            self._kept.pop((id(pair), pair.name), None)


def _done(profile) -> Future:
    future = Future()
    future.set_result(profile)
    return future


def _usable(future: Future, kept):
    """The profile to price with now: the finished measurement's, `kept` while it runs, else None."""
    if not future.done():
        return kept
    return None if future.exception() is not None else future.result()
