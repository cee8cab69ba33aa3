"""The lecturer's command line: help that names the default pair's policy, progress that never goes
back, a quiet transformers, the generated text labelled, and cache faults in one sentence."""
import os
from pathlib import Path

import pytest

import lab.speed.measure
from lab.__main__ import ProgressLines, main
from lab.speed.measure import Measurement


def test_help_names_the_auto_policy(capsys):
    assert main(["--help"]) == 0
    assert "auto:12" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["measure", "--help"])
    assert "auto[:γ]" in capsys.readouterr().out


def test_progress_never_goes_back_and_says_each_message_once(capsys):
    bar = ProgressLines()
    loading, measuring = bar.phase(0.0, 0.1), bar.phase(0.1, 1.0)
    for f, message in [(1.0, "embedded pair ready"), (1.0, "embedded pair ready"), (0.9, "loading the pair")]:
        loading(f, message)
    for i in range(3):
        measuring(i / 3, f"measuring prompt {i + 1}")
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["[ 10%] embedded pair ready", "[ 10%] loading the pair", "[ 10%] measuring prompt 1",
                     "[ 40%] measuring prompt 2", "[ 70%] measuring prompt 3"]


def test_measure_labels_the_generated_text_and_keeps_transformers_quiet(monkeypatch, capsys):
    from transformers.utils import logging as hf_logging
    made = Measurement(target="t", draft="d", drafter="model", policy="γ = 4", gamma=4, new_tokens=5, alpha=0.5,
                       tokens_per_round=2.0, c=0.1, predicted_speedup=1.5, measured_speedup=1.4,
                       matches_target_greedy=True, text="\n\n    return x * 2", plain_seconds=1.0,
                       speculative_seconds=0.7, mean_target_seconds=0.01, mean_draft_seconds=0.001,
                       settings="greedy (temperature 0)")
    monkeypatch.setattr(lab.speed.measure, "measure", lambda *a, **k: (made, None, None))
    assert main(["measure", "--pair", "tiny", "--prompt", "def f(x):"]) == 0
    out = capsys.readouterr().out
    assert "matches target greedy         yes\nverdict                       pays off: 1.40× the speed of the target " \
           "alone (no rounds)\n\ngenerated text (5 new tokens):\n    return x * 2\n" in out
    assert hf_logging.get_verbosity() == hf_logging.ERROR and not hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_warning()
    hf_logging.enable_progress_bar()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")
def test_a_cache_folder_that_cannot_be_created_is_one_sentence(capsys, monkeypatch):
    monkeypatch.setenv("SPECLAB_CACHE", os.environ.get("SPECLAB_CACHE", ""))
    assert main(["prepare", "--cache", "/proc/speclab-cache"]) == 1
    assert capsys.readouterr().err == (
        "error: The lab cannot write its model cache at /proc/speclab-cache (the folder cannot be created "
        "there); set SPECLAB_CACHE to a writable folder with about 1 GB free and start again.\n")


def test_usage_lists_every_command_and_promises_no_time(capsys):
    """`python -m lab` alone lists prepare, measure and export; measure's line says it tells how long
    first (an estimate), never a fixed time it may not keep on a busy machine."""
    assert main([]) == 0
    usage = capsys.readouterr().out
    for command in ("python -m lab prepare", "python -m lab measure", "python -m lab export DIR"):
        assert command in usage, command
    assert "≤ 2 min" not in usage and "says how long first" in usage
    assert main(["nonsense"]) == 2
    assert "python -m lab export" in capsys.readouterr().out
