"""The attacks of bench/abuse.py on the server's doors (issue 50): a flood of plain page loads from
one address and from many, a lecturer-token guessing burst followed by the lecturer's own link, and
a class store on a full disk.

    python bench/abuse.py --scenarios pages,lockout,disk --tiny

Every request is plain HTTP on loopback from 127.0.x.y addresses (another address stands for
another machine of the class); the full disk is a small tmpfs (root only), unmounted at the end.
Every loop is bounded in time.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import contextlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from wsclient import LECTURER_TOKEN, SERVER_LOG, PageSession, free_port, start_server, stop_server

FLOOD_ONE = "127.0.0.7"                 # the page-load flood from one machine
MANY = [f"127.0.{8 + i // 250}.{i % 250 + 1}" for i in range(200)]    # … and from 200
# The flood's clients are another machine's work on a real network; here they would share the
# victim's timer's process and the server's 2 cores: they run in their own niced process, as
# bench/abuse.py's other attackers do.
FLOOD_NICE = 10


def get(url: str, source: str, body: list | None = None) -> int:
    """GET `url` from the local address `source`: the HTTP status (0: no answer); its page appended
    to `body` if given."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60, source_address=(source, 0))
    try:
        conn.request("GET", f"{parts.path}?{parts.query}")
        reply = conn.getresponse()
        page = reply.read()
        if body is not None:
            body.append(page.decode(errors="replace"))
        return reply.status
    except OSError:
        return 0
    finally:
        conn.close()


def page_flood(url: str, sources: list[str], seconds: float, parallel: int = 8) -> collections.Counter:
    """Page loads (never connected, as a script does) from `sources` in turn for `seconds`: the
    count of each status (200: a session built; 429: refused before any)."""
    stop = time.monotonic() + seconds
    counts: collections.Counter = collections.Counter()

    def worker(k: int) -> None:
        i = k
        while time.monotonic() < stop:
            counts[get(url, sources[i % len(sources)])] += 1
            i += parallel
    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        list(pool.map(worker, range(parallel)))
    return counts


def flooding(url: str, sources: str, seconds: float) -> subprocess.Popen:
    """`page_flood` in its own niced process (`sources`: "one" or "many"); its counts come out as
    JSON on its stdout."""
    return subprocess.Popen([sys.executable, __file__, "--flood", url, "--sources", sources, "--seconds", str(seconds)],
                            stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(FLOOD_NICE))


async def pages(base: str, victim, idle: dict, args, measure, summary) -> None:
    """The victim's slider while pages are loaded as fast as the server answers, from one address and
    then from 200 (a niced process: `flooding`); what the server built."""
    url = f"{base}?chapter=breakeven"
    loop = asyncio.get_running_loop()
    for name, sources in (("one address", "one"), ("200 addresses", "many")):
        flood = flooding(url, sources, args.head_start + args.moves * 1.5)
        await asyncio.sleep(min(args.head_start, 10))
        loaded = await measure(victim, (), args.moves, 11)
        out, _ = await loop.run_in_executor(None, flood.communicate)
        counts = collections.Counter({int(code): n for code, n in json.loads(out.strip().splitlines()[-1]).items()})
        print(f"\n[pages, {name}] {sum(counts.values())} page loads: {counts[200]} built, {counts[429]} refused "
              f"(429), {sum(n for code, n in counts.items() if code not in (200, 429))} other")
        print("idle   " + summary("slider", idle["slider"]))
        print("loaded " + summary("slider", loaded["slider"]))
        ratio = sorted(loaded["slider"])[len(loaded["slider"]) // 2] / sorted(idle["slider"])[len(idle["slider"]) // 2]
        print(f"       victim slider p50 loaded ÷ idle = {ratio:.2f}×")


def lockout(base: str, guesses: int = 60) -> None:
    """Wrong lecturer tokens from many addresses, then the lecturer's own link from a new one."""
    pages: list[str] = []
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: get(f"{base}?lecturer=guess{i}", MANY[i % len(MANY)], pages), range(guesses)))
    small = sum(len(p) < 2000 and "lecturer token" in p for p in pages)
    start = time.perf_counter()
    lecturer: list[str] = []
    code = get(f"{base}?lecturer={LECTURER_TOKEN}", "127.0.99.1", lecturer)
    let_in = code == 200 and len(lecturer[0]) > 2000                 # the lab's page, not a refusal
    print(f"\n[lockout] {guesses} wrong tokens from {min(guesses, len(MANY))} addresses: {small} answered with a "
          f"small refusal page (no session), {guesses - small} otherwise; then the lecturer's link from a new "
          f"address: HTTP {code} in {time.perf_counter() - start:.2f} s ({'let in' if let_in else 'LOCKED OUT'})")


async def _open(base: str, source: str) -> bool:
    page = PageSession(base, "chapter=dilemma", source=source)
    try:
        await asyncio.wait_for(page.open(), 120)
        await page.wait_for(lambda: page.find("Button"), 120, "the page")
        return True
    except Exception:
        return False
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(page.close(), 5)


def full_disk(tiny: bool, students: int = 8) -> None:
    """A server whose class store is on a full disk (a 1 MB tmpfs, filled): do pages open, what
    does the terminal say, any traceback? Root only (mount)."""
    if os.getuid() != 0:
        print("\n[disk] skipped: mounting a small filesystem needs root")
        return
    mount = Path(tempfile.mkdtemp(prefix="speclab-full-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)], check=True)
    server = None
    try:
        port = free_port()
        server = start_server(port, tiny, browsers_per_address=1000, store=mount / "class" / "class.sqlite")
        with contextlib.suppress(OSError), open(mount / "filler", "wb") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
        base = f"http://127.0.0.1:{port}/app"

        async def go():
            return await asyncio.gather(*[_open(base, f"127.0.50.{i + 1}") for i in range(students)])
        opened = asyncio.run(go())
        log = SERVER_LOG.read_text(errors="replace")
        print(f"\n[disk] store on a full 1 MB tmpfs: {sum(opened)} of {students} new students' pages opened; "
              f"the terminal said 'cannot be written' {log.count('cannot be written')}×, "
              f"{log.count('Traceback')} tracebacks")
    finally:
        if server is not None:
            stop_server(server)
        subprocess.run(["umount", "-l", str(mount)], check=False)
        with contextlib.suppress(OSError):
            mount.rmdir()


if __name__ == "__main__":      # the flood's own process (`flooding`)
    ap = argparse.ArgumentParser(description="page loads as fast as the server answers; prints the counts")
    ap.add_argument("--flood", required=True, help="the page's address")
    ap.add_argument("--sources", choices=("one", "many"), required=True)
    ap.add_argument("--seconds", type=float, required=True)
    a = ap.parse_args()
    print(json.dumps(page_flood(a.flood, [FLOOD_ONE] if a.sources == "one" else MANY, a.seconds)), flush=True)
