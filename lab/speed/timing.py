"""Live timing of model calls, measured robustly: a warm-up call, torch's thread count fixed while
measuring, several runs interleaved so drift hits every call alike, and the fastest run kept.

    with fixed_threads():
        runs = interleaved({"one": lambda: model.forward([7])[1]}, runs=5)   # name → seconds per run
    fastest, spread = robust(runs["one"])

lab.speed.costs builds the pair's one shared cost profile from these pieces. Each timed call is a
`CachedModel.forward`, which synchronises the model's device before and after reading the clock
(lab.devices.sync): on a GPU the seconds are the kernels' work, not their queueing. Fixing torch's
thread count matters on the CPU only.
"""
from __future__ import annotations

import contextlib
import statistics
from dataclasses import dataclass

import torch

from lab.core.kv import CachedModel


@dataclass
class VerifyCost:
    positions: int        # tokens scored in one target call
    seconds: float        # fastest wall time of that call over the runs
    ratio: float          # seconds ÷ seconds of a one-position call


@contextlib.contextmanager
def fixed_threads(threads: int | None = None):
    """Hold torch's intra-op thread count at `threads` (default: the current count) while timing."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads or before)
    try:
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


def interleaved(calls: dict, runs: int) -> dict[object, list[float]]:
    """Each call (name → a function returning the seconds it measured) once per run, in turn, after
    one warm-up round that is not counted; name → the seconds of every run."""
    for fn in calls.values():
        fn()                                        # warm-up: one-off allocation costs stay out
    times = {name: [] for name in calls}
    for _ in range(runs):
        for name, fn in calls.items():
            times[name].append(fn())
    return times


def robust(samples: list[float]) -> tuple[float, float]:
    """(fastest, spread): the minimum of the runs, and how far the median run lies above it
    (median ÷ minimum − 1; 0.0 when every run took the same time)."""
    fastest = min(samples)
    return fastest, (statistics.median(samples) / fastest - 1) if fastest > 0 else 0.0


def verify_calls(model: CachedModel, context: list[int], positions: range) -> dict[int, object]:
    """For each n in `positions`: a function timing one cached call of `model` over n new
    positions after `context` (the model is prefilled with it here), rolled back after each call."""
    model.forward(context)
    base = model.length
    filler = context * (max(positions) // len(context) + 1)

    def call(n):
        seconds = model.forward(filler[:n])[1]
        model.rollback(base)
        return seconds
    return {n: (lambda n=n: call(n)) for n in positions}
