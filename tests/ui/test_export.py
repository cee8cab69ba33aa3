"""The exported lab (shell/export) opened from file:// in chromium with every other request blocked:
every page renders with no console error and no request leaving the folder, chapter 4's Next round
replays the recorded round, chapter 10's α slider redraws in the browser, chapter 6's Draw replays,
chapter 12's table is there, a predict answer survives a reload, and the tour advances with →
(the test exports the tour's first two steps)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shell.export.files import page_file
from shell.export.site import site_pages
from tests.helpers import wait_until
from tests.ui.helpers import ROOT, VIEWPORT, deep_text, has


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The tiny pair's lab exported with a small recording budget (a few states per page)."""
    out = tmp_path_factory.mktemp("export")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "lab", "export", str(out), "--pair", "tiny", "--states", "5",
                           "--seconds", "10", "--tour", "2"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "about" in done.stderr and "left" in done.stderr       # progress with a time estimate
    return out


@pytest.fixture
def offline(browser):
    """A page whose non-file requests are aborted and counted; asserts none and no console error."""
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    errors, blocked = [], []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text[:300]))
    pg.on("pageerror", lambda e: errors.append(str(e)[:300]))

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    pg.set_default_timeout(30000)
    yield pg
    context.close()
    assert not blocked, f"requests left the folder: {blocked[:5]}"
    assert not errors, f"console errors: {errors[:5]}"


def open_file(pg, site, name: str) -> None:
    pg.goto(f"file://{site / name}")
    pg.wait_for_selector("html[data-export-ready='1']", timeout=60000)


def test_every_page_opens_offline(site, offline):
    for slug in site_pages():
        open_file(offline, site, page_file(slug))
        assert has(offline, "Speculative Lab")
    sizes = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    assert sizes < 40e6


def test_ch04_next_round_replays_the_recorded_round(site, offline):
    open_file(offline, site, page_file("guess-check-keep"))
    assert not has(offline, "Round 1:")
    offline.get_by_role("button", name="▶ Next round").click()
    wait_until(lambda: has(offline, "Round 1:"), message="the recorded round on the page")


def test_ch10_alpha_slider_redraws_in_the_browser(site, offline):
    open_file(offline, site, page_file("breakeven"))
    before = deep_text(offline)
    handle = offline.locator(".noUi-handle").filter(visible=True).first
    handle.scroll_into_view_if_needed()
    handle.focus()
    offline.keyboard.press("ArrowLeft")
    wait_until(lambda: deep_text(offline) != before, message="the α slider to redraw the page")


def test_ch06_draw_and_ch12_table(site, offline):
    open_file(offline, site, page_file("accept-rule"))
    before = deep_text(offline)
    offline.get_by_role("button", name="Draw", exact=False).first.click()
    wait_until(lambda: deep_text(offline) != before, message="the recorded draw on the page")
    open_file(offline, site, page_file("cheaper-guesses"))
    assert offline.locator("table").count() or "table" in deep_text(offline).lower()


def test_a_predict_answer_survives_a_reload(site, offline):
    open_file(offline, site, page_file("guess-check-keep"))
    choice = "The draft’s: it wrote most of the tokens"
    offline.get_by_role("button", name=choice, exact=True).click()
    wait_until(lambda: has(offline, f"You said {choice}."), message="the card to take the answer")
    offline.reload()
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    wait_until(lambda: has(offline, f"You said {choice}."), message="the answer after a reload")


def test_the_tour_advances_with_the_arrow_key(site, offline):
    open_file(offline, site, page_file("", 1))
    offline.wait_for_selector("html[data-tour-step='1']")
    offline.keyboard.press("ArrowRight")
    offline.wait_for_url("**/tour-2.html*")
    offline.wait_for_selector("html[data-export-ready='1']", timeout=60000)
    offline.wait_for_selector("html[data-tour-step='2']")
