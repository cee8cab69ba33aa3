"""lab.speed.profilecache while a busy profile is measured again (serving.retime at a quiet moment, or a
"Measure" press): everyone who did not ask for the new timing keeps pricing with the profile they
had, at once. Were they handed the unfinished measurement instead, a student's click would finish
it on the one model worker, and the whole class would wait behind that click for seconds."""
from lab.pairs.tiny import tiny_pair
from lab.speed.profilecache import RETRY_AFTER, ProfileCache
from tests.helpers import made_profile


class Timings:
    """Scripted measurements: `results` in turn, each after `calls` timed calls (yields)."""

    def __init__(self, *results, calls: int = 4):
        self.results, self.calls, self.finished, self.steps_run = list(results), calls, 0, 0

    def at_once(self, pair):
        self.finished += 1
        out = self.results.pop(0)
        if isinstance(out, BaseException):
            raise out
        return out

    def steps(self, pair):
        for _ in range(self.calls):
            self.steps_run += 1
            yield
        return self.at_once(pair)


def retiming(results, calls=4):
    """(cache, pair, timings, clock) with `pair`'s first profile (busy) measured RETRY_AFTER ago."""
    now = [1000.0]
    timings = Timings(*results, calls=calls)
    cache, pair = ProfileCache(timings.at_once, timings.steps, clock=lambda: now[0]), tiny_pair()
    assert cache.profile(pair).busy
    now[0] += RETRY_AFTER + 1
    return cache, pair, timings


def test_callers_keep_the_busy_profile_while_it_is_timed_again():
    busy, calm = made_profile(busy=True, measured_at=1000.0), made_profile()
    cache, pair, timings = retiming([busy, calm])
    again = cache.profile_steps(pair, retry_busy=True)      # the re-timer's job on the model worker
    next(again), next(again)                                # two timed calls, then it steps aside
    steps = timings.steps_run
    assert cache.profile(pair) is busy                      # a student's round: priced at once
    assert timings.steps_run == steps                       # ... without finishing the re-timing
    assert cache.finished(pair) is busy and cache.measured(pair) is busy
    got = list(cache.profile_steps(pair))                   # a job not asking again: no step either
    assert got == [] and timings.steps_run == steps
    while True:                                             # the re-timer's job resumes and ends
        try:
            next(again)
        except StopIteration as done:
            assert done.value is calm
            break
    assert cache.profile(pair) is calm and cache.finished(pair) is calm and cache.measured(pair) is calm


def test_asking_again_meanwhile_shares_the_new_timing():
    busy, calm = made_profile(busy=True, measured_at=1000.0), made_profile()
    cache, pair, timings = retiming([busy, calm])
    again = cache.profile_steps(pair, retry_busy=True)
    next(again)
    assert cache.profile(pair, retry_busy=True) is calm     # a "Measure" press finishes the same timing
    assert timings.finished == 2


def test_a_failed_new_timing_leaves_the_busy_profile_in_place():
    busy = made_profile(busy=True, measured_at=1000.0)
    cache, pair, timings = retiming([busy, RuntimeError("timing failed")])
    again = cache.profile_steps(pair, retry_busy=True)
    try:
        while True:
            next(again)
    except RuntimeError:
        pass
    assert cache.profile(pair) is busy and cache.finished(pair) is busy and timings.finished == 2
