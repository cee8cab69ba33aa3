"""A lecturer's `panel serve app.py --args ...` reaches the pair loader: the badge shows the pair
asked for, and a pair that cannot be used is refused in one sentence while the lab serves another."""
from __future__ import annotations

import os

from tests.ui.helpers import open_page, served


def badge_text(browser, url) -> str:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        pg = context.new_page()
        open_page(pg, url)
        badge = pg.locator('.pair-badge [role="note"]').first        # uikit.panels.badge_html
        badge.wait_for(state="visible", timeout=90_000)
        return badge.inner_text()
    finally:
        context.close()


def test_args_choose_the_pair(browser, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECLAB_")}
    with served(env, tmp_path / "server.log", ("--pair", "tiny-gpt2", "--drafter", "lookup")) as url:
        text = badge_text(browser, url)
    assert "tiny gpt2 target" in text and "tiny gpt2 draft" in text
    assert "lookup" not in text      # the pair's own drafting (for measure) is not the pages' (the student's)


def test_a_bad_path_in_args_is_refused_in_one_sentence(browser, tmp_path):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SPECLAB_")}, "SPECLAB_PAIR": "tiny"}
    args = ["--target", "/no/such/folder/target", "--draft", "/no/such/folder/draft"]
    with served(env, tmp_path / "server.log", tuple(args)) as url:
        text = badge_text(browser, url)
    assert "tiny llama target" in text                       # the environment's pair serves instead
    assert "There is no model folder at" in text and "check the path" in text
    assert "/no/such/folder" not in text                     # pages never show server paths
    log = (tmp_path / "server.log").read_text()
    assert "/no/such/folder/target" in log                   # the lecturer's terminal keeps the detail
