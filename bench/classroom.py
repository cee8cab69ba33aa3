"""A simulated class against one served lab: real browser clients on loopback, bounded in count and time.

    python bench/classroom.py [--students 40] [--tiny] [--port 5310] [--soak SECONDS]

Starts `panel serve app.py` (the embedded pair, or the tiny pair with --tiny), then runs each
student as its own browser context in one headless Debian chromium, joining a second apart, each
running a scripted lesson: open chapter 10 and drag the α/γ/c sliders, open chapter 4 and run
rounds, answer the predict questions. Prints per-interaction p50/p95 latency, errors and the server's
memory. With --soak, students keep joining and leaving for that many seconds and the server's
memory growth between the first and the last minute is printed.

Latency is measured in the browser: from the key press / click until the page's text changes.
All traffic stays on 127.0.0.1; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import psutil
from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic",
                 "--disable-dev-shm-usage", "--renderer-process-limit=8"]
# Text of the whole page, shadow roots included (Panel renders each component in one).
DEEP_TEXT = """
window.__deepText = () => { const out = []; const walk = (n) => { if (n.shadowRoot) walk(n.shadowRoot);
  for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent); else if (c.nodeType === 1) walk(c); } };
  walk(document.body); return out.join(' '); };
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, tiny: bool) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    if tiny:
        env["SPECLAB_PAIR"] = "tiny"
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "app.py", "--port", str(port), "--address", "127.0.0.1",
         f"--allow-websocket-origin=127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=60)
            return proc
        except OSError:
            time.sleep(1)
    proc.kill()
    raise SystemExit("the server did not answer within 10 minutes")


def server_rss(proc: subprocess.Popen) -> int:
    p = psutil.Process(proc.pid)
    return p.memory_info().rss + sum(c.memory_info().rss for c in p.children(recursive=True))


class Recorder:
    def __init__(self):
        self.latency = defaultdict(list)
        self.errors: list[str] = []

    def add(self, name: str, seconds: float):
        self.latency[name].append(seconds)

    def report(self):
        print(f"\n{'interaction':22} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}")
        for name, xs in sorted(self.latency.items()):
            xs = sorted(xs)
            p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
            print(f"{name:22} {len(xs):5d} {statistics.median(xs) * 1e3:9.0f} {p95 * 1e3:9.0f} {xs[-1] * 1e3:9.0f}")
        print(f"errors: {len(self.errors)}")
        for e in self.errors[:10]:
            print("  ", e)


async def changed(page, before: str, timeout_ms: float) -> None:
    await page.wait_for_function("(b) => window.__deepText() !== b", arg=before, timeout=timeout_ms,
                                 polling=20)


async def timed_change(page, rec: Recorder, name: str, action, timeout_ms=60000):
    before = await page.evaluate("window.__deepText()")
    start = time.perf_counter()
    await action()
    await changed(page, before, timeout_ms)
    rec.add(name, time.perf_counter() - start)


async def lesson(browser, base: str, rec: Recorder, student: int, rounds: int, drags: int):
    ctx = await browser.new_context(viewport={"width": 1280, "height": 720})
    await ctx.add_init_script(DEEP_TEXT)
    page = await ctx.new_page()
    page.on("pageerror", lambda e: rec.errors.append(f"student {student}: page error {e}"[:300]))
    page.on("console", lambda m: m.type == "error" and rec.errors.append(f"student {student}: console {m.text}"[:300]))
    origin = base.rsplit("/", 1)[0]
    page.on("request", lambda r: r.url.startswith("http") and not r.url.startswith(origin)
            and rec.errors.append(f"student {student}: request outside the server {r.url}"[:300]))
    try:
        start = time.perf_counter()
        await page.goto(f"{base}?chapter=breakeven", wait_until="load", timeout=120000)
        handles = page.locator(".noUi-handle:visible")   # the settings drawer has sliders too
        await handles.first.wait_for(timeout=120000)
        rec.add("open chapter 10", time.perf_counter() - start)
        count = await handles.count()
        for i in range(drags):                                # drag α, γ, c with the keyboard
            handle = handles.nth(i % max(1, count))
            await handle.focus()
            key = random.choice(["ArrowLeft", "ArrowRight"])
            await timed_change(page, rec, "slider", lambda: handle.press(key), 30000)
        choice = page.get_by_role("button", name="Slower")
        if await choice.count():
            await timed_change(page, rec, "answer question", lambda: choice.first.click(), 30000)

        start = time.perf_counter()
        await page.goto(f"{base}?chapter=guess-check-keep", wait_until="load", timeout=120000)
        button = page.get_by_role("button", name="Next round")
        await button.first.wait_for(timeout=120000)
        rec.add("open chapter 4", time.perf_counter() - start)
        for _ in range(rounds):
            await timed_change(page, rec, "next round", lambda: button.first.click(), 120000)
            await page.wait_for_function("() => true")        # let the button re-enable
            await button.first.wait_for(state="visible")
            await asyncio.sleep(random.uniform(0.5, 1.5))     # a student reads the result
    except Exception as err:   # a timeout or a broken page is an error of the run, not a crash
        rec.errors.append(f"student {student}: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
    finally:
        await ctx.close()


async def run(args):
    port = args.port or free_port()
    server = start_server(port, args.tiny)
    base = f"http://127.0.0.1:{port}/app"
    rec = Recorder()
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            # One warm-up student so first-use costs (model load, caches) are not counted.
            await lesson(browser, base, Recorder(), -1, rounds=1, drags=1)
            rss_start = server_rss(server)
            print(f"server memory after warm-up: {rss_start / 2**20:.0f} MiB")
            peak = rss_start
            if args.soak:
                deadline = time.time() + args.soak
                samples, student = [], 0
                while time.time() < deadline:                 # bounded by time
                    batch = [lesson(browser, base, rec, student + i, args.rounds, args.drags)
                             for i in range(args.students)]
                    student += args.students
                    await asyncio.gather(*batch)
                    await asyncio.sleep(20)                   # let closed sessions be collected
                    rss = server_rss(server)
                    samples.append((time.time(), rss))
                    peak = max(peak, rss)
                    print(f"  {len(samples)} waves, {student} students, server {rss / 2**20:.0f} MiB", flush=True)
                first, last = samples[0][1], samples[-1][1]
                print(f"soak: {args.soak}s, {student} student sessions, memory first wave {first / 2**20:.0f} MiB, "
                      f"last {last / 2**20:.0f} MiB, growth {100 * (last - first) / first:+.1f}%")
            else:
                tasks = []
                for i in range(args.students):               # join a second apart
                    tasks.append(asyncio.create_task(lesson(browser, base, rec, i, args.rounds, args.drags)))
                    await asyncio.sleep(args.join_interval)
                    peak = max(peak, server_rss(server))
                while not all(t.done() for t in tasks):
                    peak = max(peak, server_rss(server))
                    await asyncio.sleep(0.5)
            await browser.close()
        rec.report()
        print(f"server memory peak: {peak / 2**20:.0f} MiB")
    finally:
        server.terminate()
        try:
            _, err = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            _, err = server.communicate()
        # A tab closed while the server was sending is logged by tornado; it is not a lab error.
        benign = ("WebSocketClosedError", "StreamClosedError")
        blocks = [b for b in err.split("Traceback")[1:] if not any(x in b for x in benign)]
        closed = err.count("Traceback") - len(blocks)
        print(f"server tracebacks: {len(blocks)} (plus {closed} 'tab closed while sending' notices)")
        if blocks:
            print("first one (its last lines):\n" + "\n".join(blocks[0].splitlines()[-14:]))
        log = Path(os.environ.get("TMPDIR", "/tmp")) / "classroom-server.log"
        log.write_text(err)
        print(f"server log: {log}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3, help="'Next round' clicks per student")
    ap.add_argument("--drags", type=int, default=6, help="slider moves per student")
    ap.add_argument("--join-interval", type=float, default=1.0)
    ap.add_argument("--soak", type=float, default=0, help="seconds of students joining and leaving")
    ap.add_argument("--tiny", action="store_true", help="serve the tiny random pair")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    if not 1 <= args.students <= 60 or args.soak > 3600:
        raise SystemExit("--students must be 1–60 and --soak at most 3600 seconds")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
