"""Chapter 1's race, computed so a page can show it growing while the models work.

Both writers decode plain, one token per call, each on its own `Decoder`. The calls are made in the
order of the race's own clock — always the writer whose measured time so far is smaller — so after
every call the race is known up to the moment `frontier` where the slower-to-date writer stands,
and a page can draw it to there. Every call is priced by the pair's one cost profile (lab.speed.costs: a
target call and a draft call as chapters 3, 10 and 11 time them), never by how long it took while the
machine was busy with other work. When both have finished, the draft's tokens are scored by the
target (teacher-forced) and the finished `Race` is returned; it is the race ModelService.race makes
(the same seeded traces and prices).

    request = Request(ids, settings=GREEDY, max_new_tokens=20)        # lab.core.request
    race = stream_race(pair, request, profile, on_progress=lambda partial, t: show(partial, t))
    race = run_to_end(cached_race(service, request))   # priced by the service's profile (service.profiles)
"""
from __future__ import annotations

import math

from lab.experiments import compare
from lab.speed.costs import CostProfile
from lab.core.engine import Decoder
from lab.speed.measure import run_to_end
from lab.core.request import Request
from lab.speed.timeline import Race


def partial_race(big: Decoder, small: Decoder, profile: CostProfile) -> Race:
    """The race so far; the target's probabilities of the draft's words are not known yet (NaN)."""
    small_trace = small.trace()
    return Race.of(big.trace(), small_trace, [math.nan] * len(small_trace.new_ids), profile)


def stream_race(pair, request: Request, profile: CostProfile, on_progress=None) -> Race:
    """Both models write `request` alone (its plain decodings, `request.plain(writer)`), each call priced
    by `profile`; `on_progress(partial_race, frontier_seconds)` after each call but the last (a page's
    drawing, not part of the request). Call on the model worker."""
    return run_to_end(stream_race_steps(pair, request, profile, on_progress))


def stream_race_steps(pair, request: Request, profile: CostProfile, on_progress=None):
    """`stream_race` as a long job: a generator that yields after every call, so the model worker
    serves another student between two calls; returns the finished race."""
    lanes = [Decoder(pair, request.plain(writer), keep_rows=False, display_top=0) for writer in ("target", "draft")]
    price, clocks = (profile.unit, profile.draft_seconds), [0.0, 0.0]
    while not all(d.done for d in lanes):
        i = min((k for k in range(2) if not lanes[k].done), key=lambda k: clocks[k])
        lanes[i].step()
        clocks[i] += price[i]
        if on_progress is not None and not all(d.done for d in lanes):
            frontier = min(clocks[k] for k in range(2) if not lanes[k].done)
            on_progress(partial_race(*lanes, profile), frontier)
        yield
    big, small = (d.trace() for d in lanes)
    p = (compare.token_probability(pair, list(request.prompt_ids), small.new_ids, compare.RAW)
         if small.new_ids else [])
    return Race.of(big, small, p, profile)


def race_key(request: Request, profile: CostProfile) -> tuple:
    """The service-cache key of a streamed race (ModelService.cached adds the pair's name): the draft's
    plain decoding of the request, which names the draft variant too."""
    return ("streamed-race", request.plain("draft"), profile)


def cached_race(service, request: Request, on_progress=None):
    """The race of `request` on the pair drafting with its draft variant (lab.pairs.variants) from the
    service's cache (no progress: it is already whole), else streamed and kept; priced by that pair's
    cost profile, the service's (`service.profiles`: measured first, once per server). A long job for
    the model worker: a generator (`lab.speed.measure.run_to_end` runs it anywhere else) whose result
    is the race."""
    profile = service.profiles.of(request.variant)
    key = race_key(request, profile)
    race = service.peek(key)
    if race is None:             # a call at a time: another student's click goes between two calls
        race = yield from stream_race_steps(service.pair_for(request.variant), request, profile, on_progress)
    return service.cached(key, lambda: race)
