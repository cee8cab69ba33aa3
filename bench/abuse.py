"""Scripts that try to take over a class, against another student: is the class still fair?

    python bench/abuse.py [--scenarios clicks,work,tour,tokens,votes,pages,lockout,disk] [--tabs 20] [--head-start 20]
                          [--seconds 600] [--guess-seconds 60] [--votes 40] [--tiny] [--crafted]

Starts `panel serve app.py` on loopback (the embedded pair, or the tiny pair with --tiny) with the
server's own limits per client address. A victim (from 127.0.0.1) opens chapter 10 and is measured
idle: slider moves (until the figure's new data arrives) and "Use my models" (until the button is
enabled again). Then, for each attack, a script on another machine (127.0.0.2, bench/floods.py)
attacks for `--head-start` seconds before the victim is measured again, and on until the victim is
done (at most `--seconds`):

- clicks: one browser (the id the server issued its first tab) with `--tabs` tabs pressing
  "Use my models" (tabs past the server's cap are refused);
- work: `--tabs` fresh browsers (no cookie) pressing "Use my models";
- tour: `--tabs` fresh browsers flipping tour steps as fast as the socket takes them, never reading
  what the server sends.

Every press of "Use my models" (the victim's too) follows a prompt nobody asked for before, typed
into the page's settings card, so it is new model work (a request's outcome is kept and shared).

Each prints p50/p95 idle and under attack and the ratio (the goal: the victim's p95 within 2× of
idle), and what the attacker managed. Then, without a victim:

- tokens: `?lecturer=GUESS` pages with no cookie for `--guess-seconds`: guesses the server checked
  (its log), and that as guesses an hour (goal ≤ 100);
- votes: `--votes` answers to chapter 10's question, each from a fresh page with no cookie: how
  many the lecturer's page counts (goal ≤ 1 per address).

And the server's doors (bench/siege.py): pages (page loads from one address, then 200, during the
victim's slider moves), lockout (wrong tokens from many addresses, then the lecturer's link), disk
(a second server whose class store is on a full tmpfs: do pages open; root only).

With --crafted the victim also sends crafted widget values (huge, negative, NaN, text) and the
sentences the page answered with are printed. Last, the server log's tracebacks and line count.

All traffic stays on loopback; every loop is bounded in time.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import floods
import siege
from wsclient import (SERVER_LOG, PageSession, click, free_port, slide, start_server, stop_server,
                      wait_for_warm_up)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # the lab's limits, printed beside the figures
from shell.room.identity import votes_per_address  # noqa: E402
from shell.lecturer.controls import Attempts  # noqa: E402

# The hog's 20 clients parse every patch of 20 pages: on a real network that is its own laptop's
# work, here it would take the server's 2 cores. It runs niced, so what slows the victim is the
# server's own work for the hog (its click limit still admits the hog's full share).
HOG_NICE = 10
# A request's outcome is kept and shared (lab.speed.request), so each press of "Use my models" asks for
# a prompt nobody asked for before (floods.PROMPT with these numbers; the attackers' are ≥ 10,000).
WARM, IDLE, LOADED = (1,), (2, 3, 4, 5), (6, 7, 8, 9)
# A student reads what Use my models showed before pressing again. The worker serves the browser that
# used it least recently (serving.workqueue), so a victim pressing back to back would itself be the
# heavier user and be given the smaller share by design; between presses the victim reads this long.
READING = 15.0


class BrowserTab(PageSession):
    """The victim's page (from 127.0.0.1), with what the bench reads and sends on it."""

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


async def open_chapter10(base: str, cookie: str | None = None) -> BrowserTab:
    tab = BrowserTab(base, "chapter=breakeven", cookie=cookie)
    await tab.open()
    await tab.wait_for(lambda: tab.find("Button", label="Use my models") and
                       len([m for m in tab.find("Slider") if m["attributes"].get("title", "")[:1] in "αγc"]) == 3,
                       120, "chapter 10")
    return tab


async def measure_victim(tab: BrowserTab, numbers: tuple[int, ...], moves: int, offset: int = 0) -> dict[str, list[float]]:
    """The victim's slider moves (until the figure's new data) and "Use my models" presses (until the
    button is enabled again), each on a new prompt (floods.PROMPT with one of `numbers`: new work)
    and READING seconds apart; `offset` picks other α values."""
    times: dict[str, list[float]] = {"slider": [], "use my models": []}
    figures = {m["id"] for m in tab.find("ColumnDataSource")}
    redrawn = lambda e: e.get("kind") == "ColumnDataChanged" and e.get("model", {}).get("id") in figures
    alpha = tab.slider("α")
    for i in range(moves):
        value = round(0.3 + 0.01 * ((i + offset) % 60), 2)
        mark, start = len(tab.events), time.perf_counter()
        await tab.set_value(alpha, value)
        await tab.wait_for(lambda: any(redrawn(e) for e in tab.events[mark:]), 60, "the figure")
        times["slider"].append(time.perf_counter() - start)
        await asyncio.sleep(random.uniform(0.1, 0.3))
    button = tab.find("Button", label="Use my models")[0]["id"]
    for n in numbers:
        mark = len(tab.events)
        await floods.use_prompt(tab, floods.PROMPT.format(n=n + 100 * offset))
        start = time.perf_counter()
        await tab.patch(click(button))
        await tab.wait_for(lambda: floods.worked(tab, button, mark), 300, "Use my models")
        times["use my models"].append(time.perf_counter() - start)
        await asyncio.sleep(READING)
    return times


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


async def attacker(args) -> None:
    """The attacking script, in its own niced process (its clients must not slow the victim's timer):
    opens its tabs from ATTACKER, prints "ready", attacks until a line on its stdin (or --seconds),
    prints its counts as JSON. "clicks": one browser (the id its first tab was issued) in every tab;
    "work": a fresh browser per tab; "tour": fresh browsers flipping tour steps, never reading."""
    stop, stats = asyncio.Event(), {}
    if args.attack == "clicks":
        stats.update(clicks=0, steps=0, lost=0, dropped=0, stalled=0, capped=0)
        source = floods.ATTACKERS["clicks"]
        first = await floods.open_page(args.url, "chapter=breakeven", lambda p: p.find("Button", label="Use my models"),
                                       source)
        pages = [first]
        for _ in range(args.tabs - 1):
            page = await floods.open_page(args.url, "chapter=breakeven", lambda p: p.find("Button", label="Use my models"),
                                          source, cookie=first.browser_id())
            if page is None:
                stats["capped"] += 1
            else:
                pages.append(page)
        stats["opened"] = len(pages)
        tasks = [floods.work_tab(p, floods.hog_numbers(i), stop, stats) for i, p in enumerate(pages)]
    else:
        pages, tasks = await floods.flood(args.attack, args.url, args.tabs, stop, stats)
    print("ready", flush=True)
    loop, start = asyncio.get_running_loop(), time.perf_counter()
    loop.run_in_executor(None, lambda: (sys.stdin.readline(), loop.call_soon_threadsafe(stop.set)))
    loop.call_later(args.seconds, stop.set)
    await asyncio.gather(*tasks)
    stats["seconds"] = time.perf_counter() - start
    for p in pages:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(p.close(), 5)
    print(json.dumps(stats), flush=True)


async def under_attack(kind: str, base: str, victim: BrowserTab, idle: dict, args, offset: int) -> None:
    """Start the attacking process, let it run `--head-start` seconds, measure the victim, stop it;
    print the victim's latency against idle and what the attacker managed."""
    attacking = subprocess.Popen([sys.executable, __file__, "--attack", kind, "--url", base, "--tabs", str(args.tabs),
                                  "--seconds", str(args.seconds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True, preexec_fn=lambda: os.nice(HOG_NICE))
    loop = asyncio.get_running_loop()
    ready = await loop.run_in_executor(None, attacking.stdout.readline)
    if ready.strip() != "ready":
        attacking.kill()
        raise SystemExit(f"the {kind} attacker did not open its tabs")
    await asyncio.sleep(args.head_start)
    loaded = await measure_victim(victim, LOADED, args.moves, offset)
    out, _ = await loop.run_in_executor(None, attacking.communicate, "stop\n")
    stats = json.loads(out.strip().splitlines()[-1])
    what = {"clicks": "one browser's tabs pressing 'Use my models'",
            "work": "fresh browsers (no cookie) pressing 'Use my models'",
            "tour": "fresh browsers flipping tour steps, never reading their websocket"}[kind]
    print(f"\n[{kind}] {args.tabs} tabs of {what}, from {floods.ATTACKERS[kind]}, {stats['seconds']:.0f} s: "
          f"{stats['opened']} opened, {stats['capped']} refused by the tab cap, {stats['clicks']} clicks, "
          f"{stats['steps']} tour steps sent, {stats['dropped']} tabs dropped by the server, {stats['stalled']} "
          f"stalled (the server stopped reading them), {stats['lost']} lost")
    for name in ("slider", "use my models"):
        print("idle   " + summary(name, idle[name]))
        print("loaded " + summary(name, loaded[name]))
        print(f"       victim {name} p95 loaded ÷ idle = {p95(loaded[name]) / p95(idle[name]):.2f}× (goal ≤ 2×)")


def hourly_checks() -> tuple[int, int]:
    """Token checks in an hour of nonstop guessing under the server's rules (shell.lecturer.controls.Attempts,
    on a simulated clock): from one address with a fresh cookie each try, and from a fresh address
    and cookie each try."""
    out = []
    for fresh_address in (False, True):
        now = [0.0]
        attempts = Attempts(clock=lambda: now[0], store=None)
        checks = 0
        for i in range(7200):                  # a try every half second
            keys = (f"browser {i}", f"address {i if fresh_address else 0}")
            if attempts.wait(*keys) == 0:
                attempts.failed(*keys)
                checks += 1
            now[0] += 0.5
        out.append(checks)
    return out[0], out[1]


def checks_logged() -> int:
    return SERVER_LOG.read_text(errors="replace").count("a wrong lecturer token was tried")


async def run(args) -> None:
    port = args.port or free_port()
    server = start_server(port, args.tiny, args.app_dir, browsers_per_address=None)    # the server's own limits
    base = f"http://127.0.0.1:{port}/app"
    try:
        waited = await asyncio.get_running_loop().run_in_executor(None, wait_for_warm_up, args.app_dir)
        if waited is not None:      # as a lecturer starts the server before the class arrives
            print(f"the server's warm-up finished {waited:.0f} s after it answered")
        victim = await open_chapter10(base)
        await measure_victim(victim, WARM, 2)           # warm-up: first-use costs not counted
        idle = await measure_victim(victim, IDLE, args.moves)
        for i, kind in enumerate(k for k in args.scenarios if k in ("clicks", "work", "tour")):
            await under_attack(kind, base, victim, idle, args, offset=7 * (i + 1))
        if "pages" in args.scenarios:
            await siege.pages(base, victim, idle, args, measure_victim, summary)
        if "lockout" in args.scenarios:
            await asyncio.get_running_loop().run_in_executor(None, siege.lockout, base)
        if "tokens" in args.scenarios:
            before, stats, start = checks_logged(), {}, time.perf_counter()
            await floods.guess_tokens(base, args.guess_seconds, stats)
            took, checked = time.perf_counter() - start, checks_logged() - before
            one, many = hourly_checks()
            print(f"\n[tokens] {stats['sent']} lecturer-token guesses with fresh cookies in {took:.0f} s from "
                  f"{floods.ATTACKERS['tokens']}: {checked} checked by the server. At the server's limits, guessing "
                  f"nonstop for an hour: one address gets {one} checks, any number of addresses {many} "
                  f"(goal ≤ 100)")
        if "votes" in args.scenarios:
            stats = {}
            await floods.stuff_votes(base, args.votes, stats)
            n = await floods.votes_counted(base)
            print(f"\n[votes] {stats['sent']} votes from fresh cookies on {floods.ATTACKERS['votes']} "
                  f"({stats['capped']} pages refused by the tab cap, {stats['refused']} told their address is full): "
                  f"{n} counted (goal ≤ 1 per address; the server counts {votes_per_address()})")
        if args.crafted:
            said = await crafted(victim)
            print(f"crafted values for the γ slider {CRAFTED!r}: {len(said)} sentence(s) on the page:")
            for sentence in said:
                print(f"  {sentence}")
        await victim.close()
    finally:
        stop_server(server)
        log = SERVER_LOG.read_text(errors="replace")
        print(f"server log: {len(log.splitlines())} lines, {log.count('Traceback')} tracebacks ({SERVER_LOG})")


SCENARIOS = ("clicks", "work", "tour", "tokens", "votes", "pages", "lockout", "disk")   # the last three: bench/siege.py


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}")
    ap.add_argument("--tabs", type=int, default=20, help="the attacker's tabs")
    ap.add_argument("--head-start", type=float, default=20, help="seconds the attack runs before the victim is measured")
    ap.add_argument("--seconds", type=float, default=600, help="the most an attack runs")
    ap.add_argument("--moves", type=int, default=20, help="victim slider moves, idle and under load")
    ap.add_argument("--guess-seconds", type=float, default=60, help="seconds of lecturer-token guessing")
    ap.add_argument("--votes", type=int, default=40, help="votes stuffed with fresh cookies")
    ap.add_argument("--tiny", action="store_true", help="serve the tiny random pair")
    ap.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    ap.add_argument("--app-dir", type=Path, help="serve the lab in this folder (another checkout)")
    ap.add_argument("--crafted", action="store_true", help="also send crafted widget values")
    ap.add_argument("--attack", choices=("clicks", "work", "tour"), help=argparse.SUPPRESS)   # the attacker's process
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    if not set(args.scenarios) <= set(SCENARIOS):
        raise SystemExit(f"--scenarios: each one of {', '.join(SCENARIOS)}")
    if not 1 <= args.tabs <= 40 or not 5 <= args.seconds <= 600 or not 0 <= args.head_start <= 300 \
            or not 1 <= args.votes <= 200 or not 1 <= args.guess_seconds <= 600:
        raise SystemExit("--tabs must be 1–40, --seconds 5–600, --head-start 0–300, --votes 1–200, "
                         "--guess-seconds 1–600")
    if args.attack and not (args.url or "").startswith("http://127.0.0.1:"):
        raise SystemExit("--attack only on loopback")
    if args.attack or set(args.scenarios) - {"disk"}:
        asyncio.run(attacker(args) if args.attack else run(args))
    if "disk" in args.scenarios and not args.attack:
        siege.full_disk(args.tiny)


if __name__ == "__main__":
    main()
