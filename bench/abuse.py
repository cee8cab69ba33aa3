"""One browser with many tabs hammering model work, against another student: is the class still fair?

    python bench/abuse.py [--tabs 20] [--head-start 20] [--tiny] [--crafted]

Starts `panel serve app.py` on loopback (the embedded pair, or the tiny pair with --tiny). A victim
browser opens chapter 10 and is measured idle: slider moves (until the figure's new data arrives)
and "Use my models" (until the button is enabled again), once for each of two new γ. Then one hog browser (one cookie) opens
`--tabs` tabs of chapter 10, each on its own γ, pressing "Use my models" again and again; after
`--head-start` seconds of that the victim is measured again, and the hog presses on until the victim
is done (at most `--seconds`). Prints p50/p95 for both, the ratio (the goal: the victim's
p95 within 2× of idle), how often the hog was told to wait, and the server log's tracebacks and
line count. With --crafted the victim also sends crafted widget values (huge, negative, NaN, text)
through the websocket and the sentences the page answered with are printed.

All traffic stays on 127.0.0.1; every loop is bounded in time.
"""
from __future__ import annotations

import argparse
import asyncio
import html
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid

import websockets

from wsclient import SERVER_LOG, PageSession, changed, click, free_port, slide, start_server, stop_server

# The hog's 20 clients parse every patch of 20 pages: on a real network that is its own laptop's
# work, here it would take the server's 2 cores. It runs niced, so what slows the victim is the
# server's own work for the hog (its click limit still admits the hog's full share).
HOG_NICE = 10
# Measurements are shared while fresh (30 s), so each press asks for a γ not asked for before.
WARM_GAMMAS, IDLE_GAMMAS, LOADED_GAMMAS, HOG_GAMMAS = (5,), (1, 2), (3, 4), tuple(range(6, 13))


class BrowserTab(PageSession):
    """A PageSession of one browser: every tab sends the same `speclab_id` cookie, as tabs do."""

    def __init__(self, base: str, query: str, browser: str):
        super().__init__(base, query)
        self.browser = browser

    async def open(self) -> None:
        real = urllib.request.urlopen

        def with_cookie(url, timeout=120):
            request = urllib.request.Request(url, headers={"Cookie": f"speclab_id={self.browser}"})
            return real(request, timeout=timeout)
        urllib.request.urlopen = with_cookie     # PageSession.open loads the page with urlopen
        try:
            await super().open()
        finally:
            urllib.request.urlopen = real

    def slider(self, symbol: str) -> dict:
        return next(m for m in self.find("Slider") if m["attributes"].get("title", "").startswith(symbol))

    def text_of_alerts(self) -> list[str]:
        """The one-sentence problems the server has put on this page so far."""
        out = []
        for e in self.events:
            new = e.get("new")
            if e.get("attr") == "text" and isinstance(new, str):
                new = html.unescape(new)                         # Panel sends its HTML panes escaped
                if 'role="alert"' in new and (sentence := html.unescape(re.sub(r"<[^>]+>", "", new)).strip()):
                    out.append(sentence)
        return out

    async def set_value(self, model: dict, value) -> None:
        await self.patch(slide(model["id"], value))


async def open_chapter10(base: str, browser: str) -> BrowserTab:
    tab = BrowserTab(base, "chapter=breakeven", browser)
    await tab.open()
    await tab.wait_for(lambda: tab.find("Button", label="Use my models") and
                       len([m for m in tab.find("Slider") if m["attributes"].get("title", "")[:1] in "αγc"]) == 3,
                       120, "chapter 10")
    return tab


async def measure_victim(tab: BrowserTab, gammas: tuple[int, ...], moves: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"slider": [], "use my models": []}
    figures = {m["id"] for m in tab.find("ColumnDataSource")}
    redrawn = lambda e: e.get("kind") == "ColumnDataChanged" and e.get("model", {}).get("id") in figures
    alpha = tab.slider("α")
    for i in range(moves):
        value = round(0.3 + 0.01 * (i % 40), 2)
        mark, start = len(tab.events), time.perf_counter()
        await tab.set_value(alpha, value)
        await tab.wait_for(lambda: any(redrawn(e) for e in tab.events[mark:]), 60, "the figure")
        times["slider"].append(time.perf_counter() - start)
        await asyncio.sleep(random.uniform(0.1, 0.3))
    button = tab.find("Button", label="Use my models")[0]["id"]
    for gamma in gammas:
        await tab.set_value(tab.slider("γ"), gamma)
        mark, start = len(tab.events), time.perf_counter()
        await tab.patch(click(button))
        await tab.wait_for(lambda: any(changed(button, "disabled", False)(e) for e in tab.events[mark:]),
                           300, "Use my models")
        times["use my models"].append(time.perf_counter() - start)
        await asyncio.sleep(random.uniform(0.2, 0.5))
    return times


async def hog_tab(tab: BrowserTab, gamma: int, stop: asyncio.Event, stats: dict) -> None:
    """Press "Use my models" until `stop` is set, as fast as the page answers."""
    await tab.set_value(tab.slider("γ"), gamma)
    button = tab.find("Button", label="Use my models")[0]["id"]
    while not stop.is_set():
        mark = len(tab.events)
        try:
            await tab.patch(click(button))
        except websockets.ConnectionClosed as err:   # counted and printed: a lost tab is a finding
            stats["lost"].append(f"{time.perf_counter() - stats['start']:.0f} s: {err}")
            return
        stats["clicks"] += 1
        try:
            await tab.wait_for(lambda: len(tab.events) > mark or stop.is_set(), 30, "an answer")
        except TimeoutError:
            pass
        await asyncio.sleep(0.05)
    stats["told to wait"] += sum(("Still working" in t or "faster than" in t) for t in tab.text_of_alerts())


def summary(name: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return (f"{name:16} n={len(xs):3d}  p50 {statistics.median(xs) * 1e3:7.0f} ms  p95 {p95 * 1e3:7.0f} ms"
            f"  max {xs[-1] * 1e3:7.0f} ms")


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


CRAFTED = [-10**12, 10**30, float("nan"), "seven", 2.5]   # 'seven': Bokeh's own type refuses it


async def crafted(tab: BrowserTab) -> list[str]:
    """Crafted values for chapter 10's γ slider (a whole number from 1 to 12), through the websocket."""
    gamma = tab.slider("γ")
    said_before = len(tab.text_of_alerts())
    for value in CRAFTED:
        mark = len(tab.events)
        await tab.set_value(gamma, value if value == value else {"type": "number", "value": "nan"})
        try:
            await tab.wait_for(lambda: len(tab.events) > mark, 30, "an answer")
        except TimeoutError:
            pass
    return tab.text_of_alerts()[said_before:]


async def hog(args) -> None:
    """The hogging browser, in its own process (its 20 clients must not slow the victim's timer):
    opens its tabs, prints "ready", presses until a line on its stdin (or --seconds), prints its counts
    as JSON."""
    browser = uuid.uuid4().hex
    tabs = [await open_chapter10(args.hog, browser) for _ in range(args.tabs)]
    print("ready", flush=True)
    stats = {"clicks": 0, "told to wait": 0, "lost": [], "start": time.perf_counter()}
    stop, loop, start = asyncio.Event(), asyncio.get_running_loop(), time.perf_counter()
    loop.run_in_executor(None, lambda: (sys.stdin.readline(), loop.call_soon_threadsafe(stop.set)))
    loop.call_later(args.seconds, stop.set)
    await asyncio.gather(*[hog_tab(t, HOG_GAMMAS[i % len(HOG_GAMMAS)], stop, stats) for i, t in enumerate(tabs)])
    stats["seconds"] = time.perf_counter() - start
    for t in tabs:
        await t.close()
    print(json.dumps(stats), flush=True)


async def run(args) -> None:
    port = free_port()
    server = start_server(port, args.tiny)
    base = f"http://127.0.0.1:{port}/app"
    try:
        victim = await open_chapter10(base, uuid.uuid4().hex)
        await measure_victim(victim, WARM_GAMMAS, 2)           # warm-up: first-use costs not counted
        idle = await measure_victim(victim, IDLE_GAMMAS, args.moves)
        hogging = subprocess.Popen([sys.executable, __file__, "--hog", base, "--tabs", str(args.tabs),
                                    "--seconds", str(args.seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   text=True, preexec_fn=lambda: os.nice(HOG_NICE))
        loop = asyncio.get_running_loop()
        ready = await loop.run_in_executor(None, hogging.stdout.readline)
        if ready.strip() != "ready":
            raise SystemExit("the hogging browser did not open its tabs")
        await asyncio.sleep(args.head_start)                   # the hog has been hammering a while
        loaded = await measure_victim(victim, LOADED_GAMMAS, args.moves)
        said = await crafted(victim) if args.crafted else []
        out, _ = await loop.run_in_executor(None, hogging.communicate, "stop\n")   # load until the victim is done
        stats = json.loads(out.strip().splitlines()[-1])
        print(f"\none browser with {args.tabs} tabs pressing 'Use my models' for {stats['seconds']:.0f} s, "
              f"from {args.head_start:.0f} s before the victim's loaded measurements until they ended "
              f"({stats['clicks']} clicks, {stats['told to wait']} answered 'still working', "
              f"{len(stats['lost'])} tabs lost their connection), "
              f"{'tiny' if args.tiny else 'embedded'} pair")
        for name in ("slider", "use my models"):
            print("idle   " + summary(name, idle[name]))
            print("loaded " + summary(name, loaded[name]))
            print(f"       victim {name} p95 loaded ÷ idle = {p95(loaded[name]) / p95(idle[name]):.2f}× "
                  f"(goal ≤ 2×)")
        for lost in stats["lost"]:
            print(f"  hog tab lost at {lost}")
        if args.crafted:
            print(f"crafted values for the γ slider {CRAFTED!r}: {len(said)} sentence(s) on the page:")
            for sentence in said:
                print(f"  {sentence}")
        await victim.close()
    finally:
        stop_server(server)
        log = SERVER_LOG.read_text(errors="replace")
        print(f"server log: {len(log.splitlines())} lines, {log.count('Traceback')} tracebacks ({SERVER_LOG})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tabs", type=int, default=20, help="tabs of the one hogging browser")
    ap.add_argument("--head-start", type=float, default=20, help="seconds the hog presses before the victim is measured")
    ap.add_argument("--seconds", type=float, default=600, help="the most the hog presses")
    ap.add_argument("--moves", type=int, default=20, help="victim slider moves, idle and under load")
    ap.add_argument("--tiny", action="store_true", help="serve the tiny random pair")
    ap.add_argument("--crafted", action="store_true", help="also send crafted widget values")
    ap.add_argument("--hog", metavar="URL", help=argparse.SUPPRESS)   # the hogging browser's own process
    args = ap.parse_args()
    if not 1 <= args.tabs <= 40 or not 5 <= args.seconds <= 600 or not 0 <= args.head_start <= 300:
        raise SystemExit("--tabs must be 1–40, --seconds 5–600 and --head-start 0–300")
    if args.hog and not args.hog.startswith("http://127.0.0.1:"):
        raise SystemExit("--hog only on loopback")
    asyncio.run(hog(args) if args.hog else run(args))


if __name__ == "__main__":
    main()
