"""The model worker's queue: per-browser turns by least recent use, limits that answer in one
sentence, identical requests computed once, and long jobs (generators) that step aside between steps."""
import asyncio
import threading
from concurrent.futures import CancelledError, TimeoutError as FutureTimeout

import pytest

from serving.service import ModelService, QueueFull
from lab.pairs.tiny import tiny_pair
from serving.workqueue import FairQueue, Owner
from tests.helpers import FakeClock


@pytest.fixture
def service():
    pair = tiny_pair()
    return ModelService(lambda: pair, cache_size=4, max_pending=3)


def _hold(queue, owner=None):
    """Occupy the worker until the returned event is set, so later jobs must queue."""
    gate, started = threading.Event(), threading.Event()
    queue.submit(owner, lambda: started.set() or gate.wait(), (), {})
    assert started.wait(10)
    return gate


def _long_job(log, name, steps, clock, seconds=0.0, pause_at=None, reached=None, go=None):
    """A generator job of `steps` steps, each standing for `seconds` of model work on the fake
    `clock`, logged, then its result. At step `pause_at` it sets `reached` and waits for `go` before
    its step ends, so the test can queue work at a known step boundary."""
    for i in range(steps):
        clock.advance(seconds)
        log.append(f"{name}{i}")
        if i == pause_at:
            reached.set()
            assert go.wait(10), "the test never let the job go on"
        yield
    return f"{name} done"


def test_the_browser_that_used_the_worker_least_recently_goes_first():
    clock = FakeClock()
    queue = FairQueue(timer=clock, quiet=0.0)
    queue.submit(Owner("busy", "t"), clock.advance, (0.2,), {}).result(10)     # 0.2 s of model work
    gate, order = _hold(queue), []
    first = queue.submit(Owner("busy", "t"), order.append, ("busy",), {})    # arrives first
    second = queue.submit(Owner("fresh", "t"), order.append, ("fresh",), {})
    gate.set()
    first.result(10), second.result(10)
    assert order == ["fresh", "busy"]
    assert queue.use.used("busy") == pytest.approx(0.2) and queue.use.used("fresh") == 0.0


def test_recent_use_halves_every_half_life():
    clock = FakeClock()
    queue = FairQueue(half_life=10.0, timer=clock)
    queue.submit(Owner("b", "t"), clock.advance, (0.1,), {}).result(10)
    assert queue.use.used("b") == pytest.approx(0.1)
    clock.advance(10.0)
    assert queue.use.used("b") == pytest.approx(0.05)
    clock.advance(20.0)
    assert queue.use.used("b") == pytest.approx(0.1 / 8)


def test_a_long_job_steps_aside_for_a_browser_that_waited_and_then_resumes():
    clock, log, reached, go = FakeClock(), [], threading.Event(), threading.Event()
    queue = FairQueue(step_aside=0.1, timer=clock)
    hog = queue.submit(Owner("hog", "t"), _long_job, (log, "hog", 20, clock, 0.03, 5, reached, go), {})
    assert reached.wait(10)                    # the hog has used the worker for 0.18 s
    victim = queue.submit(Owner("victim", "t"), log.append, ("victim",), {})
    go.set()
    assert victim.result(10) is None and hog.result(10) == "hog done"
    assert log.index("victim") == 6            # at the next step boundary, not after all 20 steps
    assert [x for x in log if x != "victim"] == [f"hog{i}" for i in range(20)]   # every step once, in order


def test_without_anyone_waiting_a_long_job_runs_to_its_end():
    clock, log = FakeClock(), []
    queue = FairQueue(step_aside=0.0, timer=clock)
    assert queue.submit(Owner("a", "t"), _long_job, (log, "a", 5, clock), {}).result(10) == "a done"
    assert log == [f"a{i}" for i in range(5)]


def test_the_servers_own_long_job_steps_aside_at_once_and_waits_for_every_browser():
    clock, log, reached, go = FakeClock(), [], threading.Event(), threading.Event()
    queue = FairQueue(step_aside=60.0, quiet=0.0, timer=clock)   # a browser's job would not step aside yet
    warm = queue.submit(None, _long_job, (log, "warm", 20, clock, 0.03, 1, reached, go), {})
    assert reached.wait(10)
    student = queue.submit(Owner("student", "t"), log.append, ("student",), {})
    go.set()
    student.result(10)
    assert log.index("student") == 2                   # the next step boundary, not the job's end
    gate = _hold(queue)                                # a browser queued before the server's next job
    first = queue.submit(None, log.append, ("server",), {})
    second = queue.submit(Owner("late", "t"), log.append, ("late",), {})
    gate.set()
    first.result(10), second.result(10), warm.result(10)
    assert log.index("late") < log.index("server")


def test_a_parked_long_job_whose_tab_closed_is_closed():
    clock, log, closed, reached, go = FakeClock(), [], threading.Event(), threading.Event(), threading.Event()
    queue = FairQueue(step_aside=0.05, timer=clock)

    def job():
        try:
            yield from _long_job(log, "hog", 50, clock, 0.03, 3, reached, go)
        finally:
            closed.set()
    hog = queue.submit(Owner("hog", "tab"), job, (), {})
    assert reached.wait(10)                    # the hog has used the worker for 0.12 s
    gate, started = threading.Event(), threading.Event()
    victim = queue.submit(Owner("victim", "t"), lambda: started.set() or gate.wait(), (), {})
    go.set()
    assert started.wait(10)                    # the hog stepped aside: parked in its queue
    assert queue.pending(Owner("hog")) == 1
    assert queue.forget("tab") == 1 and closed.is_set()
    with pytest.raises(CancelledError):
        hog.result(10)
    gate.set()
    assert victim.result(10) is True and log == [f"hog{i}" for i in range(4)]


def test_an_error_in_a_step_reaches_every_waiter():
    queue = FairQueue()

    def broken():
        yield
        raise ValueError("the prompt is empty")
    with pytest.raises(ValueError, match="prompt is empty"):
        queue.submit(Owner("a", "t"), broken, (), {}).result(10)


# --- through the model service: limits, tabs, identical requests ---------------------------------

def test_round_robin_between_owners(service):
    gate = threading.Event()
    order = []
    service.submit(gate.wait, owner="blocker")              # holds the worker while we queue
    futures = [service.submit(order.append, f"A{i}", owner="A") for i in range(3)]
    futures += [service.submit(order.append, "B0", owner="B")]
    gate.set()
    for f in futures:
        f.result(timeout=10)
    assert order == ["A0", "B0", "A1", "A2"]                # B did not wait behind all of A


def _hold_the_worker(service):
    """Occupy the worker until the returned event is set, so later jobs must queue."""
    gate, started = threading.Event(), threading.Event()
    service.submit(lambda: started.set() or gate.wait())
    assert started.wait(10)
    return gate


def test_per_owner_limit_and_forget(service):
    gate = _hold_the_worker(service)
    waiting = [service.submit(abs, -i, owner="A") for i in range(3)]
    with pytest.raises(QueueFull, match="wait for them to finish"):
        service.submit(abs, -9, owner="A")
    other = service.submit(lambda: "B ran", owner="B")       # others unaffected by A's limit
    assert service.forget("A") == 3 and all(f.cancelled() for f in waiting)
    gate.set()
    assert other.result(timeout=10) == "B ran"


def test_tabs_of_one_browser_share_one_queue_and_one_limit(service):
    gate = _hold_the_worker(service)
    order = []
    tabs = [Owner("hog", f"tab{i}") for i in range(20)]
    accepted, refused = [], 0
    for i, tab in enumerate(tabs):                           # twenty tabs each press the button
        try:
            accepted.append(service.submit(order.append, f"hog{i}", owner=tab))
        except QueueFull:
            refused += 1
    assert len(accepted) == 3 and refused == 17              # one browser, one pending limit
    assert service.pending(Owner("hog", "tab19")) == 3
    victim = service.submit(order.append, "victim", owner=Owner("victim", "t0"))
    gate.set()
    for f in accepted + [victim]:
        f.result(timeout=10)
    assert order == ["hog0", "victim", "hog1", "hog2"]      # the other browser waits for one job, not 20


def test_a_student_arriving_while_another_browser_is_served_goes_next(service):
    """Fair turns: the hog's next job waits behind a newcomer who has not been served yet."""
    gate = _hold_the_worker(service)
    order, running, release = [], threading.Event(), threading.Event()
    hog = Owner("hog", "tab0")
    first = service.submit(lambda: running.set() or release.wait(), owner=hog)
    rest = [service.submit(order.append, f"hog{i}", owner=hog) for i in (2, 3)]
    gate.set()
    assert running.wait(10)                                  # the hog's first job runs, two wait
    victim = service.submit(order.append, "victim", owner=Owner("victim", "t0"))
    release.set()
    for f in [first, victim, *rest]:
        f.result(timeout=10)
    assert order == ["victim", "hog2", "hog3"]


def test_closing_one_tab_drops_only_its_work(service):
    gate = _hold_the_worker(service)
    a = service.submit(abs, -1, owner=Owner("b", "tab1"))
    b = service.submit(abs, -2, owner=Owner("b", "tab2"))
    assert service.forget("tab1") == 1 and a.cancelled()
    gate.set()
    assert b.result(timeout=10) == 2


def test_a_global_cap_refuses_with_a_sentence():
    pair = tiny_pair()
    service = ModelService(lambda: pair, max_pending=3, max_total=4)
    gate = _hold_the_worker(service)
    for i in range(4):
        service.submit(abs, -i, owner=Owner(f"browser{i}", "t"))
    with pytest.raises(QueueFull, match="busy with the whole class"):
        service.submit(abs, -5, owner=Owner("browser5", "t"))
    service.submit(abs, -6).cancel()                          # the server's own work is never refused
    gate.set()


def test_identical_waiting_requests_from_many_tabs_run_once(service):
    gate = _hold_the_worker(service)
    calls = []

    def work(x):
        calls.append(x)
        return x * 2
    futures = [service.submit(work, [1, 2], owner=Owner("b", f"tab{i}")) for i in range(20)]
    futures += [service.submit(work, [1, 2], owner=Owner("c", "t"))]
    assert service.pending() == 1                             # one job, 21 waiting for it
    assert service.forget("tab0") == 1 and futures[0].cancelled()   # the others still get it
    gate.set()
    assert [f.result(timeout=10) for f in futures[1:]] == [[1, 2, 1, 2]] * 20
    assert calls == [[1, 2]]


def test_a_job_nobody_waits_for_any_more_never_runs(service):
    gate = _hold_the_worker(service)
    calls = []
    f = service.submit(calls.append, "x", owner=Owner("b", "tab1"))
    g = service.submit(calls.append, "x", owner=Owner("b", "tab2"))
    assert service.forget("tab1") == 1 and service.forget("tab2") == 1
    done = service.submit(lambda: "after")
    gate.set()
    assert done.result(timeout=10) == "after" and calls == [] and f.cancelled() and g.cancelled()


def test_errors_reach_the_caller(service):
    async def go():
        return await service.run_as("A", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        asyncio.run(go())


def test_a_browser_asking_faster_than_its_rate_is_told_to_wait():
    pair = tiny_pair()
    now = [0.0]
    service = ModelService(lambda: pair, rate=2.0, burst=4, clock=lambda: now[0])
    tabs = [Owner("hog", f"tab{i}") for i in range(20)]
    for i in range(4):                                                      # a burst, from four tabs
        assert service.submit(abs, -i, owner=tabs[i]).result(10) == i
    with pytest.raises(QueueFull, match="faster than the models can answer"):
        service.submit(abs, -9, owner=tabs[5])                               # the browser's, not the tab's
    assert service.submit(abs, -1, owner=Owner("other", "t")).result(10) == 1   # others unaffected
    now[0] += 0.5                                                            # one more after 1/rate s
    assert service.submit(abs, -2, owner=tabs[6]).result(10) == 2
    with pytest.raises(QueueFull):
        service.submit(abs, -3, owner=tabs[7])
    assert service.submit(abs, -4).result(10) == 4                           # the server's own: never


def test_a_browser_asking_for_what_the_server_waits_to_compute_gets_it_on_its_own_turn():
    """The server's own work (the start-up warm-up) goes only when no browser waits; a student who
    asks for the same request must not wait behind every other browser for it."""
    clock, order = FakeClock(), []
    queue = FairQueue(timer=clock)
    gate = _hold(queue)

    def work(name):                                     # 0.1 s of model work
        clock.advance(0.1)
        order.append(name)
    first = queue.submit(Owner("a", "t"), work, ("a1",), {})
    second = queue.submit(Owner("a", "t"), work, ("a2",), {})
    warm = queue.submit(None, work, ("shared",), {})            # the warm-up's next job
    mine = queue.submit(Owner("b", "t"), work, ("shared",), {})  # a student asks the same
    gate.set()
    for future in (first, second, warm, mine):
        future.result(10)
    assert order == ["a1", "shared", "a2"]          # computed once, on b's turn (b has used nothing)
    assert queue.pending() == 0


def test_closing_lets_the_running_step_finish_and_runs_nothing_more():
    """At exit the worker must not be left inside torch: close() waits for the step it is running."""
    queue, log, worker = FairQueue(), [], []
    running, release = threading.Event(), threading.Event()

    def long_job():
        worker.append(threading.current_thread())       # the model worker runs it
        for i in range(3):
            running.set()
            release.wait(10)
            log.append(i)
            yield
    queue.submit(None, long_job, (), {})
    assert running.wait(10)
    closing = threading.Thread(target=queue.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()                  # waiting for the step in progress
    release.set()
    closing.join(10)
    assert not closing.is_alive() and not worker[0].is_alive()      # the worker thread has ended
    assert log == [0]                          # that step finished; no later one ran


def test_the_servers_own_work_waits_until_browsers_have_been_quiet():
    """Students first: the warm-up's next job starts only once no browser has had work for `quiet`
    seconds, so a student's next click seldom finds the worker busy with it."""
    clock = FakeClock()
    queue = FairQueue(quiet=0.5, timer=clock)
    assert queue.submit(None, clock, (), {}).result(10) == 0.0      # no student yet: at once, no time passed
    queue.submit(Owner("s", "t"), clock.advance, (0.01,), {}).result(10)
    server = queue.submit(None, clock, (), {})
    with pytest.raises(FutureTimeout):
        server.result(0.5)                     # the clock stands still: no quiet, however long we wait
    clock.advance(0.49)
    with pytest.raises(FutureTimeout):
        server.result(0.5)                     # 0.49 s of quiet is not enough
    clock.advance(0.02)
    assert server.result(10) == pytest.approx(0.52)


def test_fresh_cookies_from_one_address_share_its_turn():
    """A script on one address rotating browser ids: each new id starts with no use of its own, but
    the address has used the worker, so a student from another address goes first."""
    clock = FakeClock()
    queue = FairQueue(timer=clock, quiet=0.0)
    for i in range(3):                        # three earlier ids of the script, 0.2 s each
        queue.submit(Owner(f"rotated{i}", "t", "10.0.0.66"), clock.advance, (0.2,), {}).result(10)
    queue.submit(Owner("student", "s", "10.0.0.7"), clock.advance, (0.1,), {}).result(10)
    gate, order = _hold(queue), []
    fresh = [queue.submit(Owner(f"fresh{i}", "t", "10.0.0.66"), order.append, (f"fresh{i}",), {}) for i in range(3)]
    student = queue.submit(Owner("student", "s", "10.0.0.7"), order.append, ("student",), {})
    gate.set()
    for f in (*fresh, student):
        f.result(10)
    assert order[0] == "student"              # keyed on browser ids alone, a fresh id (0 s) went first
    assert queue.use.used(("address", "10.0.0.66")) == pytest.approx(0.6, rel=0.02)   # charged to the address too
