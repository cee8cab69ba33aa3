"""Browser tests against a served app: `panel serve app.py` on the tiny pair, Debian chromium.

Fixtures (generic, shared by every tests/ui/test_*.py; the plain functions they use, such as
`served` and `open_page`, are in tests/ui/helpers.py):
    server      the base URL of the app, e.g. "http://127.0.0.1:40123/app" (one server per session)
    page        a fresh Playwright page at 1280×720; console errors and requests to any other host
                are collected and asserted empty at teardown
    shot(page, name)   save tests/ui/screenshots/<name>.png
    wait_until(fn, timeout=…)   poll fn() until truthy (no sleeping on guesses)

Run: `pytest tests/ui` (needs /usr/bin/chromium; never `playwright install`).
"""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, VIEWPORT, chromium, served

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app on the tiny pair (SPECLAB_PAIR=tiny) with a lecturer token; yields its URL."""
    env = {**os.environ, "SPECLAB_PAIR": os.environ.get("SPECLAB_PAIR", "tiny"),
           "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN}
    with served(env, tmp_path_factory.mktemp("server") / "server.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser, server):
    """A fresh page (own cookies); fails at teardown on console errors or requests off the server."""
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    origin = "{0.scheme}://{0.netloc}".format(urlparse(server))
    errors, outside = [], []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text[:300]))
    pg.on("pageerror", lambda e: errors.append(str(e)[:300]))
    pg.on("request", lambda r: r.url.startswith(("http:", "https:", "ws:", "wss:"))
          and not r.url.startswith((origin, origin.replace("http", "ws", 1))) and outside.append(r.url))
    pg.set_default_timeout(30000)
    yield pg
    context.close()
    assert not outside, f"requests left the server: {outside[:5]}"
    assert not errors, f"console errors: {errors[:5]}"


@pytest.fixture
def shot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(pg, name: str, scroll_to=None):
        """Screenshot the viewport; `scroll_to` (a locator) is scrolled into view first."""
        if scroll_to is not None:
            scroll_to.scroll_into_view_if_needed()
        path = SCREENSHOTS / f"{name}.png"
        pg.screenshot(path=str(path))
        return path
    return save


@pytest.fixture(name="wait_until")
def wait_until_fixture():
    return wait_until
