"""`python -m lab export DIR --page accept-rule` (tiny pair): the page and an index.html that links it,
no tour step; a folder of other files refused in one sentence, an earlier export replaced; the landing
page's course line only with --course (escaped). Chapter 6's experiment in the export, opened from
file:// in chromium with every other request blocked: Draw 1000 draws (the served page's own draws
for the same seed), the predict verdict shows only once a draw ran, and a draw after p(A) moved says
the moved value's threshold and share, never the default's."""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys

import pytest

from lab.experiments.twotokens import rounds, student_rng, thresholds
from tests.helpers import wait_until
from tests.ui.helpers import ROOT, act, deep_text, has
from tests.ui.export_helpers import made_once, offline, open_file   # noqa: F401  (the offline page fixture)

COURSE = '<i>CS 101</i> · Week 6 & "decoding"'


def page_text(path) -> str:
    """An exported page's text with its panes' HTML unescaped (Bokeh's JSON holds it escaped twice)."""
    return html.unescape(html.unescape(path.read_text()))


def export(out, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "lab", "export", str(out), "--pair", "tiny", "--page", "accept-rule",
                           "--states", "5", "--seconds", "10", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Chapter 6 exported twice into one folder: without --course, then (replacing it) with one; made
    once for this file's browser tests and its others (made_once)."""
    def make(out):
        first = export(out)
        assert first.returncode == 0, first.stderr[-3000:]
        index = page_text(out / "index.html")
        assert '<div class="landing"><h1>' in index and "DSAI" not in index      # no course line
        (out / "tour-7.html").write_text("an earlier export's page")       # as a fuller earlier export left it
        again = export(out, "--course", COURSE)
        assert again.returncode == 0, again.stderr[-3000:]
        assert f"Open {out / 'index.html'}" in again.stderr
    return made_once(tmp_path_factory, "export-page-site", make)


def test_page_writes_the_page_and_an_index_linking_it_and_no_tour(site):
    names = sorted(p.name for p in site.glob("*.html"))
    assert "index.html" in names and "accept-rule.html" in names
    assert not [n for n in names if n.startswith("tour-")], names      # the earlier export's step is gone too
    assert 'href="accept-rule.html"' in page_text(site / "index.html")


def test_the_course_line_is_the_lecturers_escaped(site, offline):
    text = page_text(site / "index.html")
    assert '<div class="eyebrow">&lt;i&gt;CS 101&lt;/i&gt; ' in text and ' &amp; &quot;decoding&quot;</div>' in text
    open_file(offline, site, "index.html")
    assert has(offline, COURSE)


def test_a_folder_of_other_files_is_refused_in_one_sentence(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    done = export(tmp_path)
    assert done.returncode == 2
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and "not an export of the lab" in said[0], said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def text_of(pg) -> str:
    return deep_text(pg)


def test_draw_1000_draws_and_the_verdict_waits_for_it(site, offline):
    open_file(offline, site, "accept-rule.html")
    choice = "Always keep it: the draft proposed it"
    offline.get_by_role("button", name=choice, exact=True).click()
    wait_until(lambda: has(offline, f"You said {choice}."), message="the card to take the answer")
    assert not has(offline, "Not quite") and not has(offline, "✓ Right")       # no verdict before a draw
    act(offline, "draw-many").click()
    wait_until(lambda: has(offline, "Last of 1000 draws"), message="the draws on the page")
    wait_until(lambda: has(offline, "Not quite"), message="the verdict once the experiment ran")
    assert not has(offline, "not recorded")
    # the served page's draws for the same seed (the export's one browser: seed 0, no owner)
    r = rounds(0.6, 0.8, 1000, student_rng(0, None))
    assert has(offline, f"u = {r.u[-1]:.3f}", f"After 1000 rounds, {(r.out == 0).mean():.3f}")


def test_a_draw_follows_the_moved_slider(site, offline):
    open_file(offline, site, "accept-rule.html")
    handle = offline.locator(".noUi-handle").filter(visible=True).first     # p(A), at 0.60
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(35):
        offline.keyboard.press("ArrowLeft")
    wait_until(lambda: has(offline, "p(A) = 0.25"), message="p(A) moved to 0.25")
    # a screen reader hears the moved value: noUiSlider's aria-valuetext (its aria-valuenow is the same
    # value to one decimal, "0.3", as on a served page)
    assert handle.get_attribute("aria-valuetext") == "0.25"
    for _ in range(3):      # three single draws: A is proposed with q(A) = 0.80, so surely once
        act(offline, "draw").click()
    wait_until(lambda: has(offline, "After 3 rounds"), message="three draws")
    said = re.search(r"the draft proposed (A|B); u = [0-9.]+ [<≥] min\(1, p/q\) = ([0-9.]+)", text_of(offline))
    assert said, text_of(offline)[:2000]
    want = thresholds(0.25, 0.8)[0 if said.group(1) == "A" else 1]
    assert said.group(2) == f"{want:.3f}" and "0.750" not in said.group(0)
    act(offline, "draw-many").click()
    wait_until(lambda: has(offline, "After 1003 rounds"), message="1000 more draws")
    assert has(offline, "the target's p(A) = 0.25")
