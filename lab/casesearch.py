"""Finding the case a question asks about: a round in which every draft is kept.

At temperature 1 a round that keeps all γ drafts happens with probability about α^γ, so a student
stepping through a few rounds may never see one. `find_all_kept` tries seeds in turn — the same
seeded speculative generation a page would make, so the round it names is the one the page shows
when it asks for that seed — and stops at the first round where all γ drafts were kept.

    found = find_all_kept(pair, ids, settings=SamplingSettings(1.0), gamma=4, max_new_tokens=16)
    if found.seed is not None:     # engine.generate(..., seed=found.seed).rounds[found.index] keeps all 4
        ...
    else:                          # found.tried seeds had none; a later search may go on from there
        find_all_kept(..., first_seed=0 + found.tried)
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from lab.engine import Decoder
from lab.sampling import SamplingSettings
from lab.trace import RoundTrace

MAX_SEEDS = 200       # seeds tried before saying no round kept everything
MAX_SECONDS = 10.0    # ... or this long a search, so a slow pair keeps the page (and the queue) moving


@dataclass(frozen=True)
class Found:
    """Where the case is: a seed and a round index (both None when none was found), how many seeds
    were tried (a seed cut short by the time limit is not counted), and whether time ran out."""
    seed: int | None
    index: int | None
    tried: int
    timed_out: bool = False


def keeps_all(r: RoundTrace, gamma: int) -> bool:
    """Round r drafted the full γ tokens and kept every one."""
    return r.gamma == gamma and gamma > 0 and r.n_accepted == gamma


def find_all_kept(pair, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int,
                  max_new_tokens: int, first_seed: int = 0, max_seeds: int = MAX_SEEDS,
                  max_seconds: float = MAX_SECONDS, drafter: str | None = "model",
                  clock=time.monotonic) -> Found:
    """The first seed (from `first_seed` on) and round index whose round keeps all γ drafts of the
    seeded speculative generation; Found(None, None, tried) after `max_seeds` seeds without one, or
    Found(None, None, tried, timed_out=True) when `max_seconds` ran out first."""
    deadline = clock() + max_seconds
    for tried, seed in enumerate(range(first_seed, first_seed + max_seeds)):
        decoder = Decoder(pair, list(prompt_ids), settings=settings, gamma=gamma, seed=seed,
                          max_new_tokens=max_new_tokens, keep_rows=False, drafter=drafter, display_top=0)
        while not decoder.done:
            if clock() > deadline:
                return Found(None, None, tried, timed_out=True)
            r = decoder.step()
            if keeps_all(r, gamma):
                return Found(seed, r.index, tried + 1)
    return Found(None, None, max_seeds)
