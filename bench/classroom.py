"""A simulated class against one served lab on loopback, bounded in count and time.

    python bench/classroom.py [--students 40] [--classes N] [--clients ws|browser] [--tiny] [--soak SECONDS]
                              [--no-poll] [--app-dir OTHER_CHECKOUT] [--procs N] [--browser-drags N]
                              [--background-load N]

Starts `panel serve app.py` (the embedded pair, or the tiny pair with --tiny; with --procs N, that
many server processes sharing the class's store and one loaded pair: `python -m serving --num-procs N`), sends one student
through the lesson and waits for the server's start-up warm-up to finish (a lecturer starts the
server before the class comes in), then runs the students, joining a second apart, each running a
scripted lesson: open chapter 10 and move the α/γ/c sliders, answer its predict question, open
chapter 4 and run rounds. Prints per-interaction p50/p95 latency, errors and the server's memory.
"Open chapter N" runs from the page's HTTP request until its last section (the takeaway) arrived;
"page or place in line" until the page showed either its chapter or its place in the server's line
of pages (shell.room.line), the first thing a student sees (bench/sight.py).
While each class runs, one headless chromium page drags chapter 10's α slider with the mouse
(--browser-drags, dragprobe.py): each pointer move timed in the page until its read-outs show the
redrawn result, and the websocket frames the page sent while dragging counted.

The class poll: a lecturer page (the lecturer token) watches the poll. Once every student of a class
is on chapter 10 the question opens and each answers within --poll-window seconds; every fourth
student first moves the sliders three times while the others vote ("slider during poll"). When all
have voted they leave for chapter 4 as they came, a join interval apart (all at once, 40 pages
opening would be what is measured). "Lecturer view" is, for the k-th vote sent, the time until the
lecturer's page shows at least k answers to question 10 (votes counted in the order they were
sent). With --soak, waves of students keep joining and leaving for that many seconds and the
server's memory growth from the first wave to the last is printed.

Two kinds of student:
- `ws` (default): a websocket client that speaks Bokeh's protocol as the browser does: it loads the
  page over HTTP, opens its session's websocket, pulls the document, sends the same PATCH-DOC
  messages a browser sends for a slider move or a button click (value / value_throttled changes,
  button_click events), and times until the server's answer arrives: the figure's new data for a
  slider, the predict card's new text for an answer, the button enabled again for "next round".
  Nothing is rendered, so 40 of them leave the server its 2 cores.
- `browser`: a context in one headless Debian chromium per student; latency from the key press or
  click until the page's text changes. On this machine 40 browsers starve the server they measure.

A busy laptop (--background-load N): N processes that each keep one core busy run from the end of
the server's warm-up until the class has left, as a browser, slides and a video call would; the
machine's load average is printed before and after.

All traffic stays on 127.0.0.1; every loop is bounded. The students and their poll are in lessons.py,
the served lab and the websocket page in wsclient.py, the latency table in recorder.py.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from dragprobe import DragProbe
from lessons import CHROMIUM_ARGS, PollPhase, browser_lesson, ws_lesson
from recorder import Recorder, report_server_log
from sight import SIGHT, places_summary
from wsclient import SERVER_LOG, free_port, server_pss, server_rss, start_server, stop_server, wait_for_warm_up

MAX_STUDENTS = 200      # a lecture hall; each websocket student is a few coroutines of this process
MAX_BACKGROUND = 8      # busy processes the bench may start beside the server
SIGHT_GOAL = 2.0        # seconds within which every student sees the page or their place in line
PSS_PEAK = [0]          # the server's proportional memory peak (shared pages counted once), bytes


def memory(server) -> int:
    """The server's resident memory summed over its processes (an upper bound when several share
    pages); notes the proportional one's peak in PSS_PEAK."""
    PSS_PEAK[0] = max(PSS_PEAK[0], server_pss(server))
    return server_rss(server)


def background_load(n: int) -> list[subprocess.Popen]:
    """Start `n` processes that each keep one core busy (other programs on the lecturer's laptop)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(n)]


def stop_background(procs: list[subprocess.Popen]) -> None:
    """Stop the busy processes `background_load` started."""
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait()


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def sight_summary(rec: Recorder) -> str:
    """How many page opens showed the page or their place in line within SIGHT_GOAL seconds."""
    xs = rec.latency.get(SIGHT, [])
    within = sum(1 for x in xs if x <= SIGHT_GOAL)
    return (f"{within} of {len(xs)} page opens showed the page or their place in line within "
            f"{SIGHT_GOAL:g} s" + (f" (slowest {max(xs):.1f} s)" if xs else ""))


async def run_soak(args, lesson, server, rec: Recorder, peak: int) -> int:
    """Waves of students join and leave for `args.soak` seconds; print the memory after each wave
    and its growth from the first to the last; return the memory peak."""
    deadline = time.time() + args.soak
    samples, student = [], 0
    while time.time() < deadline:                 # bounded by time
        tasks = []
        for i in range(args.students):            # a wave joins over a few seconds, then leaves
            tasks.append(asyncio.create_task(lesson(rec, student + i, args.rounds, args.drags)))
            await asyncio.sleep(args.join_interval / 4)
        student += args.students
        await asyncio.gather(*tasks)
        await asyncio.sleep(20)                   # let closed sessions be collected
        rss = memory(server)
        samples.append((time.time(), rss))
        peak = max(peak, rss)
        print(f"  {len(samples)} waves, {student} students, server {rss / 2**20:.0f} MiB, "
              f"errors so far {len(rec.errors)}", flush=True)
    first, last = samples[0][1], samples[-1][1]
    print(f"soak: {args.soak:.0f}s, {student} student sessions in {len(samples)} waves, memory after the "
          f"first wave {first / 2**20:.0f} MiB, after the last {last / 2**20:.0f} MiB, "
          f"growth {100 * (last - first) / first:+.1f}%")
    return peak


async def run_classes(args, lesson, base: str, server, rec: Recorder, peak: int) -> int:
    """The classes one after another on the same server, each with its poll (websocket students);
    print each class's table when there are several; return the memory peak."""
    for k in range(args.classes):                # classes one after another, same server
        one = Recorder()
        tasks = []
        poll = (PollPhase(args.students, args.poll_window, args.join_interval)
                if args.clients == "ws" and not args.no_poll else None)
        if poll is not None:
            await poll.watch(base)
        probe, stop, dragging = None, asyncio.Event(), None
        if args.browser_drags:                   # a real browser dragging α while the class runs
            probe = DragProbe(base)
            await probe.open()
            dragging = asyncio.create_task(probe.run(one, stop, args.browser_drags))
        for i in range(args.students):           # join a join interval apart
            tasks.append(asyncio.create_task(lesson(one, i, args.rounds, args.drags, poll)))
            await asyncio.sleep(args.join_interval)
            peak = max(peak, memory(server))
        while not all(t.done() for t in tasks):
            peak = max(peak, memory(server))
            await asyncio.sleep(0.5)
        if probe is not None:
            stop.set()
            await dragging
            print("\n" + probe.summary())
            await probe.close()
        if poll is not None:
            await asyncio.sleep(2)                # the last votes' updates
            for x in poll.latencies():
                one.add("lecturer view", x)
            if poll.sent:
                print(f"\npoll: {len(poll.sent)} votes sent within {max(poll.sent) - min(poll.sent):.1f} s, "
                      f"the lecturer's page last showed {poll.seen[-1][1] if poll.seen else 0} answers "
                      f"in {len(poll.seen)} updates")
            await poll.close()
        if args.classes > 1:
            print(f"\nclass {k + 1} of {args.classes}:", end="")
            one.report()
            # Bokeh discards closed pages' sessions at its next check (every 17 s): wait them out
            await asyncio.sleep(40)
        rec.merge(one)
    if args.classes > 1:
        print(f"\nall {args.classes} classes together:", end="")
    return peak


async def run(args):
    """Serve the lab, warm it up with one student, run the soak or the classes, print the report."""
    port = args.port or free_port()
    server = start_server(port, args.tiny, args.app_dir, args.procs)
    base = f"http://127.0.0.1:{port}/app"
    rec = Recorder()
    pw = browser = None
    busy: list[subprocess.Popen] = []
    try:
        if args.clients == "browser":
            from playwright.async_api import async_playwright
            pw = await async_playwright().start()
            browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)

            def lesson(r, student, rounds, drags, poll=None):
                return browser_lesson(browser, base, r, student, rounds, drags)
        else:
            def lesson(r, student, rounds, drags, poll=None):
                return ws_lesson(base, r, student, rounds, drags, poll)
        # One warm-up student so first-use costs (model load, caches) are not counted.
        warm = Recorder()
        await lesson(warm, -1, rounds=1, drags=1)
        if warm.errors:
            print("warm-up student:", warm.errors[0])
        waited = wait_for_warm_up(args.app_dir, procs=args.procs)     # the server's own warm-up, before the class comes in
        if waited is not None:
            print(f"waited {waited:.0f} s more for the server's warm-up (shell/frame/warmup.py) to finish")
        rss_start = memory(server)
        busy = background_load(args.background_load)
        print(f"background load: {len(busy) or 'no'} busy {'process' if len(busy) == 1 else 'processes'} "
              f"started by the bench; {load_average()}")
        print(f"{args.students} {args.clients} students joining {1 / args.join_interval:g} a second, "
              f"{args.procs} server {'process' if args.procs == 1 else 'processes'}; server memory after "
              f"warm-up: {rss_start / 2**20:.0f} MiB", flush=True)
        peak = rss_start
        if args.soak:
            peak = await run_soak(args, lesson, server, rec, peak)
        else:
            peak = await run_classes(args, lesson, base, server, rec, peak)
        if busy:
            print(f"\nat the end of the class: {load_average()}")
        rec.report()
        print(sight_summary(rec))
        print(places_summary())
        print(f"server memory peak: {peak / 2**20:.0f} MiB resident (summed over its processes), "
              f"{PSS_PEAK[0] / 2**20:.0f} MiB proportional (pages they share counted once)")
    finally:
        stop_background(busy)
        if browser is not None:
            await browser.close()
            await pw.stop()
        stop_server(server)
        report_server_log(SERVER_LOG)


def main():
    """Parse the command line (bounded counts and times) and run the bench."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3, help="'Next round' clicks per student")
    ap.add_argument("--drags", type=int, default=6, help="slider moves per student")
    ap.add_argument("--join-interval", type=float, default=1.0)
    ap.add_argument("--classes", type=int, default=1, help="classes run one after another (for spread)")
    ap.add_argument("--soak", type=float, default=0, help="seconds of students joining and leaving")
    ap.add_argument("--tiny", action="store_true", help="serve the tiny random pair")
    ap.add_argument("--clients", choices=["ws", "browser"], default="ws",
                    help="websocket clients speaking Bokeh's protocol (default) or headless chromium pages")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--poll-window", type=float, default=3.0,
                    help="seconds within which the class answers once the question opens")
    ap.add_argument("--no-poll", action="store_true", help="no class poll: each student answers on their own")
    ap.add_argument("--app-dir", type=Path, help="serve the app.py of another checkout (same client, to compare code)")
    ap.add_argument("--procs", type=int, default=1, help="server processes (python -m serving --num-procs N)")
    ap.add_argument("--browser-drags", type=int, default=20,
                    help="α drags in one chromium page while each class runs (0: none)")
    ap.add_argument("--background-load", type=int, default=0,
                    help=f"busy processes (a core each) beside the server while the class runs (0–{MAX_BACKGROUND})")
    args = ap.parse_args()
    if not 1 <= args.students <= MAX_STUDENTS or args.soak > 3600 or not 1 <= args.classes <= 10 \
            or not 1 <= args.procs <= 8 or not 0 <= args.browser_drags <= 200 or not 0.05 <= args.join_interval <= 60 \
            or not 0 <= args.background_load <= MAX_BACKGROUND:
        raise SystemExit(f"--students must be 1–{MAX_STUDENTS}, --classes 1–10, --procs 1–8, --browser-drags 0–200, "
                         f"--join-interval 0.05–60 s, --background-load 0–{MAX_BACKGROUND} and --soak at most "
                         "3600 seconds")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
