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
