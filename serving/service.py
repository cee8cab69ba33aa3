"""All model work of the server process goes through one `ModelService`.

One worker thread runs model work, off the web server's event loop, taking next the job of the
waiting browser that has used the worker least recently (serving.workqueue.FairQueue). Each browser
may have `max_pending` jobs waiting and ask `rate` times a second (`burst` at once), and the whole
server `max_total` jobs; past any of these, `QueueFull` says so in one sentence.
Identical requests are computed once: one waiting in the queue is shared by everyone who asks for it
meanwhile, and results are kept in a bounded cache (serving.results): a request's outcome
(lab.speed.request: both generations priced by the pair's cost profile) is computed once for the
class. Pages call every method below through `run_as`, so even a million Monte-Carlo draws never
hold the event loop the class shares. Requests that involve the draft model take the student's draft
`variant` ("aligned", "weak" or "random", lab.pairs.variants), and their cache keys hold it; every
variant's draft model shares the one target.

    service = ModelService(lambda: pair)         # the pair to serve, asked for on every request
    owner = Owner(browser_id, session_id)        # queued under the browser, dropped with the session
    request = Request(ids, gamma=4, variant="random")  # lab.core.request: what to write and how
    trace = await service.run_as(owner, service.generation_steps, request)   # from a Panel callback
    outcome = await service.run_as(owner, service.outcome, replace(request, drafter="lookup"))
    profile = service.profiles.already_measured("weak")   # its cost profiles: serving.serviceprofiles

Several server processes (shell.store.shared): each holds its own copy of the pair and its own worker
(about 1.3 GB a process with the embedded pair), and `share(values)` makes what every page must
agree on one for the whole class: the cost profile (`profiles.sync`: the first one measured is
adopted by every process, and the auto draft length policy prices with it) and each request's
outcome (computed by one process, read by the others). Everything else stays per process: it is the
same in every one.
"""
from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future

import numpy as np

from lab.experiments import compare
from lab.speed import measure
from lab.core import engine, montecarlo
from lab.core.request import Request
from lab.speed.request import Outcome
from lab.speed.timeline import Race
from lab.core.trace import RoundTrace
from lab.pairs.variants import DraftVariants

from serving.results import MISSING, LiveRounds, ResultCache
from serving.serviceprofiles import ServiceProfiles
from serving.workqueue import BURST, MAX_PENDING, MAX_TOTAL, RATE, FairQueue, Owner, QueueFull  # noqa: F401  Owner, QueueFull: for pages


def outcome_key(request: Request, profile) -> tuple:
    """Where ModelService keeps a request's outcome priced by `profile`."""
    return ("outcome", request, profile)


def kept_outcome(service: "ModelService", request: Request):
    """The outcome `service.outcome(request)` keeps, priced by the current cost profile, or None:
    reads the cache only (measures and loads nothing), so the event loop may call it."""
    profile = service.profiles.already_measured(request.variant)
    return None if profile is None else service.peek(outcome_key(request, profile))


class ModelService:
    """The server process's model work: its queue, its pair and teaching drafts, its results."""

    def __init__(self, pair_provider, cache_size: int = 256, max_pending: int = MAX_PENDING,
                 max_total: int = MAX_TOTAL, live_rounds: int = 24, clock=time.monotonic,
                 rate: float = RATE, burst: int = BURST):
        self._pair_provider = pair_provider
        self._queue = FairQueue(max_pending, max_total, rate, burst, clock)
        self._results = ResultCache(cache_size)
        self._rounds = LiveRounds(live_rounds)
        self.variants = DraftVariants()              # the student's draft variants: aligned, weak or random
        self.profiles = ServiceProfiles(self)        # each variant's cost profile, measured once
        self.took: dict[str, float] = {}             # seconds the last job of a kind took (time-left estimates)

    def share(self, values) -> None:
        """Share outcomes and the cost profile with the class's other serving processes through
        `values` (get(key) -> (version, bytes) | None, put(key, bytes) -> version, drop(prefix));
        call `profiles.sync(values)` now and then (shell.lecturer.classwide's watch tick does)."""
        self._results.shared = values

    @property
    def pair(self):
        return self._pair_provider()

    def pair_for(self, variant: str = "aligned"):
        """The pair drafting with the draft `variant` (lab.pairs.variants), sharing its target; a teaching
        draft loads on first use, so call from the worker. ValueError (one sentence) for a variant this
        pair lacks."""
        return self.variants.pair(self.pair, variant)

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

    def idle_for(self) -> float:
        """Seconds since a student's model work last ran on the worker."""
        return self._queue.idle_for()

    def peek(self, key: tuple, default=None):
        """The cached value of `key` (marked recently used), or `default`."""
        return self._results.peek((self.pair.name,) + key, default)

    def cached(self, key: tuple, compute):
        """`compute()` once per key (within the bounded cache); call from the worker."""
        return self._results.cached((self.pair.name,) + key, compute)

    def clear(self, shared: bool = True) -> None:
        """Forget every result (and the teaching drafts); `shared`: the class's shared ones too."""
        self._results.clear(shared)
        self._rounds.clear()
        self.variants.clear()

    def _decoder(self, request: Request, keep_rows: bool = False) -> engine.Decoder:
        """A decoder of `request` on the pair drafting with its draft variant; an auto draft length policy
        prices its rounds with that pair's shared cost profile once measured (`profiles`)."""
        pair = self.pair_for(request.variant)
        return engine.Decoder(pair, request, keep_rows=keep_rows, profile=self.profiles.measured(pair))

    # The requests pages make, each cached by its request (lab.core.request.Request: its `key()`, so a
    # plain decoding is one whatever drafting asked for it); its `variant` is the student's draft
    # variant (lab.pairs.variants: "aligned", "weak" or "random").
    def generation_steps(self, request: Request, *, keep_rows: bool = False):
        """A whole generation of `request`, cached, as a long job: a generator the worker runs a round
        at a time, so a page (or the warm-up) asking for a long one lets a browser that has used the
        worker less recently go between rounds (serving.workqueue). `keep_rows` (the trace keeps each
        round's p and q rows for a page to draw) is what the trace holds, not the request: part of the
        key, not of the request."""
        key = ("generation", request.key(), keep_rows)
        kept = self.peek(key, MISSING)
        if kept is not MISSING:
            return kept
        decoder = self._decoder(request.key(), keep_rows)
        while not decoder.done:
            yield                             # others may go first: a round at a time
            kept = self.peek(key, MISSING)    # finished meanwhile by another job (one that went between)
            if kept is not MISSING:
                return kept
            decoder.step()
        return self.cached(key, decoder.trace)

    def generation(self, request: Request, *, keep_rows: bool = False):
        """A whole generation, at once (`generation_steps`' arguments); for code already on the worker."""
        return measure.run_to_end(self.generation_steps(request, keep_rows=keep_rows))

    def round(self, request: Request, index: int) -> tuple[RoundTrace, bool]:
        """Round `index` of `request`'s speculative generation, and whether it was the last one.

        Rounds are made one at a time, when a page first asks for them, by one `Decoder` per
        (pair, request) shared by every page that asks: a class on the default prompt computes each
        round once. Seeded, so the rounds are what a page's own decoder would make. Call from the
        worker (one thread steps a decoder at a time).
        """
        return self._rounds.round((self.pair.name, request.key()), index, lambda: self._decoder(request.key()))

    def first_guesses(self, prompt_ids: list[int], target_ids: list[int], variant="aligned"):
        key = ("first_guesses", tuple(prompt_ids), tuple(target_ids), variant)
        return self.cached(key, lambda: compare.first_guesses(self.pair_for(variant), list(prompt_ids), list(target_ids)))

    def next_token_distributions(self, prompt_ids: list[int], settings=compare.RAW, variant="aligned"):
        key = ("next_token", tuple(prompt_ids), settings, variant)
        return self.cached(key, lambda: compare.next_token_distributions(self.pair_for(variant), list(prompt_ids),
                                                                         settings))

    def race(self, request: Request) -> Race:
        """Both models decode `request` alone (`request.plain(writer)`, chapter 1), each call priced by
        the pair's cost profile; the draft's text scored by the target."""
        big, small = (self.generation(request.plain(writer)) for writer in ("target", "draft"))
        ids = list(request.prompt_ids)
        p = compare.token_probability(self.pair, ids, small.new_ids, compare.RAW) if small.new_ids else []
        return Race.of(big, small, p, self.profiles.of(request.variant))

    def outcome(self, request: Request):
        """The request decoded plainly and with its drafting, priced by the pair's one cost profile
        (lab.speed.request.Outcome): every page showing this request shows these figures. Cached per request
        and profile; a long job (a generator the worker runs a round at a time) whose generations are
        `generation_steps`', shared with every page that asks for them."""
        profile = self.profiles.of(request.variant)
        key = outcome_key(request, profile)
        kept = self.peek(key, MISSING)
        if kept is not MISSING:
            return kept
        plain = yield from self.generation_steps(request.plain())
        spec = yield from self.generation_steps(request)
        # The newest outcome of this request priced by another profile (the machine re-timed since):
        # the page names the figure it replaces.
        return self.cached(key, lambda: Outcome.of(request, plain, spec, profile, self._results.newest(
            lambda k: k[1:3] == ("outcome", request) and k[3] != profile)))

    def monte_carlo(self, p: np.ndarray, q: np.ndarray, rule: str, n: int, seed: int = 0) -> np.ndarray:
        """Counts per token of `n` seeded rounds of accept + correct under `rule` (lab.core.montecarlo)."""
        return montecarlo.simulate(p, q, rule, n, seed=seed)
