"""The start-up warm-up's scheduling: a student's click waits for one piece of the warm-up's work,
never for a whole job of many (the pair's cost profile is many timed calls)."""
import threading

from lab.speed import costs
from serving.service import ModelService, Owner
from lab.pairs.tiny import tiny_pair
from shell.frame import warmup
CALL = 0.05     # seconds each faked timed call reports


def test_a_click_during_the_profile_waits_for_one_timed_call(monkeypatch):
    pair = tiny_pair()
    service = ModelService(lambda: pair)          # a server of its own: its profile not measured yet
    in_call, clicked, log = threading.Event(), threading.Event(), []

    def slow_calls(model, context, positions):
        model.forward(context)

        def call():
            if not in_call.is_set():            # the first timed call lasts until the student clicks
                in_call.set()
                assert clicked.wait(30), "the student never clicked"
            log.append("call")
            return CALL
        return {n: call for n in positions}
    monkeypatch.setattr(costs, "verify_calls", slow_calls)
    real_jobs = warmup.jobs
    monkeypatch.setattr(warmup, "jobs", lambda s: real_jobs(s)[:1])     # the warm-up's first job: the profile
    done = []
    warming = threading.Thread(target=lambda: done.append(warmup.run(service)))
    warming.start()
    assert in_call.wait(30)
    answered = service.submit(log.append, "student", owner=Owner("student", "tab"))
    clicked.set()
    answered.result(30)
    warming.join(60)
    assert not warming.is_alive() and done == [["the pair's cost profile"]]
    assert log.index("student") == 1                          # after the call in progress, not the whole profile
    assert log.count("call") == (costs.RUNS + 1) * costs.POSITIONS > 50   # the profile went on after the click
    assert service.profiles.already_measured().verify_seconds[0] == CALL     # and is shared as usual
