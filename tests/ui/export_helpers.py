"""What the browser tests of the export share: a page that opens the exported folder from file://
with every other request blocked (the `offline` fixture), and opening one of its files."""
from __future__ import annotations

import pytest

from tests.ui.helpers import VIEWPORT


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
