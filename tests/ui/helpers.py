"""What the browser tests share besides their fixtures (tests/ui/conftest.py): serving the app,
opening a page, reading what a page shows (Bokeh's models, text inside shadow roots, the tour's
step, the class poll's lines), when a page has settled, and what a lecturer presses on the tour
(the walk in bench/walk.py uses the last two too)."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from deploy.proxy import free_port  # noqa: F401  (the tests' servers take their ports from it)
from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.wire_order import OUT_OF_ORDER

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("SPECLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic"]
VIEWPORT = {"width": 1280, "height": 720}
# A browser that leaves mid-update makes tornado log these; they are not the app's errors.
BENIGN = ("StreamClosedError", "WebSocketClosedError")
LECTURER_TOKEN = "test-lecturer-token"
PROMPT_BOX = "Prompt (both models continue it)"   # the settings card's text area (its label)
SETTINGS = ".settings-card .card-header"        # the settings card's header (shell.frame.app), opens it


@contextlib.contextmanager
def served(env: dict, log_path: Path, args: tuple[str, ...] = ()):
    """`panel serve app.py [--args ARGS]` on a free port with `env`; yields the app's URL; after it
    stops, fails if the server logged a traceback or wrote a page's changes out of the order they
    were made (tests/ui/wire_order.py)."""
    port = free_port()
    command = [sys.executable, "-c", "import tests.ui.wire_order as w; w.serve()",   # panel, checked
               "serve", "app.py", "--port", str(port), "--address", "127.0.0.1",
               f"--allow-websocket-origin=127.0.0.1:{port}", "--num-procs", "1"] + (["--args", *args] if args else [])
    with open(log_path, "w") as out:
        # every test's browser is a new one from 127.0.0.1: allow that address many (shell.room.identity)
        proc = subprocess.Popen(command, cwd=ROOT, env={"SPECLAB_BROWSERS_PER_ADDRESS": "1000", "SPECLAB_VOTES_PER_ADDRESS": "1000", **env,
                                                        "PYTHONUNBUFFERED": "1"},
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


def separate_browsers(browser, n: int, errors: list) -> tuple[list, list]:
    """`n` browsers of their own (Playwright contexts, no shared cookie) with a page each at 1280×720;
    their console errors, page errors and failed requests are collected in `errors`."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(n)]
    pages = [c.new_page() for c in contexts]
    for pg in pages:
        pg.set_default_timeout(60000)
        pg.on("console", lambda m: m.type == "error" and errors.append(m.text[:300]))
        pg.on("pageerror", lambda e: errors.append(str(e)[:300]))
        pg.on("requestfailed", lambda r: errors.append(f"request failed: {r.url[:200]}"))
    return contexts, pages


def open_page(pg, url: str, ready_text: str | None = None, timeout: float = 60):
    """Go to `url`; wait until the app has rendered (and `ready_text` is visible, if given)."""
    pg.goto(url, wait_until="domcontentloaded")
    if ready_text:
        pg.get_by_text(ready_text, exact=False).first.wait_for(state="visible", timeout=timeout * 1000)


# --- what a page shows ---------------------------------------------------------------------------

# Read in the page: the data of every Bokeh source with all of `cols`; a slider's value by its title.
BOKEH_SOURCES = """(cols) => {
  const out = [];
  for (const d of Bokeh.documents)
    for (const m of d.all_models)
      if (m.type === 'ColumnDataSource' && cols.every(c => c in m.data)) out.push(m.data);
  return out.map(d => Object.fromEntries(cols.map(c => [c, Array.from(d[c])])));
}"""
SLIDER_VALUE = """(title) => {
  for (const d of Bokeh.documents)
    for (const m of d.all_models)
      if (m.type === 'Slider' && m.title.startsWith(title)) return m.value;
}"""
QUESTION = "Five guessed words are already on the page"         # chapter 3's question (the class poll)


def deep_text(pg) -> str:
    """The page's text, inside Bokeh's shadow roots too."""
    return pg.evaluate("""() => { const out = []; const walk = (n) => { if (n.shadowRoot) walk(n.shadowRoot);
      for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent); else if (c.nodeType === 1) walk(c); } };
      walk(document.body); return out.join('').replace(/\\s+/g, ' '); }""")


def has(pg, *texts) -> bool:
    """Whether the page's text (inside shadow roots too) has every one of `texts`."""
    text = deep_text(pg)
    return all(t in text for t in texts)


def lecturer_status(pg) -> str:
    """The line under question 3's histogram on the lecturer's view."""
    status = pg.locator('.poll-status[data-q="3"]')
    return status.first.inner_text() if status.count() else ""


def act(pg, hook: str):
    """The button a page marks `act-<hook>` (uikit.actions: "draw-many", "next-round", "reveal-3"…),
    found by what it does whatever its label's language; `.first` where a tour step shows two."""
    return pg.locator(f".act-{hook} button")


def taken(pg) -> None:
    """Wait until the page's predict card has taken the answer pressed: its verdict line names it (in
    bold) and waits for the experiment (uikit.predict)."""
    pg.locator(".predict-card .verdict.waiting b").first.wait_for()


def answer(pg, choice: str) -> None:
    """Press `choice` on the page's predict card and wait until the card has taken it."""
    pg.get_by_role("button", name=choice, exact=True).first.click()
    wait_until(lambda: has(pg, f"You said {choice}."), message=f"the card to take {choice}")


def rendered(page, n: int, timeout: float = 90, steps: int = len(TOUR)):
    """Wait until step n's live components are on the page (and its counter reads n / N: N the tour's
    `steps`, fewer in an export of the tour's first steps)."""
    page.wait_for_function(f"document.documentElement.dataset.tourRendered === '{n}'", timeout=timeout * 1000)
    wait_until(lambda: page.locator(".tour-counter").inner_text().strip() == f"{n} / {steps}", 30,
               message=f"the counter to read {n} / {steps}")


def no_scroll(page) -> tuple[int, int]:
    """(scrollHeight, clientHeight) of the page's scrolling main area."""
    return page.evaluate("() => { const m = document.querySelector('#main');"
                         " return [m.scrollHeight, m.clientHeight]; }")


UNSETTLED = """() => {
    // what is still to come: a working line's spinner, a time-left bar on screen, a slider handle
    // the shell has not named yet
    const roots = [document];
    let count = 0;
    while (roots.length) {
        const root = roots.pop();
        count += root.querySelectorAll(".busy .spin, .noUi-handle:not([aria-label])").length;
        for (const bar of root.querySelectorAll(".time-left")) if (bar.getClientRects().length) count += 1;
        for (const el of root.querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
    }
    return count;
}"""

# what a lecturer presses on a tour step before turning to the room (the walk measures what they see
# then); the measurements (step 10's and step 34's) are left out: they take a minute on a busy machine
ACTIONS = {3: "✎ Write", 6: "Ask the small model", 9: ("Tick the clock", 3), 12: ("▶ Next round", 2),
           16: "Next round", 20: "Draw", 21: "Draw 1000", 23: "Show p and q", 24: "Run accept + correct",
           27: "Step", 28: "Show a round where every draft is kept", 29: "Step", 35: "Read the timeline"}


@contextlib.contextmanager
def chromium():
    """Debian's chromium, launched through Playwright's sync API, closed afterwards."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
