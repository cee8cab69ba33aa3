"""The start-up warm-up's scheduling: a student's click waits for one piece of the warm-up's work,
never for a whole job of many (the pair's cost profile is many timed calls)."""
import threading
import time

from lab import costs
from lab.service import ModelService, Owner
from lab.tiny import tiny_pair
from shell import warmup

CALL = 0.05     # seconds each faked timed call takes


def test_a_click_during_the_profile_waits_for_one_timed_call(monkeypatch):
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    costs.forget()
    started, calls = threading.Event(), []

    def slow_calls(model, context, positions):
        model.forward(context)

        def call():
            started.set()
            time.sleep(CALL)
            calls.append(time.perf_counter())
            return CALL
        return {n: call for n in positions}
    monkeypatch.setattr(costs, "verify_calls", slow_calls)
    monkeypatch.setattr(warmup, "jobs", lambda s: [("the pair's cost profile", costs.of_service, (s,), {})])
    done = []
    warming = threading.Thread(target=lambda: done.append(warmup.run(service)))
    warming.start()
    assert started.wait(30)
    clicked = time.perf_counter()
    answered = service.submit(time.perf_counter, owner=Owner("student", "tab")).result(30)
    warming.join(60)
    assert done == [["the pair's cost profile"]]
    assert answered - clicked < 4 * CALL                      # one timed call, not the whole profile
    assert len([t for t in calls if t > answered]) > 50       # the profile went on after the click
    assert costs.known(service).verify_seconds[0] == CALL     # and is shared as usual
    costs.forget()
