"""Chapter 1's race, computed so a page can show it growing while the models work.

Both writers decode plain, one token per call, each on its own `Decoder`. The calls are made in the
order of the race's own clock — always the writer whose measured time so far is smaller — so after
every call the race is known up to the moment `frontier` where the slower-to-date writer stands,
and a page can draw it to there. When both have finished, the draft's tokens are scored by the
target (teacher-forced) and the finished `Race` is returned; it is the race ModelService.race makes
(the same seeded traces), with the calls timed as they ran.

    race = stream_race(pair, ids, GREEDY, 20, on_progress=lambda partial, t: show(partial, t))
"""
from __future__ import annotations

import math

from lab import compare
from lab.engine import Decoder
from lab.sampling import SamplingSettings
from lab.timeline import Race


def partial_race(big: Decoder, small: Decoder) -> Race:
    """The race so far; the target's probabilities of the draft's words are not known yet (NaN)."""
    small_trace = small.trace()
    return Race.of(big.trace(), small_trace, [math.nan] * len(small_trace.new_ids))


def stream_race(pair, prompt_ids: list[int], settings: SamplingSettings, n_tokens: int,
                on_progress=None) -> Race:
    """Both models write `n_tokens` alone; `on_progress(partial_race, frontier_seconds)` after each
    call but the last. Call on the model worker."""
    lanes = [Decoder(pair, list(prompt_ids), mode="plain", settings=settings, max_new_tokens=n_tokens,
                     writer=writer, keep_rows=False, display_top=0) for writer in ("target", "draft")]
    clocks = [0.0, 0.0]
    while not all(d.done for d in lanes):
        i = min((k for k in range(2) if not lanes[k].done), key=lambda k: clocks[k])
        clocks[i] += lanes[i].step().target_seconds
        if on_progress is not None and not all(d.done for d in lanes):
            frontier = min(clocks[k] for k in range(2) if not lanes[k].done)
            on_progress(partial_race(*lanes), frontier)
    big, small = (d.trace() for d in lanes)
    p = (compare.token_probability(pair, list(prompt_ids), small.new_ids, compare.RAW)
         if small.new_ids else [])
    return Race.of(big, small, p)


def race_key(prompt_ids: list[int], settings: SamplingSettings, n_tokens: int) -> tuple:
    """The service-cache key of a streamed race (ModelService.cached adds the pair's name)."""
    return ("streamed-race", tuple(prompt_ids), settings, n_tokens)


def cached_race(service, prompt_ids: list[int], settings: SamplingSettings, n_tokens: int,
                on_progress=None) -> Race:
    """The race from the service's cache (no progress: it is already whole), else streamed and kept."""
    return service.cached(race_key(prompt_ids, settings, n_tokens),
                          lambda: stream_race(service.pair, prompt_ids, settings, n_tokens, on_progress))
