"""One cost profile per model pair: what a draft call, a verify pass over k positions and a prefill
take on this machine — the one story of time chapters 3, 10 and 11 tell.

    p = measure_profile(pair)         # timed now; a server measures each pair once (service.profiles)
    p.c                               # a draft call ÷ a one-position target call
    p.verify_units(5)                 # a verify pass over 5 positions, in one-position target calls
    p.speedup(0.8, 4)                 # E / (γc + v(γ + 1)): the analytic model with measured costs

Measured robustly (lab.speed.timing): a warm-up call, torch's threads fixed, every call timed in several
interleaved runs and the fastest kept, on the pair's own device (a GPU synchronised around each call:
lab.core.kv). `busy` flags a profile measured while the machine was visibly loaded (the median run
well above the fastest, or a load average above the core count): its figures are not to be trusted.
This module keeps no profile: a server's model service measures each pair's once and shares it
(serving.serviceprofiles: `service.profiles.of(variant)` on the model worker, `already_measured(variant)`
without waiting), and a caller hands the decoder (lab.core.engine) the profile the auto draft length
policy prices with (lab.core.adaptive).
"""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass

import numpy as np

from lab.core import analytic
from lab.core.kv import CachedModel
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.speed.profilecache import RETRY_AFTER  # noqa: F401  (importable here)
from lab.speed.timing import VerifyCost, fixed_threads, interleaved, robust, verify_calls

RUNS = 15                          # interleaved runs of every call, the fastest kept (5: v(5) ± 0.06, profilesteady)
POSITIONS = analytic.MAX_GAMMA + 1  # verify passes over 1..γmax + 1 positions
PREFILL_TOKENS = 64                # the prefill timed: the default prompt, repeated to this length
NOISY = 0.5                        # busy: the median run over 50% slower than the fastest


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


def load_average() -> float:
    """The machine's one-minute load average (0.0 where the system does not say)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def is_busy(spread: float, load_average: float, n_cores: int) -> bool:
    """Visibly busy: runs of one call differ by more than NOISY, or more work waits than cores run."""
    return spread > NOISY or load_average > n_cores


@dataclass(frozen=True)
class CostProfile:
    """Seconds of each kind of call of one pair on this machine, and how much to trust them."""
    pair: str
    draft_seconds: float                  # one cached draft-model call over one position
    verify_seconds: tuple[float, ...]     # [k − 1]: one cached target call over k new positions
    prefill_seconds: float                # the target over PREFILL_TOKENS prompt tokens, empty cache
    prefill_tokens: int
    spread: float                         # median over all calls of (median run ÷ fastest run − 1)
    load: float                           # one-minute load average when measured
    cores: int
    threads: int                          # torch's threads while measuring
    busy: bool
    measured_at: float = 0.0              # time.monotonic() when measured

    @property
    def unit(self) -> float:
        """Seconds of one one-position target call: the time unit of chapters 10 and 11."""
        return self.verify_seconds[0]

    @property
    def max_positions(self) -> int:
        return len(self.verify_seconds)

    @property
    def c(self) -> float:
        """A draft call in target-call units."""
        return self.draft_seconds / self.unit

    def verify_units(self, k: int) -> float:
        """One verify pass over k positions, in target-call units (1.0 at k = 1)."""
        if not 1 <= k <= self.max_positions:
            raise ValueError(f"A verify pass covers 1 to {self.max_positions} positions; got {k}.")
        return self.verify_seconds[k - 1] / self.unit

    def prefill_units(self, n: int) -> float:
        """A prefill over n prompt tokens in target-call units: the measured verify pass for
        n ≤ max_positions, else on the line through the longest verify pass and the measured prefill."""
        if n <= 0:
            return 0.0
        if n <= self.max_positions:
            return self.verify_units(n)
        k, v = self.max_positions, self.verify_units(self.max_positions)
        slope = max(0.0, (self.prefill_seconds / self.unit - v) / max(1, self.prefill_tokens - k))
        return v + slope * (n - k)

    def verify_costs(self, max_positions: int) -> list[VerifyCost]:
        """Chapter 3's bars: one call over 1..max_positions positions, its seconds and its ratio."""
        return [VerifyCost(k, self.verify_seconds[k - 1], self.verify_units(k))
                for k in range(1, min(max_positions, self.max_positions) + 1)]

    def round_cost(self, gamma, c: float | None = None):
        """One round in target-call units: γ draft calls (c each; default the measured c) and one
        verify pass over γ + 1 positions as measured — the lecture's 1 + γc with the verify measured."""
        g = np.asarray(gamma, dtype=int)
        c = self.c if c is None else c
        verify = np.asarray(self.verify_seconds)[np.clip(g, 0, self.max_positions - 1)] / self.unit
        return verify + g * c

    def speedup(self, alpha, gamma, c: float | None = None):
        """E / (γc + v(γ + 1)): the analytic speed-up with this machine's verify costs."""
        return analytic.expected_tokens(alpha, gamma) / self.round_cost(gamma, c)


def measure_profile(pair, *, runs: int = RUNS, positions: int = POSITIONS) -> CostProfile:
    """Time the pair's calls now (several seconds on a large pair)."""
    calls, finish = profile_calls(pair, positions)
    with fixed_threads(finish.threads):
        return finish(interleaved(calls, runs))


def measure_profile_steps(pair, *, runs: int = RUNS, positions: int = POSITIONS):
    """`measure_profile` a timed call at a time: a generator that yields after each call and returns
    the CostProfile, so the model worker can serve a student between two calls (serving.workqueue).
    The runs are interleaved as lab.speed.timing.interleaved's: one uncounted warm-up run, then every
    call in turn."""
    calls, finish = profile_calls(pair, positions)
    yield
    times = {name: [] for name in calls}
    for run in range(runs + 1):
        for name, fn in calls.items():
            with fixed_threads(finish.threads):
                seconds = fn()
            if run:
                times[name].append(seconds)
            yield
    return finish(times)


def profile_calls(pair, positions: int):
    """(name → a function timing one call, finish(times) → the CostProfile), the caches prefilled: the
    profile's calls, for a caller that runs them its own way (measure_profile, bench/profilesteady.py)."""
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    context = (ids * (PREFILL_TOKENS // len(ids) + 1))[:PREFILL_TOKENS]
    target, draft, fresh = CachedModel(pair.target), CachedModel(pair.draft), CachedModel(pair.target)
    draft.forward(context)

    def prefill():
        fresh.cache, fresh.length = None, 0
        return fresh.forward(context)[1]

    def draft_call():
        seconds = draft.forward(context[:1])[1]
        draft.rollback(len(context))
        return seconds

    before = load_average()          # before timing: the timing's own threads would count as load
    with fixed_threads() as threads:
        calls = {("verify", k): fn for k, fn in verify_calls(target, context, range(1, positions + 1)).items()}

    def finish(times: dict) -> CostProfile:
        summary = {name: robust(ts) for name, ts in times.items()}
        spread = statistics.median(s for _, s in summary.values())
        return CostProfile(
            pair=pair.name, draft_seconds=summary["draft"][0],
            verify_seconds=tuple(summary[("verify", k)][0] for k in range(1, positions + 1)),
            prefill_seconds=summary["prefill"][0], prefill_tokens=len(context), spread=spread,
            load=before, cores=cores(), threads=threads, busy=is_busy(spread, before, cores()),
            measured_at=time.monotonic())
    finish.threads = threads
    return {**calls, "draft": draft_call, "prefill": prefill}, finish

