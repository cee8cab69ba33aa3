"""All model work of the server process goes through one `ModelService`.

Torch on a 2-core laptop gains nothing from two forward passes at once, so one worker thread runs
model work, off the web server's event loop. Jobs are queued per owner (one browser session) and
taken round-robin, so one student's long generation never makes another wait behind all of it;
identical requests (same pair, prompt, settings, seed) are computed once and served from a bounded
cache, and a live timing is shared while it is fresh. Pages call every method below through
`run_as`, so even a million Monte-Carlo draws never hold the event loop the class shares.

    service = ModelService(get_pair)
    trace = await service.run_as(session_id, service.generation, ids)   # from a Panel callback
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future

import numpy as np

from lab import compare, engine, montecarlo, timing
from lab.sampling import SamplingSettings
from lab.timeline import Race
from lab.trace import RoundTrace

FRESH_SECONDS = 30   # a whole class pressing "Measure" at once shares one measurement this young


class QueueFull(RuntimeError):
    """An owner asked for more model work while earlier requests were still waiting."""


class FairQueue:
    """Per-owner FIFO queues served round-robin by one worker thread."""

    def __init__(self, max_pending: int):
        self.max_pending = max_pending
        self._queues: OrderedDict[object, deque] = OrderedDict()   # rotation order = dict order
        self._ready = threading.Condition()
        self._worker = threading.Thread(target=self._work, name="model-worker", daemon=True)
        self._worker.start()

    def submit(self, owner, fn, args, kwargs) -> Future:
        future: Future = Future()
        with self._ready:
            queue = self._queues.setdefault(owner, deque())
            if owner is not None and len(queue) >= self.max_pending:   # None: the server's own work
                raise QueueFull("Still working on your earlier requests; wait for them to finish, "
                                "then try again.")
            queue.append((future, fn, args, kwargs))
            self._ready.notify()
        return future

    def pending(self, owner=None) -> int:
        with self._ready:
            if owner is not None:
                return len(self._queues.get(owner, ()))
            return sum(len(q) for q in self._queues.values())

    def forget(self, owner) -> int:
        """Drop an owner's waiting jobs (their session closed); returns how many were dropped."""
        with self._ready:
            queue = self._queues.pop(owner, deque())
        for future, *_ in queue:
            future.cancel()
        return len(queue)

    def _next(self):
        with self._ready:
            while not self._queues:
                self._ready.wait()
            owner, queue = next(iter(self._queues.items()))
            job = queue.popleft()
            del self._queues[owner]
            if queue:                      # back of the rotation: everyone else goes first
                self._queues[owner] = queue
            return job

    def _work(self):
        while True:
            future, fn, args, kwargs = self._next()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as err:   # handed to the awaiting callback, never lost
                future.set_exception(err)


class _LiveRounds:
    """A generation's rounds so far, and the decoder that makes the next (None once finished)."""

    def __init__(self, decoder):
        self.decoder, self.rounds = decoder, []


class ModelService:
    def __init__(self, pair_provider, cache_size: int = 256, max_pending: int = 3, live_rounds: int = 24,
                 clock=time.monotonic):
        self._pair_provider = pair_provider
        self._clock = clock
        self._timings: dict = {}                     # (pair, prompt, positions) → (measured at, costs)
        self._queue = FairQueue(max_pending)
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = cache_size
        self._rounds: OrderedDict = OrderedDict()    # generations stepped round by round (worker only)
        self._rounds_size = live_rounds              # each holds two KV caches: a small bound
        self._lock = threading.Lock()

    @property
    def pair(self):
        return self._pair_provider()

    def submit(self, fn, *args, owner=None, **kwargs) -> Future:
        """Queue `fn(*args, **kwargs)` on the model worker for `owner` (None: a shared owner)."""
        return self._queue.submit(owner, fn, args, kwargs)

    async def run(self, fn, *args, **kwargs):
        """Await `fn(*args, **kwargs)` on the model worker without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    async def run_as(self, owner, fn, *args, **kwargs):
        """Like `run`, queued fairly among `owner`'s peers (raises QueueFull past the limit)."""
        return await asyncio.wrap_future(self.submit(fn, *args, owner=owner, **kwargs))

    def forget(self, owner) -> int:
        """A session closed: drop its waiting work."""
        return self._queue.forget(owner)

    def pending(self, owner=None) -> int:
        return self._queue.pending(owner)

    def cached(self, key: tuple, compute):
        """`compute()` once per key (within the bounded cache); call from the worker."""
        key = (self.pair.name,) + key
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()
            self._rounds.clear()
            self._timings.clear()

    # The requests pages make, each cached by its full description.
    def generation(self, prompt_ids: list[int], *, mode="speculative", settings=SamplingSettings(),
                   gamma=4, seed=0, max_new_tokens=20, writer="target", keep_rows=False):
        key = ("generation", tuple(prompt_ids), mode, settings, gamma, seed, max_new_tokens, writer, keep_rows)
        return self.cached(key, lambda: engine.generate(
            self.pair, list(prompt_ids), mode=mode, settings=settings, gamma=gamma, seed=seed,
            max_new_tokens=max_new_tokens, writer=writer, keep_rows=keep_rows))

    def round(self, prompt_ids: list[int], index: int, *, settings=SamplingSettings(), gamma=4, seed=0,
              max_new_tokens=48) -> tuple[RoundTrace, bool]:
        """Round `index` of a speculative generation, and whether it was the last one.

        Rounds are made one at a time, when a page first asks for them, by one `Decoder` per
        (pair, prompt, settings, γ, seed) shared by every page that asks: a class on the default
        prompt computes each round once. Seeded, so the rounds are what a page's own decoder would
        make. Call from the worker (one thread steps a decoder at a time).
        """
        key = (self.pair.name, tuple(prompt_ids), settings, gamma, seed, max_new_tokens)
        live = self._rounds.get(key)
        if live is None:            # new (or evicted: rebuilt, and seeded, it makes the same rounds again)
            live = self._rounds[key] = _LiveRounds(engine.Decoder(
                self.pair, list(prompt_ids), gamma=gamma, settings=settings, seed=seed,
                max_new_tokens=max_new_tokens, keep_rows=False))
        self._rounds.move_to_end(key)
        while len(self._rounds) > self._rounds_size:
            self._rounds.popitem(last=False)
        while len(live.rounds) <= index:
            if live.decoder is None:
                raise IndexError(f"this generation has only {len(live.rounds)} rounds")
            live.rounds.append(live.decoder.step())
            if live.decoder.done:
                live.decoder = None        # finished: keep its rounds, free its caches
        return live.rounds[index], live.decoder is None and index == len(live.rounds) - 1

    def first_guesses(self, prompt_ids: list[int], target_ids: list[int]):
        key = ("first_guesses", tuple(prompt_ids), tuple(target_ids))
        return self.cached(key, lambda: compare.first_guesses(self.pair, list(prompt_ids), list(target_ids)))

    def next_token_distributions(self, prompt_ids: list[int], settings=compare.RAW):
        key = ("next_token", tuple(prompt_ids), settings)
        return self.cached(key, lambda: compare.next_token_distributions(self.pair, list(prompt_ids), settings))

    def race(self, prompt_ids: list[int], settings=SamplingSettings(), n_tokens: int = 20) -> Race:
        """Both models decode `n_tokens` alone (chapter 1); the draft's text scored by the target."""
        def lane(writer):
            return self.generation(prompt_ids, mode="plain", settings=settings, max_new_tokens=n_tokens,
                                   writer=writer)
        big, small = lane("target"), lane("draft")
        p = (compare.token_probability(self.pair, list(prompt_ids), small.new_ids, compare.RAW)
             if small.new_ids else [])
        return Race.of(big, small, p)

    def verify_costs(self, prompt_ids: list[int], max_positions: int = 8):
        """A live timing of one target call over 1…max_positions positions, and its age in seconds.

        Timing is live by design, so students see this machine now; but a measurement younger than
        FRESH_SECONDS is shared, so thirty students pressing Measure queue one timing, not thirty.
        """
        key = (self.pair.name, tuple(prompt_ids), max_positions)
        with self._lock:
            hit = self._timings.get(key)
        now = self._clock()
        if hit is not None and now - hit[0] < FRESH_SECONDS:
            return now - hit[0], hit[1]
        costs = timing.verify_costs(self.pair, list(prompt_ids), max_positions)
        with self._lock:
            self._timings[key] = (self._clock(), costs)
        return 0.0, costs

    def monte_carlo(self, p: np.ndarray, q: np.ndarray, rule: str, n: int, seed: int = 0) -> np.ndarray:
        """Counts per token of `n` seeded rounds of accept + correct under `rule` (lab.montecarlo)."""
        return montecarlo.simulate(p, q, rule, n, seed=seed)
