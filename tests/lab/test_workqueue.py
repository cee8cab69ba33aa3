"""The worker's turns by least recent use, and long jobs (generators) that step aside between steps."""
import threading
import time
from concurrent.futures import CancelledError

import pytest

from lab.workqueue import FairQueue, Owner


def _hold(queue):
    """Occupy the worker until the returned event is set, so later jobs must queue."""
    gate, started = threading.Event(), threading.Event()
    queue.submit(None, lambda: started.set() or gate.wait(), (), {})
    assert started.wait(10)
    return gate


def test_the_browser_that_used_the_worker_least_recently_goes_first():
    queue = FairQueue()
    queue.submit(Owner("busy", "t"), time.sleep, (0.2,), {}).result(10)      # 0.2 s of model work
    gate, order = _hold(queue), []
    first = queue.submit(Owner("busy", "t"), order.append, ("busy",), {})    # arrives first
    second = queue.submit(Owner("fresh", "t"), order.append, ("fresh",), {})
    gate.set()
    first.result(10), second.result(10)
    assert order == ["fresh", "busy"]
    assert queue.used("busy") == pytest.approx(0.2, abs=0.05) and queue.used("fresh") < 0.01


def test_recent_use_halves_every_half_life():
    queue = FairQueue(half_life=10.0)
    queue.submit(Owner("b", "t"), time.sleep, (0.1,), {}).result(10)
    now = time.perf_counter()
    assert queue.used("b", now + 10.0) == pytest.approx(queue.used("b", now) / 2, rel=1e-6)
    assert queue.used("b", now + 30.0) == pytest.approx(queue.used("b", now) / 8, rel=1e-6)


def _long_job(log, name, steps, seconds):
    """A generator job: `steps` steps of `seconds` each, logged, then its result."""
    for i in range(steps):
        time.sleep(seconds)
        log.append(f"{name}{i}")
        yield
    return f"{name} done"


def test_a_long_job_steps_aside_for_a_browser_that_waited_and_then_resumes():
    queue, log = FairQueue(step_aside=0.1), []
    hog = queue.submit(Owner("hog", "t"), _long_job, (log, "hog", 20, 0.03), {})
    while len(log) < 6:                        # the hog has used the worker for ~0.2 s
        time.sleep(0.01)
    victim = queue.submit(Owner("victim", "t"), log.append, ("victim",), {})
    assert victim.result(10) is None and hog.result(10) == "hog done"
    at = log.index("victim")
    assert at < 12                             # within a few steps, not after all 20
    assert [x for x in log if x != "victim"] == [f"hog{i}" for i in range(20)]   # every step once, in order


def test_without_anyone_waiting_a_long_job_runs_to_its_end():
    queue, log = FairQueue(step_aside=0.0), []
    assert queue.submit(Owner("a", "t"), _long_job, (log, "a", 5, 0.0), {}).result(10) == "a done"
    assert log == [f"a{i}" for i in range(5)]


def test_a_parked_long_job_whose_tab_closed_is_closed():
    queue, log, closed = FairQueue(step_aside=0.05), [], threading.Event()

    def job():
        try:
            yield from _long_job(log, "hog", 50, 0.03)
        finally:
            closed.set()
    hog = queue.submit(Owner("hog", "tab"), job, (), {})
    while len(log) < 4:
        time.sleep(0.01)
    gate, started = threading.Event(), threading.Event()
    victim = queue.submit(Owner("victim", "t"), lambda: started.set() or gate.wait(), (), {})
    assert started.wait(10)                    # the hog stepped aside: parked in its queue
    assert queue.pending(Owner("hog")) == 1
    assert queue.forget("tab") == 1 and closed.is_set()
    with pytest.raises(CancelledError):
        hog.result(10)
    gate.set()
    assert victim.result(10) is True and len(log) < 50


def test_an_error_in_a_step_reaches_every_waiter():
    queue = FairQueue()

    def broken():
        yield
        raise ValueError("the prompt is empty")
    with pytest.raises(ValueError, match="prompt is empty"):
        queue.submit(Owner("a", "t"), broken, (), {}).result(10)
