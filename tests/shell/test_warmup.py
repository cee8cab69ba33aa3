"""The start-up warm-up: after it, every default demo's first click is answered from the cache."""
import asyncio
import threading

import pytest

from serving.runtime import PairInUse
from serving.service import ModelService
from lab.pairs.tiny import tiny_pair
from shell.frame import warmup
from uikit.state import LabState


@pytest.fixture
def warm():
    pair = tiny_pair()
    service = ModelService(lambda: pair)
    done = warmup.run(service)
    return service, done


def no_model_work(monkeypatch, service):
    """Any model computation from here on fails the test: a miss in the service's cache, a decoder,
    a cost profile or a comparison of the two models."""
    def refuse(*a, **k):
        raise AssertionError("a first click computed instead of using the warm-up")
    real_cached = service.cached
    monkeypatch.setattr(service, "cached", lambda key, compute: real_cached(key, lambda: refuse(key)))
    import lab.experiments.compare
    import lab.core.engine
    import lab.speed.costs
    monkeypatch.setattr(lab.core.engine.Decoder, "__init__", refuse)
    monkeypatch.setattr(lab.speed.costs, "measure_profile", refuse)
    for name in ("first_guesses", "next_token_distributions", "token_probability"):
        monkeypatch.setattr(lab.experiments.compare, name, refuse)


def test_every_default_demo_is_warmed(warm):
    service, done = warm
    assert done == [what for what, *_ in warmup.jobs(service)]
    assert len(done) == 25 and done[0] == "the pair's cost profile"
    assert done[-16] == "the default request (chapters 10, 11, 12 and 13)"
    assert done[-15:-9] == [f"chapter 13's {k}" for k in ("stories", "facts", "instructions", "code", "json", "edits")]
    assert done[-9:-1] == [f"the preset {label!r} guessed by {who}" for label in
                           ("Edit a record", "Story opening", "Code", "JSON")
                           for who in ("the draft model", "copying from the text")]
    assert done[-1] == "the default drafting of the default request (chapter 12's default row, the lecturer's view)"


def test_first_clicks_after_the_warm_up_compute_nothing(warm, monkeypatch, make_chapter):
    from chapters.ch01_dilemma import DilemmaChapter
    from chapters.ch02_easy_words import EasyWordsChapter
    from chapters.ch04_guess_check_keep import GuessCheckKeepChapter
    from chapters.ch05_one_pass import OnePassChapter
    from chapters.ch07_correction import CorrectionChapter
    from chapters.ch08_full_round import FullRoundChapter
    from chapters.ch10_breakeven import BreakEvenChapter
    from chapters.ch11_timeline import TimelineChapter
    from chapters.ch13_predictable import PredictableChapter
    from lab.experiments.presets import PRESETS
    from uikit.presets import PresetBar
    service, _ = warm
    no_model_work(monkeypatch, service)

    def first_click(cls, action):
        ch = make_chapter(cls, LabState(service))
        ch.animate = False
        asyncio.run(action(ch))
        assert ch.problem.object == "", (cls.__name__, ch.problem.object)
        return ch

    clicks = [first_click(DilemmaChapter, lambda c: c.write()),
              first_click(EasyWordsChapter, lambda c: c.ask()),
              first_click(GuessCheckKeepChapter, lambda c: c.next_round()),
              first_click(OnePassChapter, lambda c: c.load()),
              first_click(FullRoundChapter, lambda c: c.load()),
              first_click(FullRoundChapter, lambda c: c.show_all_kept()),
              first_click(CorrectionChapter, lambda c: c.load()),
              first_click(TimelineChapter, lambda c: c.load()),
              first_click(BreakEvenChapter, lambda c: c.use_my_models()),
              first_click(PredictableChapter, lambda c: c.measure())]
    for preset in PRESETS:                      # the preset bar says who wins on a preset's first press
        bar = PresetBar(LabState(service), drafters=True)
        bar.choose(preset.key)
        assert asyncio.run(bar.measure()).startswith("Measured here")
    assert clicks[0].race is not None and clicks[2].rounds and clicks[3].generation is not None


def test_started_once_per_server_after_the_pair_has_loaded():
    class Loader:
        """A pair loader that is not ready until told; it says when it has been asked twice."""
        error, is_ready, asked = "", False, 0
        asked_twice = threading.Event()
        pair_in_use = PairInUse()

        @property
        def ready(self):
            self.asked += 1
            if self.asked >= 2:
                self.asked_twice.set()
            return self.is_ready
    runs, ran = [], threading.Event()
    server = warmup.WarmUp(work=lambda service: runs.append(service) or ran.set())
    loader = Loader()
    assert server.start(loader, interval=0.01) is True and server.start(loader) is False
    assert loader.asked_twice.wait(10)
    assert runs == []                       # asked, and not started before the pair is in
    loader.is_ready = True
    assert ran.wait(10) and runs == [loader.pair_in_use.service()]     # on the loaded pair's service
