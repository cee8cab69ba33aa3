"""lab.speed.profilecache: each pair's cost profile measured once and shared, by callers at once or a timed
call at a time; a failed measurement not kept; a busy one measured again only when asked, and not
too soon; another process's profile adopted. Each test builds its own cache with a scripted
measurer, so none depends on what another test measured (a server's cache is its model service's:
tests/serving/test_serviceprofiles.py)."""
import threading
from dataclasses import replace

import pytest

from lab.pairs.tiny import tiny_pair
from lab.speed.profilecache import RETRY_AFTER, ProfileCache
from tests.helpers import made_profile


class Measurer:
    """Scripted measurements: the next of `results` (a profile, or an exception to raise) per call,
    at once or, for `steps`, after `calls` yields (the timed calls of lab.speed.costs)."""

    def __init__(self, *results, calls: int = 3):
        self.results, self.calls, self.pairs = list(results), calls, []

    def _next(self, pair):
        self.pairs.append(pair)
        out = self.results.pop(0) if len(self.results) > 1 else self.results[0]
        if isinstance(out, BaseException):
            raise out
        return out

    def measure(self, pair):
        return self._next(pair)

    def steps(self, pair):
        for _ in range(self.calls):
            yield
        return self._next(pair)

    def cache(self, clock=None) -> ProfileCache:
        return ProfileCache(self.measure, self.steps, **({"clock": clock} if clock else {}))


def run(steps):
    """(the generator's result, how many times it yielded)."""
    n = 0
    while True:
        try:
            next(steps)
            n += 1
        except StopIteration as stop:
            return stop.value, n


def test_the_profile_is_measured_once_for_two_callers():
    started, release, pairs = threading.Event(), threading.Event(), []

    def slow(pair):
        pairs.append(pair)
        started.set()
        release.wait(5)
        return made_profile()
    cache = ProfileCache(slow, None)
    pair, got = tiny_pair(), []
    first = threading.Thread(target=lambda: got.append(cache.profile(pair)))
    first.start()
    assert started.wait(5)
    second = threading.Thread(target=lambda: got.append(cache.profile(pair)))   # arrives mid-measurement
    second.start()
    release.set()
    first.join(5), second.join(5)
    assert len(pairs) == 1 and len(got) == 2 and got[0] is got[1]
    assert cache.profile(pair) is got[0] and len(pairs) == 1          # later callers share it too
    other = tiny_pair(seed=1)                                         # another pair: its own profile
    cache.profile(other)
    assert pairs == [pair, other]


def test_a_stepwise_measurement_is_shared_and_finished_by_whoever_needs_it():
    m = Measurer(made_profile(), calls=4)
    cache, pair = m.cache(), tiny_pair()
    parked = cache.profile_steps(pair)
    next(parked), next(parked)                     # two timed calls, then the job steps aside
    assert cache.measured(pair) is None            # not finished: nothing to price with yet
    got = cache.profile(pair)                      # a caller meanwhile finishes the same measurement
    assert m.pairs == [pair] and cache.measured(pair) is got
    assert run(parked)[0] is got                   # the parked job returns it too
    assert run(cache.profile_steps(pair)) == (got, 0)     # and a later job gets it without a step


def test_a_busy_profile_is_measured_again_only_when_asked_and_not_too_soon():
    now = [1000.0]
    busy = made_profile(busy=True, measured_at=now[0])
    m = Measurer(busy, made_profile(), made_profile(busy=True))
    cache, pair = m.cache(clock=lambda: now[0]), tiny_pair()
    assert cache.profile(pair) is busy and cache.profile(pair) is busy
    assert all(cache.profile(pair, retry_busy=True) is busy for _ in range(5))    # measured just now
    now[0] += RETRY_AFTER + 1
    calm = cache.profile(pair, retry_busy=True)
    assert not calm.busy and cache.profile(pair, retry_busy=True) is calm        # calm: kept
    assert len(m.pairs) == 2


def test_a_failed_measurement_is_not_shared():
    m = Measurer(RuntimeError("out of memory"), made_profile())
    cache, pair = m.cache(), tiny_pair()
    with pytest.raises(RuntimeError):
        cache.profile(pair)
    assert cache.measured(pair) is None
    assert cache.profile(pair).verify_seconds == (1.0,) * 5


def test_a_failed_stepwise_measurement_is_not_shared():
    m = Measurer(RuntimeError("out of memory"), made_profile(), calls=2)
    cache, pair = m.cache(), tiny_pair()
    with pytest.raises(RuntimeError):
        run(cache.profile_steps(pair))
    assert run(cache.profile_steps(pair))[0].verify_seconds == (1.0,) * 5 and len(m.pairs) == 2


def test_measured_finds_the_profile_of_the_same_two_models_and_never_measures():
    m = Measurer(made_profile())
    cache, pair = m.cache(), tiny_pair()
    assert cache.measured(pair) is None and m.pairs == []
    got = cache.profile(pair)
    copy = replace(pair, drafter="hybrid", policy="auto:12")          # another object, the same models
    assert cache.measured(copy) is got
    assert cache.measured(tiny_pair(seed=3)) is None and m.pairs == [pair]


def test_an_adopted_profile_is_what_every_later_caller_gets_as_if_measured_here():
    m = Measurer(made_profile())
    cache, pair = m.cache(), tiny_pair()
    theirs = made_profile(draft=0.3)
    cache.adopt(pair, theirs)
    assert cache.profile(pair) is theirs and cache.measured(pair) is theirs and m.pairs == []
    assert cache.finished(pair) is theirs and cache.finished(tiny_pair()) is None    # that pair object only
    assert m.cache().measured(pair) is None                  # another cache (another server) has its own
