"""The terminal's warm-up estimate (serving.startup): timed on the machine as it is now, so other
programs' load lengthens it, and said with the load it was timed under."""
import logging

from lab.speed.profile_eta import profile_seconds
from serving import startup
from shell.frame import warmup
def test_the_estimate_is_the_profile_timed_now_and_a_share_of_it_per_demo(monkeypatch, tiny_service):
    calls = iter([(0.010, 0.030, 0.004), (0.014, 0.034, 0.006)] * 2)
    monkeypatch.setattr(startup, "probe", lambda pair: next(calls))
    profile = profile_seconds(0.012, 0.032, 0.005)
    assert abs(startup.warmup_seconds(tiny_service, 1) - profile) < 1e-12
    assert abs(startup.warmup_seconds(tiny_service, 16) - profile * (1 + 15 * startup.PER_DEMO)) < 1e-12


def test_a_machine_three_times_slower_now_gets_an_estimate_three_times_longer(monkeypatch, tiny_service):
    quiet = (0.010, 0.030, 0.004)
    monkeypatch.setattr(startup, "probe", lambda pair: quiet)
    idle = startup.warmup_seconds(tiny_service, 16)
    monkeypatch.setattr(startup, "probe", lambda pair: tuple(3 * s for s in quiet))   # other work on the cores
    assert abs(startup.warmup_seconds(tiny_service, 16) - 3 * idle) < 1e-9


def test_a_busy_machine_lengthens_the_estimate_by_the_threads_sharing_its_cores():
    assert startup.sharing(0.7, 2) == 1.0                       # quiet: the timed calls say it all
    assert startup.sharing(5.7, 2) == (5.7 + startup.SERVER_THREADS) / 2
    assert startup.sharing(5.7, 8) == 1.0                       # eight cores: not busy


def test_the_line_says_the_load_it_was_timed_under():
    assert startup.estimate_line(27.4, 16, 0.3, 2) == (
        "warm-up: 16 default demos, about 27 s (this machine is quiet: load 0.3 on 2 cores)")
    assert startup.estimate_line(300, 16, 2.4, 2) == (
        "warm-up: 16 default demos, about 5 min (this machine is busy: load 2.4 on 2 cores)")
    load, cores = startup.machine_load()
    assert load >= 0 and cores >= 1


def test_the_warmup_says_its_estimate_before_its_first_demo(tiny_service, caplog):
    caplog.set_level(logging.INFO, logger="shell.frame.warmup")
    done = warmup.run(tiny_service)
    lines = [r.getMessage() for r in caplog.records if r.name == "shell.frame.warmup"]
    assert lines[0].startswith(f"warm-up: {len(done)} default demos, about ") and "load " in lines[0], lines
    assert lines[-1].startswith(f"warm-up: {len(done)} default demos ready in ")
