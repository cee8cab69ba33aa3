"""serving.retime: a cost profile timed on a busy machine is timed again at the next quiet moment
(no student presses anything), every later request is priced by the new one, and the outcome names
the figure it replaces when the verdict changed."""
import time

import pytest

from lab.pairs.tiny import tiny_pair
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.speed import costs
from lab.core.request import Request
from serving import retime
from serving.service import ModelService
from serving.workqueue import Owner
from tests.helpers import made_profile
from uikit import verdicts

OLD = time.monotonic() - costs.RETRY_AFTER - 1      # measured long enough ago to be timed again


@pytest.fixture
def service():
    pair = tiny_pair()
    return ModelService(lambda: pair)


def timed_as(monkeypatch, profile):
    """The next measurement (a timed call at a time, as the worker runs it) gives `profile`."""
    def steps(pair, **kw):
        yield
        return profile
    monkeypatch.setattr(costs, "measure_profile_steps", steps)


def test_a_busy_profile_is_timed_again_only_at_a_quiet_moment(service, monkeypatch):
    busy = made_profile(busy=True, load=3.0, measured_at=OLD)
    service.profiles.adopt(service.pair_for("aligned"), busy)    # the start-up profile, timed under load
    calm = made_profile(measured_at=time.monotonic())
    timed_as(monkeypatch, calm)
    loud = retime.Retimer(service, is_quiet=lambda s: False)
    assert loud.busy_variants() == ["aligned"] and loud.check() == []
    assert service.profiles.already_measured() is busy     # not while the machine is busy
    done = retime.Retimer(service, is_quiet=lambda s: True).check()
    assert done == ["aligned"] and service.profiles.already_measured() is calm
    assert retime.Retimer(service, is_quiet=lambda s: True).check() == []    # reliable now: left alone


def test_a_fresh_busy_profile_waits_before_it_is_timed_again(service, monkeypatch):
    service.profiles.adopt(service.pair_for("aligned"), made_profile(busy=True, measured_at=time.monotonic()))
    assert retime.Retimer(service, is_quiet=lambda s: True).busy_variants() == []


def test_quiet_means_no_waiting_job_and_a_load_under_the_cores(service):
    assert retime.quiet(service, load=0.5, n_cores=2)
    assert not retime.quiet(service, load=2.5, n_cores=2)
    started = service.submit(lambda: time.sleep(0.3))
    waiting = service.submit(lambda: None)
    assert not retime.quiet(service, load=0.5, n_cores=2)     # a job waits for the worker
    started.result(5), waiting.result(5)
    assert retime.quiet(service, load=0.5, n_cores=2)         # the server's own work: still quiet


def test_a_class_clicking_is_no_quiet_moment_until_it_stops_for_a_while(service):
    student = Owner("b" * 16, "s1")
    service.submit(lambda: time.sleep(0.05), owner=student).result(5)
    assert service.pending() == 0
    assert not retime.quiet(service, load=0.5, n_cores=2)     # a student's click just ran
    assert not retime.quiet(service, load=0.5, n_cores=2, quiet_for=0.5)
    time.sleep(0.6)
    assert retime.quiet(service, load=0.5, n_cores=2, quiet_for=0.5)


def test_after_a_re_timing_the_request_is_priced_anew_and_names_its_old_figure(service, monkeypatch):
    pair = service.pair
    request = Request(tuple(encode_prompt(pair.tokenizer, DEFAULT_PROMPT)), gamma=3, max_new_tokens=12)
    # busy: a draft call as dear as a target call (slower); quiet: drafting nearly free (faster)
    service.profiles.adopt(service.pair_for("aligned"), made_profile(draft=1.0, busy=True, spread=0.0, measured_at=OLD))
    before = service.submit(service.outcome, request).result(60)
    assert before.verdict_word() == "slower" and verdicts.retimed(before) == ""
    timed_as(monkeypatch, made_profile(draft=0.001, measured_at=time.monotonic()))
    assert retime.Retimer(service, is_quiet=lambda s: True).check() == ["aligned"]
    after = service.submit(service.outcome, request).result(60)
    assert after is not before and after.profile is service.profiles.already_measured()
    assert after.earlier_speedup == before.speedup and after.verdict_word() == "faster"
    assert verdicts.retimed(after) == (f"This machine re-timed: now {after.speedup:.2f}× (faster), "
                               f"was {before.speedup:.2f}× (slower).")


def test_a_students_press_on_measure_shares_the_profile_and_re_times_nothing(service, make_chapter, monkeypatch):
    import asyncio
    from chapters.ch03_checking import CheckingChapter
    from uikit.state import LabState
    ch = make_chapter(CheckingChapter, LabState(service))
    busy = made_profile(verify=[0.01 * k for k in range(1, 18)], busy=True, load=3.0, measured_at=OLD)
    ch.state.service.profiles.adopt(ch.state.service.pair, busy)

    def refuse(*a, **k):
        raise AssertionError("a student's press timed the pair again")
    monkeypatch.setattr(costs, "measure_profile", refuse)
    monkeypatch.setattr(costs, "measure_profile_steps", refuse)
    assert asyncio.run(ch.measure()) is busy and ch.profile is busy
