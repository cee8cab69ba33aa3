"""All model work of the server process goes through one `ModelService`.

One worker thread runs model work, off the web server's event loop, taking jobs per browser
round-robin (serving.workqueue.FairQueue). Each browser may have `max_pending` jobs
waiting and ask `rate` times a second (`burst` at once), and the whole server `max_total` jobs;
past any of these, `QueueFull` says so in one sentence.
Identical requests are computed once: one waiting in the queue is shared by everyone who asks for it
meanwhile, and results are kept in a bounded cache: a request's outcome (lab.speed.request: both
generations priced by the pair's cost profile) is computed once for the class. Pages call every method below through `run_as`, so even a million Monte-Carlo draws never
hold the event loop the class shares. Requests that involve the draft take the student's `draft`
("aligned", "weak" or "random", lab.pairs.variants), and their cache keys hold it; every draft shares the
one target.

    service = ModelService(get_pair)
    owner = Owner(browser_id, session_id)        # queued under the browser, dropped with the session
    trace = await service.run_as(owner, service.generation_steps, ids)   # from a Panel callback
    trace = await service.run_as(owner, service.generation_steps, ids, draft="random")
    outcome = await service.run_as(owner, service.outcome, Request(tuple(ids), drafter="lookup"))

Several server processes (shell.store): each holds its own copy of the pair and its own worker
(about 1.3 GB a process with the embedded pair), and `share(values)` makes what every page must
agree on one for the whole class: the cost profile (the first one measured is adopted by every
process, and the auto draft-length policy prices with it) and each request's outcome (computed by
one process, read by the others). Everything else stays per process: it is the same in every one.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future

import numpy as np

from lab import records
from lab.experiments import compare
from lab.speed import costs, measure
from lab.speed.costs import CostProfile
from lab.core import engine, montecarlo
from lab.speed.request import Outcome, Request
from lab.core.sampling import SamplingSettings
from lab.speed.timeline import Race
from lab.core.trace import RoundTrace
from lab.pairs.variants import DraftVariants

from serving.workqueue import BURST, MAX_PENDING, MAX_TOTAL, RATE, FairQueue, Owner, QueueFull  # noqa: F401  Owner, QueueFull: for pages

log = logging.getLogger(__name__)

_MISSING = object()     # peek's default where a cached value may be anything
SHARED = ("outcome",)   # cache entries the serving processes share (their first key), when sharing


def _shared_value(row: tuple[int, bytes], kind: type):
    """The `kind` another process shared in `row` (version, JSON record), or None (logged) when the
    row holds anything else: the store's rows are data, never code (lab.records)."""
    try:
        value = records.loads(row[1])
    except ValueError as exc:
        log.warning("A shared value in the class store was not a lab record and was ignored (%s).", exc)
        return None
    if not isinstance(value, kind):
        log.warning("A shared value in the class store was a %s, not a %s, and was ignored.",
                    type(value).__name__, kind.__name__)
        return None
    return value


class _LiveRounds:
    """A generation's rounds so far, and the decoder that makes the next (None once finished)."""

    def __init__(self, decoder):
        self.decoder, self.rounds = decoder, []


class _SharedRounds:
    """Generations stepped round by round, one `Decoder` per key, the `size` most recently used
    kept (each holds two KV caches: a small bound). Worker only: one thread steps a decoder."""

    def __init__(self, size: int):
        self._live: OrderedDict = OrderedDict()
        self._size = size

    def round(self, key: tuple, index: int, make_decoder) -> tuple[RoundTrace, bool]:
        """Round `index` of the generation `key` (made by `make_decoder()` when new or evicted), and
        whether it was the last one."""
        live = self._live.get(key)
        if live is None:            # new (or evicted: rebuilt, and seeded, it makes the same rounds again)
            live = self._live[key] = _LiveRounds(make_decoder())
        self._live.move_to_end(key)
        while len(self._live) > self._size:
            self._live.popitem(last=False)
        while len(live.rounds) <= index:
            if live.decoder is None:
                raise IndexError(f"this generation has only {len(live.rounds)} rounds")
            live.rounds.append(live.decoder.step())
            if live.decoder.done:
                live.decoder = None        # finished: keep its rounds, free its caches
        return live.rounds[index], live.decoder is None and index == len(live.rounds) - 1

    def __iter__(self):
        return iter(list(self._live))   # the keys of the generations kept

    def clear(self) -> None:
        self._live.clear()


class ModelService:
    def __init__(self, pair_provider, cache_size: int = 256, max_pending: int = MAX_PENDING,
                 max_total: int = MAX_TOTAL, live_rounds: int = 24, clock=time.monotonic,
                 rate: float = RATE, burst: int = BURST):
        self._pair_provider = pair_provider
        self._queue = FairQueue(max_pending, max_total, rate, burst, clock)
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = cache_size
        self._rounds = _SharedRounds(live_rounds)
        self._lock = threading.Lock()
        self.variants = DraftVariants()              # the student's draft: aligned, weak or random
        self.shared = None          # the class's shared values (several processes), see `share`
        self._profiles: dict[str, tuple[int, object]] = {}   # shared key -> (version seen, profile)

    def share(self, values) -> None:
        """Share outcomes and the cost profile with the class's other serving processes through
        `values` (get(key) -> (version, bytes) | None, put(key, bytes) -> version, drop(prefix));
        call `share_profiles()` now and then (shell.store's watch thread does)."""
        self.shared = values

    @staticmethod
    def _shared_key(key: tuple) -> str:
        return f"{key[1]}:" + hashlib.sha256(repr(key).encode()).hexdigest()

    def share_profiles(self) -> None:
        """Adopt a cost profile another process published since the last look; publish one measured
        here that nobody has (or measured again here). Every process then prices with one profile."""
        from lab.pairs.variants import VARIANTS
        pair = self.pair
        for draft in VARIANTS:
            loaded = self.variants.loaded(pair, draft)
            if loaded is None:
                continue
            key = f"profile:{pair.name}:{draft}"
            seen_version, seen = self._profiles.get(key, (0, None))
            row = self.shared.get(key)
            if row is not None and row[0] != seen_version:
                theirs = _shared_value(row, CostProfile)
                if theirs is None:
                    self._profiles[key] = (row[0], seen)
                    continue
                costs.adopt(loaded, theirs)
                self._profiles[key] = (row[0], theirs)
                continue
            mine = costs.already_measured(self, draft)
            if mine is not None and mine is not seen:
                self._profiles[key] = (self.shared.put(key, records.dumps(mine).encode()), mine)

    @property
    def pair(self):
        return self._pair_provider()

    def pair_for(self, draft: str = "aligned"):
        """The pair drafting with `draft` (lab.pairs.variants), sharing its target; a teaching draft loads on
        first use, so call from the worker. ValueError (one sentence) for a draft this pair lacks."""
        return self.variants.pair(self.pair, draft)

    def submit(self, fn, *args, owner=None, **kwargs) -> Future:
        """Queue `fn(*args, **kwargs)` on the model worker for `owner` (an `Owner`, or None: the server)."""
        return self._queue.submit(owner, fn, args, kwargs)

    async def run(self, fn, *args, **kwargs):
        """Await `fn(*args, **kwargs)` on the model worker without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    async def run_as(self, owner, fn, *args, **kwargs):
        """Like `run`, queued fairly among `owner`'s peers (raises QueueFull past the limit)."""
        return await asyncio.wrap_future(self.submit(fn, *args, owner=owner, **kwargs))

    def forget(self, session) -> int:
        """A session closed: drop the work only it was waiting for."""
        return self._queue.forget(session)

    def pending(self, owner=None) -> int:
        return self._queue.pending(owner)

    def peek(self, key: tuple, default=None):
        """The cached value of `key` (marked recently used), or `default`."""
        key = (self.pair.name,) + key
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        if self.shared is not None and key[1] in SHARED:      # another process may have computed it
            row = self.shared.get(self._shared_key(key))
            value = None if row is None else _shared_value(row, object)
            if value is not None:
                self._keep(key, value)
                return value
        return default

    def _keep(self, key: tuple, value) -> None:
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def cached(self, key: tuple, compute):
        """`compute()` once per key (within the bounded cache); call from the worker."""
        value = self.peek(key, _MISSING)
        if value is not _MISSING:
            return value
        value = compute()
        key = (self.pair.name,) + key
        self._keep(key, value)
        if self.shared is not None and key[1] in SHARED:
            self.shared.put(self._shared_key(key), records.dumps(value).encode())
        return value

    def clear(self, shared: bool = True) -> None:
        """Forget every result (and the teaching drafts); `shared`: the class's shared ones too."""
        with self._lock:
            self._cache.clear()
            self._rounds.clear()
        self.variants.clear()
        if shared and self.shared is not None:
            self.shared.drop("outcome:")

    # The requests pages make, each cached by its full description; `draft` is the student's
    # (lab.pairs.variants: "aligned", "weak" or "random").
    def generation_steps(self, prompt_ids: list[int], *, mode="speculative", settings=SamplingSettings(), gamma=4,
                         seed=0, max_new_tokens=20, writer="target", keep_rows=False, drafter=None,
                         draft="aligned", policy=None):
        """A whole generation, cached, as a long job: a generator the worker runs a round at a time,
        so a page (or the warm-up) asking for a long one lets a browser that has used the worker less
        recently go between rounds (serving.workqueue). `drafter` and `policy` None draft as the pair does
        (lab.pairs.load.ModelPair)."""
        if mode == "plain" and writer == "target":
            draft = "aligned"               # the target writing alone: the same text whatever the draft
        key = ("generation", tuple(prompt_ids), mode, settings, gamma, seed, max_new_tokens, writer, keep_rows,
               drafter, policy, draft)
        kept = self.peek(key, _MISSING)
        if kept is not _MISSING:
            return kept
        decoder = engine.Decoder(
            self.pair_for(draft), list(prompt_ids), mode=mode, settings=settings, gamma=gamma, seed=seed,
            max_new_tokens=max_new_tokens, writer=writer, keep_rows=keep_rows, drafter=drafter, policy=policy)
        while not decoder.done:
            yield                             # others may go first: a round at a time
            kept = self.peek(key, _MISSING)   # finished meanwhile by another job (one that went between)
            if kept is not _MISSING:
                return kept
            decoder.step()
        return self.cached(key, decoder.trace)

    def generation(self, prompt_ids: list[int], *, draft="aligned", **kwargs):
        """A whole generation, at once (`generation_steps`' arguments); for code already on the worker."""
        return measure.run_to_end(self.generation_steps(prompt_ids, draft=draft, **kwargs))

    def round(self, prompt_ids: list[int], index: int, *, settings=SamplingSettings(), gamma=4, seed=0,
              max_new_tokens=48, draft="aligned", policy=None, drafter=None) -> tuple[RoundTrace, bool]:
        """Round `index` of a speculative generation, and whether it was the last one.

        Rounds are made one at a time, when a page first asks for them, by one `Decoder` per
        (pair, draft, prompt, settings, γ, seed, drafting) shared by every page that asks: a class on the default
        prompt computes each round once. Seeded, so the rounds are what a page's own decoder would
        make. Call from the worker (one thread steps a decoder at a time).
        """
        key = (self.pair.name, draft, tuple(prompt_ids), settings, gamma, seed, max_new_tokens, policy, drafter)
        return self._rounds.round(key, index, lambda: engine.Decoder(
            self.pair_for(draft), list(prompt_ids), gamma=gamma, settings=settings, seed=seed,
            max_new_tokens=max_new_tokens, keep_rows=False, policy=policy, drafter=drafter))

    def first_guesses(self, prompt_ids: list[int], target_ids: list[int], draft="aligned"):
        key = ("first_guesses", tuple(prompt_ids), tuple(target_ids), draft)
        return self.cached(key, lambda: compare.first_guesses(self.pair_for(draft), list(prompt_ids), list(target_ids)))

    def next_token_distributions(self, prompt_ids: list[int], settings=compare.RAW, draft="aligned"):
        key = ("next_token", tuple(prompt_ids), settings, draft)
        return self.cached(key, lambda: compare.next_token_distributions(self.pair_for(draft), list(prompt_ids),
                                                                         settings))

    def race(self, prompt_ids: list[int], settings=SamplingSettings(), n_tokens: int = 20, draft="aligned") -> Race:
        """Both models decode `n_tokens` alone (chapter 1), each call priced by the pair's cost profile;
        the draft's text scored by the target."""
        def lane(writer):
            return self.generation(prompt_ids, mode="plain", settings=settings, max_new_tokens=n_tokens,
                                   writer=writer, draft=draft)
        big, small = lane("target"), lane("draft")
        p = (compare.token_probability(self.pair, list(prompt_ids), small.new_ids, compare.RAW)
             if small.new_ids else [])
        return Race.of(big, small, p, costs.of_service(self, draft))

    def outcome(self, request: Request):
        """The request decoded plainly and with its drafting, priced by the pair's one cost profile
        (lab.speed.request.Outcome): every page showing this request shows these figures. Cached per request
        and profile; a long job (a generator the worker runs a round at a time) whose generations are
        `generation_steps`', shared with every page that asks for them."""
        profile = costs.of_service(self, request.draft)
        key = ("outcome", request, profile)
        kept = self.peek(key, _MISSING)
        if kept is not _MISSING:
            return kept
        ids = list(request.prompt_ids)
        plain = yield from self.generation_steps(ids, **request.plain())
        spec = yield from self.generation_steps(ids, **request.generation())
        return self.cached(key, lambda: Outcome.of(request, plain, spec, profile, self._priced_before(request, profile)))

    def _priced_before(self, request: Request, profile) -> Outcome | None:
        """The newest cached outcome of `request` priced by another profile than `profile` (the
        machine has been re-timed since), or None: the page names the figure it replaces."""
        with self._lock:
            for key, value in reversed(self._cache.items()):
                if key[1:3] == ("outcome", request) and key[3] != profile:
                    return value
        return None

    def monte_carlo(self, p: np.ndarray, q: np.ndarray, rule: str, n: int, seed: int = 0) -> np.ndarray:
        """Counts per token of `n` seeded rounds of accept + correct under `rule` (lab.core.montecarlo)."""
        return montecarlo.simulate(p, q, rule, n, seed=seed)
