"""Browser tests against a served app: `panel serve app.py` on the tiny pair, Debian chromium.

Fixtures (generic, shared by every tests/ui/test_*.py):
    server      the base URL of the app, e.g. "http://127.0.0.1:40123/app" (one server per session)
    served(env, log, args)   a context manager serving app.py with its own environment and --args
    page        a fresh Playwright page at 1280×720; console errors and requests to any other host
                are collected and asserted empty at teardown
    shot(page, name)   save tests/ui/screenshots/<name>.png
    wait_until(fn, timeout=…)   poll fn() until truthy (no sleeping on guesses)

Run: `pytest tests/ui` (needs /usr/bin/chromium; never `playwright install`).
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.helpers import wait_until
from tests.ui.wire_order import OUT_OF_ORDER

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = os.environ.get("SPECLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic"]
VIEWPORT = {"width": 1280, "height": 720}
# A browser that leaves mid-update makes tornado log these; they are not the app's errors.
BENIGN = ("StreamClosedError", "WebSocketClosedError")
LECTURER_TOKEN = "test-lecturer-token"
PROMPT_BOX = "Prompt (both models continue it)"   # the settings card's text area (its label)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(env: dict, log_path: Path, args: tuple[str, ...] = ()):
    """`panel serve app.py [--args ARGS]` on a free port with `env`; yields the app's URL; after it
    stops, fails if the server logged a traceback or wrote a page's changes out of the order they
    were made (tests/ui/wire_order.py)."""
    port = _free_port()
    command = [sys.executable, "-c", "import tests.ui.wire_order as w; w.serve()",   # panel, checked
               "serve", "app.py", "--port", str(port), "--address", "127.0.0.1",
               f"--allow-websocket-origin=127.0.0.1:{port}", "--num-procs", "1"] + (["--args", *args] if args else [])
    with open(log_path, "w") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"},
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/app"

    def answers():
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited early:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    try:
        wait_until(answers, timeout=120, interval=0.5, message="the server to answer")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    text = log_path.read_text()
    problems = [block for block in text.split("Traceback (most recent call last):")[1:]
                if not any(benign in block for benign in BENIGN)]
    assert not problems, f"the server logged a traceback:\n{problems[0][-4000:]}"
    swapped = text.split(OUT_OF_ORDER)[1:]
    assert not swapped, f"the server wrote a page's changes out of order:\n{swapped[0][:4000]}"


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app on the tiny pair (SPECLAB_PAIR=tiny) with a lecturer token; yields its URL."""
    env = {**os.environ, "SPECLAB_PAIR": os.environ.get("SPECLAB_PAIR", "tiny"),
           "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN}
    with served(env, tmp_path_factory.mktemp("server") / "server.log") as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


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


def open_page(pg, url: str, ready_text: str | None = None, timeout: float = 60):
    """Go to `url`; wait until the app has rendered (and `ready_text` is visible, if given)."""
    pg.goto(url, wait_until="domcontentloaded")
    if ready_text:
        pg.get_by_text(ready_text, exact=False).first.wait_for(state="visible", timeout=timeout * 1000)


@pytest.fixture(name="wait_until")
def wait_until_fixture():
    return wait_until
