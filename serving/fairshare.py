"""What a browser (or a client address) may ask of the model worker and how much it has used: `Allowance`, a token bucket
per browser (model actions a second), and `RecentUse`, each browser's seconds of model work halved
every half-life (serving.workqueue serves the least recent user first). Both are bounded: the
REMEMBERED browsers seen last are kept.
"""
from __future__ import annotations

import time
from collections import OrderedDict

RATE, BURST = 5.0, 10  # model actions per second per browser, and how many may come at once
REMEMBERED = 4096    # browsers whose allowance and use are kept (the longest unseen are dropped)


class Allowance:
    """A token bucket per browser: `rate` actions a second, `burst` at once. Even an answer from a
    cache redraws the asking page on the event loop every student shares, so twenty tabs clicking as
    fast as they can must not get twenty times the share. Bounded: the REMEMBERED browsers seen last
    are kept. Not locked: call it from one thread (or under a lock)."""

    def __init__(self, rate: float = RATE, burst: int = BURST, clock=time.monotonic):
        self.rate, self.burst, self._clock = rate, burst, clock
        self._left: OrderedDict[object, tuple[float, float]] = OrderedDict()   # browser → (left, at)

    def wait(self, browser) -> float:
        """Seconds until `browser` may act (0: now); nothing is spent."""
        now = self._clock()
        left, at = self._left.get(browser, (float(self.burst), now))
        left = min(float(self.burst), left + (now - at) * self.rate)
        return 0.0 if left >= 1 else (1 - left) / self.rate if self.rate > 0 else float("inf")

    def allowed(self, browser) -> bool:
        """Whether `browser` may act now (and if so, one action is spent)."""
        now = self._clock()
        left, at = self._left.pop(browser, (float(self.burst), now))
        left = min(float(self.burst), left + (now - at) * self.rate)
        self._left[browser] = (left - 1 if left >= 1 else left, now)
        bound(self._left)
        return left >= 1


class Budget:
    """Seconds of a shared resource (the event loop) per key: `rate` seconds a second, at most
    `burst` saved; a key whose balance is spent waits until it refills. Bounded like Allowance; not
    locked (the event loop's thread)."""

    def __init__(self, rate: float, burst: float, clock=time.monotonic):
        self.rate, self.burst, self._clock = rate, burst, clock
        self._left: OrderedDict[object, tuple[float, float]] = OrderedDict()   # key → (seconds left, at)

    def left(self, key) -> float:
        now = self._clock()
        left, at = self._left.get(key, (float(self.burst), now))
        return min(float(self.burst), left + (now - at) * self.rate)

    def charge(self, key, seconds: float) -> None:
        self._left[key] = (self.left(key) - seconds, self._clock())
        self._left.move_to_end(key)
        bound(self._left)

    def ok(self, key) -> bool:
        """Whether `key` has time left."""
        return self.left(key) > 0


class RecentUse:
    """How much model work each browser used recently: its seconds on the worker, each halved every
    `half_life`. Bounded: the REMEMBERED browsers charged last are kept. Not locked: FairQueue calls
    it under its lock. `clock` gives the time in seconds (a test passes a fake one)."""

    def __init__(self, half_life: float, clock=time.perf_counter):
        self.half_life, self._clock = half_life, clock
        self._use: OrderedDict[object, tuple[float, float]] = OrderedDict()   # browser → (seconds, at)

    def used(self, browser, now: float | None = None) -> float:
        """`browser`'s recent model work: its seconds on the worker, each halved every `half_life`."""
        seconds, at = self._use.get(browser, (0.0, 0.0))
        now = self._clock() if now is None else now
        return seconds * 0.5 ** ((now - at) / self.half_life)

    def charge(self, browser, seconds: float) -> None:
        now = self._clock()
        self._use[browser] = (self.used(browser, now) + seconds, now)
        self._use.move_to_end(browser)
        bound(self._use)


def bound(seen: OrderedDict) -> None:
    """Keep the REMEMBERED entries of `seen` touched last (the others are dropped)."""
    while len(seen) > REMEMBERED:          # the browsers unseen longest are dropped
        seen.popitem(last=False)
