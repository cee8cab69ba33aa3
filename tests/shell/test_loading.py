"""The pair loader's progress: pages read it; a log file gets a line per stage, a terminal one line."""
import logging

from shell.frame.loading import PairLoader


def test_progress_never_goes_back_and_a_log_gets_one_line_per_stage(caplog):
    loader = PairLoader()
    with caplog.at_level(logging.INFO, logger="shell.frame.loading"):
        for fraction, message in [(0.35, "dequantising the GGUF"), (1.0, "embedded pair ready"),
                                  (1.0, "embedded pair ready"), (0.9, "loading target and draft /srv/models/x")]:
            loader.progress(fraction, message)
    assert loader.fraction == 1.0 and loader.message == "loading target and draft …"   # no server path
    assert [r.getMessage() for r in caplog.records] == [
        "loading the models:  35% dequantising the GGUF", "loading the models: 100% embedded pair ready",
        "loading the models: 100% loading target and draft …"]


def test_the_bar_reads_100_only_once_the_pair_is_ready():
    """The pair's own loader reports 100% before the heap has settled: the page's bar stops short of
    it (PAIR_SHARE) until `ready`, so the landing page never shows 100% while still loading."""
    import threading
    from types import SimpleNamespace
    from shell.frame.loading import PAIR_SHARE

    seen, settling, go_on = [], threading.Event(), threading.Event()
    pair = SimpleNamespace(target_label="t", draft_label="d", device="cpu")

    class Pair:
        def load(self, progress):
            progress(0.5, "loading")
            progress(1.0, "pair loaded")

        def service(self):
            return SimpleNamespace(pair=pair)

    class Heap:
        def settle(self):
            settling.set()
            go_on.wait(10)

    loader = PairLoader(Pair(), Heap())
    loader.start()
    assert settling.wait(10)
    seen.append((loader.fraction, loader.ready))
    go_on.set()
    loader._thread.join(10)
    assert seen == [(PAIR_SHARE, False)] and PAIR_SHARE < 1
    assert loader.ready and loader.fraction == 1.0
