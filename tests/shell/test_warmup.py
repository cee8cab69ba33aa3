"""The start-up warm-up: after it, every default demo's first click is answered from the cache."""
import asyncio
import time

import pytest

from lab.service import ModelService
from lab.tiny import tiny_pair
from shell import warmup
from uikit.state import LabState


@pytest.fixture
def warm():
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    done = warmup.run(service)
    return service, done


def no_model_work(monkeypatch):
    """Any model computation from here on fails the test."""
    def refuse(*a, **k):
        raise AssertionError("a first click computed instead of using the warm-up")
    import lab.compare
    import lab.engine
    import lab.costs
    monkeypatch.setattr(lab.engine.Decoder, "__init__", refuse)
    monkeypatch.setattr(lab.costs, "measure_profile", refuse)
    for name in ("first_guesses", "next_token_distributions", "token_probability"):
        monkeypatch.setattr(lab.compare, name, refuse)


def test_every_default_demo_is_warmed(warm):
    service, done = warm
    assert done == [what for what, *_ in warmup.jobs(service)]
    assert len(done) == 9 and done[0] == "the pair's cost profile"
    assert done[-1] == "the default request (chapters 10, 11, 12 and 13)"


def test_first_clicks_after_the_warm_up_compute_nothing(warm, monkeypatch, make_chapter):
    from chapters.ch01_dilemma import DilemmaChapter
    from chapters.ch02_easy_words import EasyWordsChapter
    from chapters.ch04_guess_check_keep import GuessCheckKeepChapter
    from chapters.ch05_one_pass import OnePassChapter
    from chapters.ch07_correction import CorrectionChapter
    from chapters.ch08_full_round import FullRoundChapter
    from chapters.ch10_breakeven import BreakEvenChapter
    from chapters.ch11_timeline import TimelineChapter
    service, _ = warm
    no_model_work(monkeypatch)

    def first_click(cls, action):
        ch = make_chapter(cls, LabState(service))
        ch.animate = False
        started = time.monotonic()
        asyncio.run(action(ch))
        assert ch.problem.object == "", (cls.__name__, ch.problem.object)
        return ch, time.monotonic() - started

    clicks = [first_click(DilemmaChapter, lambda c: c.write()),
              first_click(EasyWordsChapter, lambda c: c.ask()),
              first_click(GuessCheckKeepChapter, lambda c: c.next_round()),
              first_click(OnePassChapter, lambda c: c.load()),
              first_click(FullRoundChapter, lambda c: c.load()),
              first_click(CorrectionChapter, lambda c: c.load()),
              first_click(TimelineChapter, lambda c: c.load()),
              first_click(BreakEvenChapter, lambda c: c.use_my_models())]
    for ch, seconds in clicks:
        assert seconds < 2.0, type(ch).__name__
    assert clicks[0][0].race is not None and clicks[2][0].rounds and clicks[3][0].generation is not None


def test_started_once_per_server_after_the_pair_has_loaded(monkeypatch):
    class Loader:
        ready, error = False, ""
    runs = []
    monkeypatch.setattr(warmup, "_started", False)
    monkeypatch.setattr(warmup, "run", lambda service: runs.append(service))
    loader = Loader()
    assert warmup.start(loader) is True and warmup.start(loader) is False
    time.sleep(0.7)
    assert runs == []                       # not before the pair is in
    loader.ready = True
    deadline = time.monotonic() + 5
    while not runs and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(runs) == 1
