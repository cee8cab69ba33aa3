"""How long the start-up warm-up (shell.frame.warmup) will take on this machine as it is now, for the
terminal's line before it starts:

    warm-up: 24 default demos, about 3 min (this machine is busy: load 3.1 on 2 cores)

The warm-up's first job is the pair's cost profile, and its other jobs are generations on the same
models, so the whole warm-up takes about the profile's time and PER_DEMO of it for each other demo.
The profile's own time comes from lab.speed.profile_eta (a few target and draft calls timed now), so
the estimate is timed under the machine's current load: other programs using a core slow these
calls as they will slow the warm-up, and on a busy machine more (`sharing`). The calls are timed twice and the mean kept (the fastest of a
few calls, alone, reads a busy machine as idle). The line also says the load it was timed under, so
a lecturer sees why a start takes longer than on an idle machine; a load that changes during the
warm-up changes its length too, which no estimate made at its start can know.
"""
from __future__ import annotations

import os

from lab.speed.profile_eta import probe, profile_seconds

# each demo after the cost profile, as a share of the profile's time as lab.speed.profile_eta
# estimates it: measured with the embedded pair's 24 demos on an idle 2-core machine (the whole
# warm-up 90 s, the profile estimated at 9.7 s: (90 ÷ 9.7 − 1) ÷ 23, bench/startup.py)
PER_DEMO = 0.36
BUSY_SHARE = 0.5       # a load over half the cores besides the server's own one: the machine is busy
SERVER_THREADS = 2     # the runnable threads the warm-up itself adds (torch's) when it shares the cores


def machine_load() -> tuple[float, int]:
    """(the 1-minute load average, the cores this process may use): the load other programs put on
    the machine, besides this server's own loading of the pair."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:          # macOS: no affinity mask
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:                 # no load average (Windows)
        load = 0.0
    return load, cores


def timed_calls(pair) -> tuple[float, float, float]:
    """(a target call over 1 position, over the longest, a draft call) in seconds: the mean of two
    probes, each the fastest of two calls. On the model worker."""
    first, second = probe(pair), probe(pair)
    return tuple((a + b) / 2 for a, b in zip(first, second))


def warmup_seconds(service, demos: int) -> float:
    """Seconds a warm-up of `demos` jobs (the cost profile first) may take on `service`'s pair, timed
    now, on the model worker."""
    calls = service.submit(timed_calls, service.pair, owner=None).result()
    return profile_seconds(*calls) * (1 + PER_DEMO * max(0, demos - 1))


def busy(load: float, cores: int) -> bool:
    """Whether other programs leave the server less than half the cores."""
    return load >= cores * BUSY_SHARE + 1


def sharing(load: float, cores: int) -> float:
    """How much longer than its timed calls say the warm-up runs when the machine is busy: the calls
    are short and often get a core, the warm-up's minutes share the cores with every runnable thread,
    (load + SERVER_THREADS) ÷ cores of them (1 on a quiet machine). Embedded pair at load 5.7–7.7 on
    2 cores: timed calls said 98 s, the warm-up took 607 s; with this factor the estimate is 721 s."""
    return max(1.0, (load + SERVER_THREADS) / cores) if busy(load, cores) else 1.0


def estimate_line(seconds: float, demos: int, load: float, cores: int) -> str:
    """The terminal's line: how many demos, about how long, and the load that estimate was timed
    under (said busy when the load leaves less than half the cores free)."""
    state = "busy" if busy(load, cores) else "quiet"
    about = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
    return (f"warm-up: {demos} default demos, about {about} (this machine is {state}: "
            f"load {load:.1f} on {cores} core{'s' if cores != 1 else ''})")


def announce(service, demos: int, log) -> float:
    """Log the line for `demos` demos on `service`'s pair; returns the estimate in seconds (0.0 when
    the calls could not be timed: the warm-up goes on and says only its end)."""
    try:
        seconds = warmup_seconds(service, demos)
    except Exception:
        log.debug("warm-up: no estimate", exc_info=True)
        return 0.0
    load, cores = machine_load()
    seconds *= sharing(load, cores)
    log.info(estimate_line(seconds, demos, load, cores))
    return seconds
