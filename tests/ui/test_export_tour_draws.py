"""Chapter 6's draws carried across its tour steps in the export (issue 49), in chromium from
file:// with every other request blocked: Draw on step 20, then →: step 21 opens with that draw in
its table (the code of Draw, which step 21 does not show, run again), Draw 1000 there continues the
same generator (1001 rounds), a reload keeps both, and step 21 opened afresh shows none."""
from __future__ import annotations

import re

import numpy as np
import pytest

from export.files import Contents, Copier, page_file
from export.site import export_page, start_folder
from chapters.ch06_accept_rule import QUESTION_P as P, QUESTION_Q as Q, frequency_table_html
from lab.experiments.twotokens import rounds, student_rng, thresholds
from shell.frame.app import panel_settings
from shell.tour.steps import TOUR
from tests.helpers import run_apart, wait_until
from tests.ui.helpers import act, deep_text, has
from tests.ui.export_helpers import offline, open_file   # noqa: F401  (the offline page fixture)

DRAW_STEP = next(i for i, s in enumerate(TOUR, 1) if s.get("action") == "Draw")   # Draw shown
AFTER = DRAW_STEP + 1                                                           # Draw not shown


@pytest.fixture(scope="module")
def site(tmp_path_factory, tiny_service):
    """The two steps' pages alone (a small recording each), as `python -m lab export` writes them."""
    out = tmp_path_factory.mktemp("draws") / "site"

    async def go():
        panel_settings()
        start_folder(out)
        copier = Copier(out, Contents.of([""], AFTER))
        for step in (DRAW_STEP, AFTER):
            await export_page(out, copier, "", tiny_service, step, max_nodes=3, max_seconds=10)
    run_apart(go())
    return out


def table(*batches: int) -> str:
    """The frequency table's text after these batches of draws, as the served page draws them (the
    export's one browser: seed 0, no owner) and shows them (its cells' text, run together)."""
    rng, proposed, kept = student_rng(0, None), np.zeros(2, dtype=int), np.zeros(2, dtype=int)
    for n in batches:
        r = rounds(P, Q, n, rng)
        proposed += np.bincount(r.x, minlength=2)
        kept += np.bincount(r.x[r.kept], minlength=2)
    freq = np.where(proposed > 0, kept / np.maximum(proposed, 1), np.nan)
    return re.sub(r"<[^>]+>", "", frequency_table_html(P, Q, proposed, kept, freq, thresholds(P, Q)))


def shows(pg, *batches: int) -> bool:
    return table(*batches) in deep_text(pg)


def test_the_draws_of_step_20_open_step_21(site, offline):
    open_file(offline, site, page_file("", DRAW_STEP))
    act(offline, "draw").click()
    first = rounds(P, Q, 1, student_rng(0, None))          # the served page's draw for the same seed
    wait_until(lambda: has(offline, f"u = {first.u[-1]:.3f}"), message="the draw on step 20")
    offline.keyboard.press("ArrowRight")
    offline.wait_for_url(f"**/tour-{AFTER}.html*")
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    wait_until(lambda: shows(offline, 1), message="step 20's draw in step 21's table")
    assert not has(offline, "has no recording of")           # no press said missed
    act(offline, "draw-many").click()
    wait_until(lambda: shows(offline, 1, 1000), message="Draw 1000 after the carried draw (1001 rounds)")
    offline.reload()
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    wait_until(lambda: shows(offline, 1, 1000), message="both after a reload")
    open_file(offline, site, page_file("", AFTER))            # opened afresh: a new tour
    wait_until(lambda: shows(offline), message="no draws on a fresh step 21")
