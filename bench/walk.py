"""A class day's walk in a browser: the landing page, every chapter page and every tour step.

Serves app.py (the tiny pair by default, `--pair embedded` for the real one), walks it with
Playwright in Debian's chromium, and counts the browser's console errors and the server's
tracebacks. Prints one line per page and a summary; exits 1 when either count is not zero.

    python bench/walk.py                     # tiny pair, once
    python bench/walk.py --pair embedded --times 3
    python bench/walk.py --no-press          # the tour without pressing each step's button
    python bench/walk.py --pair embedded --width 1920 --height 1080 --shots /tmp/shots   # and look

Each page is left once it has settled (its last section shown, no spinner, no slider handle left
unnamed) and the server's log has been quiet for `--quiet` seconds, so late errors land on the page
that caused them. The tour presses what a lecturer presses on the way (tests/ui/test_tour_fits.py).
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chapters.registry import pages  # noqa: E402
from shell.tour.steps import TOUR  # noqa: E402
from tests.ui.helpers import ACTIONS, BENIGN, CHROMIUM, CHROMIUM_ARGS, UNSETTLED  # noqa: E402
from tests.ui.tour_rules import settled  # noqa: E402

TRACEBACK = "Traceback (most recent call last):"
STARTS = 5.0          # seconds a press may take to show its work begun (a round trip on a busy machine)


def wait_until(fn, timeout: float, message: str, interval: float = 0.2):
    """Poll fn() until truthy; raise TimeoutError with `message` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value:
                return value
        except Exception:      # the page is still being built
            pass
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {message}")


class Server:
    """`panel serve app.py` on a free port, its output in a log file (or, with `url`, a lab already
    served whose output goes to `log`)."""

    def __init__(self, pair: str, log: Path, url: str | None = None):
        self.log, self.proc = log, None
        if url:
            self.url = url
            return
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/app"
        self.log = log
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("SPECLAB_PAIR", None)
        if pair != "embedded":
            env["SPECLAB_PAIR"] = pair
        command = [sys.executable, "-m", "panel", "serve", "app.py", "--port", str(self.port),
                   "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{self.port}", "--num-procs", "1"]
        with open(log, "w") as out:
            self.proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        wait_until(self._answers, 300, "the server to answer", interval=0.5)

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise SystemExit(f"the server exited early:\n{self.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(self.url, timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tracebacks(self, since: int = 0) -> list[str]:
        """The server's tracebacks in its log after character `since`, benign disconnects left out."""
        blocks = self.text()[since:].split(TRACEBACK)[1:]
        return [b.strip() for b in blocks if not any(benign in b for benign in BENIGN)]

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Walk:
    """One browser tab walking the lab; errors are kept per place."""

    def __init__(self, browser, server: Server, quiet: float, viewport: dict, verbose: bool = False,
                 shots: Path | None = None):
        self.server, self.quiet, self.verbose, self.shots = server, quiet, verbose, shots
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.page.set_default_timeout(90000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text[:300]))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)[:300]))
        self.rows: list[tuple[str, int, int, float]] = []      # (where, console errors, tracebacks, seconds)
        self.details: list[str] = []

    def settle(self, last: str | None) -> None:
        if last:
            self.page.locator(last).first.wait_for(timeout=120000)
        wait_until(lambda: self.page.evaluate(UNSETTLED) == 0, 120, "the page to settle")
        last = {"size": len(self.server.text()), "at": time.monotonic()}   # the log's size, and since when

        def log_quiet():      # the server has written nothing for `quiet` seconds
            now = len(self.server.text())
            if now != last["size"]:
                last.update(size=now, at=time.monotonic())
                return False
            return time.monotonic() - last["at"] >= self.quiet
        wait_until(log_quiet, 60, "the server's log to be quiet")

    def started(self, button, within: float = STARTS) -> None:
        """After a press: wait until the page shows its work begun (the button off or a working line
        spinning), so a settle that follows cannot read the page before the server answered the
        press. Work quicker than a poll has begun and ended: nothing to wait for then."""
        try:
            wait_until(lambda: not button.is_enabled() or self.page.evaluate(UNSETTLED) > 0, within,
                       "the press to start its work", interval=0.05)
        except TimeoutError:
            pass

    def visit(self, where: str, action) -> None:
        errors_before, log_before, t0 = len(self.errors), len(self.server.text()), time.monotonic()
        try:
            action()
        except Exception as err:       # a page that does not settle is a finding, not the end of the walk
            self.errors.append(f"{where}: {type(err).__name__}: {str(err)[:200]}")
        if self.shots is not None:     # what the place looks like once settled (and pressed)
            self.shots.mkdir(parents=True, exist_ok=True)
            name = f'{len(self.rows) + 1:02d}-{where.replace("?chapter=", "chapter-").replace(" ", "-")}'
            self.page.screenshot(path=str(self.shots / f"{name}.png"))
            if not where.startswith("tour"):
                self.screens(name)
        console = self.errors[errors_before:]
        tracebacks = self.server.tracebacks(log_before)
        self.rows.append((where, len(console), len(tracebacks), time.monotonic() - t0))
        self.details += [f"{where}: console: {e}" for e in console]
        self.details += [f"{where}: traceback: …{t[-600:]}" for t in tracebacks]
        if self.verbose:
            print(f"    {where:32s} {time.monotonic() - t0:5.1f} s  console errors {len(console)}  "
                  f"tracebacks {len(tracebacks)}", flush=True)
            for line in self.details[-(len(console) + len(tracebacks)):] if console or tracebacks else []:
                print("       ", line.replace("\n", "\n        ")[:2000], flush=True)

    def screens(self, name: str) -> None:
        """The rest of a page that scrolls, a screen at a time (NAME-2.png, NAME-3.png, …), then back
        to its top."""
        scroller = "(document.getElementById('main') || document.scrollingElement)"
        for k in range(2, 40):
            moved = self.page.evaluate(f"""() => {{ const s = {scroller}; const top = s.scrollTop;
                s.scrollTop = top + Math.round(s.clientHeight * 0.9); return s.scrollTop - top; }}""")
            if moved < 1:
                break
            self.page.wait_for_timeout(300)
            self.page.screenshot(path=str(self.shots / f"{name}-{k}.png"))
        self.page.evaluate(f"() => {{ {scroller}.scrollTop = 0; }}")

    def open(self, query: str, last: str | None) -> None:
        self.page.goto(self.server.url + query, wait_until="domcontentloaded")
        self.settle(last)

    def tour(self, press: bool) -> None:
        n_steps = len(TOUR)
        self.page.goto(self.server.url + "?tour=1", wait_until="domcontentloaded")
        for n in range(1, n_steps + 1):
            if self.rows and self.rows[-1][0].startswith("tour step") and self.rows[-1][1]:
                # the step before failed (it may not have moved on): open this one by its URL
                self.page.goto(self.server.url + f"?tour={n}", wait_until="domcontentloaded")

            def step(n=n):
                self.page.wait_for_function(f"document.documentElement.dataset.tourRendered === '{n}'",
                                            timeout=120000)
                if press and n in ACTIONS:
                    label, times = ACTIONS[n] if isinstance(ACTIONS[n], tuple) else (ACTIONS[n], 1)
                    button = self.page.get_by_role("button", name=label, exact=True).first
                    for _ in range(times):
                        button.click()
                        self.started(button)
                        wait_until(button.is_enabled, 120, f"step {n}'s {label!r} to finish")
                self.settle(None)
                settled(self.page, n)       # the step fitted to the screen (assets/tour.js)
            self.visit(f"tour step {n}", step)
            if n < n_steps:
                self.page.keyboard.press("ArrowRight")

    def close(self) -> None:
        self.context.close()


def walk_once(browser, server: Server, args) -> Walk:
    w = Walk(browser, server, args.quiet, {"width": args.width, "height": args.height}, args.verbose,
             args.shots)
    w.visit("landing", lambda: w.open("", ".partcard"))
    for p in pages():
        w.visit(f"?chapter={p.slug}", lambda p=p: w.open(f"?chapter={p.slug}", ".takeaway, .fq"))
    w.tour(press=not args.no_press)
    w.close()
    return w


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pair", default="tiny", help="tiny (default) or embedded, or a name in models/pairs.toml")
    ap.add_argument("--times", type=int, default=1, help="walks, one after another on one server")
    ap.add_argument("--quiet", type=float, default=1.0, help="seconds of a quiet server log before moving on")
    ap.add_argument("--no-press", action="store_true", help="walk the tour without pressing its buttons")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--verbose", action="store_true", help="a line per place as it is walked")
    ap.add_argument("--shots", type=Path, help="save screenshots of each place, once settled, in this folder "
                    "(a page that scrolls: a screen at a time)")
    ap.add_argument("--log", type=Path, default=Path("/tmp/speclab-walk.log"), help="the server's log")
    ap.add_argument("--url", help="walk a lab already served at this URL (…/app), its output in --log")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))     # a stopped walk still stops its server
    server = Server(args.pair, args.log, args.url)
    failed = False
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for i in range(1, args.times + 1):
                t0 = time.monotonic()
                w = walk_once(browser, server, args)
                console = sum(r[1] for r in w.rows)
                tracebacks = sum(r[2] for r in w.rows)
                for where, c, t, s in w.rows:
                    if c or t:
                        print(f"  {where:32s} console errors {c}  tracebacks {t}  ({s:.1f} s)")
                for line in w.details:
                    print("   ", line.replace("\n", "\n      "))
                print(f"walk {i}/{args.times} ({args.pair} pair): {len(w.rows)} places "
                      f"(landing, {len(pages())} pages, {len(TOUR)} tour steps) in {time.monotonic() - t0:.0f} s: "
                      f"{console} console errors, {tracebacks} server tracebacks", flush=True)
                failed |= bool(console or tracebacks)
            browser.close()
    finally:
        server.stop()
    late = server.tracebacks()
    print(f"server log {args.log}: {len(late)} tracebacks in all")
    return 1 if failed or late else 0


if __name__ == "__main__":
    sys.exit(main())
