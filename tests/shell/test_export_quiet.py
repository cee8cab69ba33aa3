"""The export's terminal holds its own progress lines (and real errors), as the served lab's log is
quiet (shell.frame.quietlog): transformers' loading bars and Bokeh's validation warnings only with
--verbose (export/command.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOISE = ("Loading weights", "W-1002")

# What an export does that makes the libraries talk: a pair loaded from its folder by transformers, a
# page with a layout that has no children yet validated by Bokeh, and then one real Bokeh error.
LOUD = """
import sys, tempfile
from export.command import quiet
quiet(sys.argv[1] == "detail")
from bokeh.document import Document
from bokeh.models import ColumnDataSource, Row, Plot, GlyphRenderer, Line
from transformers import AutoModelForCausalLM
from lab.pairs.tiny import tiny_model
with tempfile.TemporaryDirectory() as folder:
    tiny_model("llama", 40, layers=1, width=32, seed=0).save_pretrained(folder)
    AutoModelForCausalLM.from_pretrained(folder)
doc = Document()
doc.add_root(Row())
doc.validate()
bad = Plot()
bad.renderers.append(GlyphRenderer(data_source=ColumnDataSource(data=dict(x=[1], y=[1])), glyph=Line(x="x", y="nope")))
doc.add_root(bad)
doc.validate()
"""


def run(args: list[str], env: dict | None = None) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**{k: v for k, v in os.environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"},
                               "HF_HUB_OFFLINE": "1", **(env or {})})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr


def test_the_libraries_noise_is_left_out_and_errors_still_show():
    detail = run(["-c", LOUD, "detail"])
    assert all(noise in detail for noise in NOISE)           # what the libraries print when let be
    quiet = run(["-c", LOUD, "quiet"])
    assert not any(noise in quiet for noise in NOISE)
    assert "E-1001" in quiet and "E-1001" in detail          # a real error still shows


def test_an_export_prints_only_its_own_lines(tmp_path):
    shown = run(["-m", "lab", "export", str(tmp_path / "site"), "--page", "", "--tour", "0"],
                env={"SPECLAB_PAIR": "tiny", "SPECLAB_VERBOSE": ""})
    lines = [line for line in shown.splitlines() if line.strip()]
    assert lines and all(line.startswith("export:") for line in lines), shown[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
