"""How long to start the lab before class, and what a student's click waits meanwhile.

Serves app.py with `--setup shell/start.py` (the pair loads at start, before any browser) and reads
the server's log for the pair loaded and the start-up warm-up done, both timed from the server's
start. Unless `--no-clicks`, a student opens chapter 4 as soon as the pair is loaded and keeps
pressing "Next round" (switching preset prompts when a generation ends, so each click needs model
work), reading each round for 2–6 s, until the warm-up is done; each click's wait is the time
until the button comes back.

    python bench/startup.py                 # the embedded pair, a student clicking
    python bench/startup.py --no-clicks     # the idle machine: time to ready
    python bench/startup.py --tiny          # the tiny pair (a quick check of the bench itself)
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wsclient import ROOT, PageSession, changed, click, free_port  # noqa: E402

SERVER_LOG = Path(os.environ.get("TMPDIR", "/tmp")) / "startup-server.log"

LOADED = re.compile(r"pair loaded: ")
WARM = re.compile(r"warm-up: .* ready")
PRESETS = ("Edit a record", "Story opening", "Code", "JSON")


def serve(port: int, tiny: bool) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    env.pop("SPECLAB_PAIR", None)
    if tiny:
        env["SPECLAB_PAIR"] = "tiny"
    with open(SERVER_LOG, "w") as log:
        return subprocess.Popen([sys.executable, "-m", "panel", "serve", "app.py", "--setup", "shell/start.py",
                                 "--port", str(port), "--address", "127.0.0.1",
                                 f"--allow-websocket-origin=127.0.0.1:{port}"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)


def seen(pattern: re.Pattern) -> bool:
    return bool(pattern.search(SERVER_LOG.read_text(errors="replace")))


async def until(pattern: re.Pattern, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not seen(pattern):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not log {pattern.pattern!r} (see {SERVER_LOG})")
        await asyncio.sleep(0.2)


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def student(base: str, proc: subprocess.Popen, waits: list[tuple[float, float, bool]], started: float) -> None:
    """Press "Next round" until the warm-up is done; a new preset when a generation ends."""
    page = PageSession(base, "chapter=guess-check-keep")
    await page.open()
    button = (await page.wait_for(lambda: page.find("Button", label="Next round"), 300))[0]["id"]
    presets = {label: page.find("Button", label=label)[0]["id"] for label in PRESETS}
    turn, reading = 0, random.Random(0)
    new_prompt = False
    while not seen(WARM) and proc.poll() is None:
        label = page.models[button]["attributes"].get("label", "")
        if "Start over" in label:     # the generation has ended: another prompt needs new rounds
            turn += 1
            await page.patch(click(presets[PRESETS[turn % len(PRESETS)]]))
            new_prompt = True
            await page.wait_for(lambda: "Next round" in page.models[button]["attributes"].get("label", "")
                                or any(e.get("attr") == "label" for e in page.events[-20:]), 60)
        start = time.perf_counter()
        mark = len(page.events)
        await page.patch(click(button))
        await page.wait_for(lambda: any(changed(button, "disabled", False)(e) for e in page.events[mark:]),
                            600, "the round")
        for e in page.events[mark:]:
            if e.get("model", {}).get("id") == button and e.get("attr") == "label":
                page.models[button].setdefault("attributes", {})["label"] = e.get("new")
        waits.append((time.monotonic() - started, time.perf_counter() - start, new_prompt))
        new_prompt = False
        await asyncio.sleep(reading.uniform(2.0, 6.0))       # a student reads the round
    await page.close()


async def run(args) -> None:
    port = free_port()
    started = time.monotonic()
    proc = serve(port, args.tiny)
    waits: list[float] = []
    try:
        await until(LOADED, proc, 900)
        loaded = time.monotonic() - started
        if not args.no_clicks:
            while not listening(port):
                await asyncio.sleep(0.2)
            await student(f"http://127.0.0.1:{port}/app", proc, waits, started)
        await until(WARM, proc, 900)
        ready = time.monotonic() - started
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    warm_line = WARM.search(SERVER_LOG.read_text(errors="replace"))
    print(f"pair loaded {loaded:.0f} s after start; warm-up done {ready:.0f} s after start "
          f"({SERVER_LOG.read_text(errors='replace')[warm_line.start():].splitlines()[0]})")
    if waits:
        seconds = [w for _, w, _ in waits]
        print(f"{len(waits)} clicks during the warm-up: longest wait {max(seconds):.2f} s, "
              f"median {statistics.median(seconds):.2f} s; longest: " + ", ".join(
                  f"{w:.2f} s at {at:.0f} s{' (a new prompt)' if new else ''}"
                  for at, w, new in sorted(waits, key=lambda x: -x[1])[:3]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiny", action="store_true", help="serve the tiny pair")
    ap.add_argument("--no-clicks", action="store_true", help="no student: the idle machine's time to ready")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
