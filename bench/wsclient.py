"""Plumbing for benches that drive a served lab on loopback: start and stop `panel serve app.py`
(one process, or several with `--num-procs`), its memory, and `PageSession`, a page that speaks Bokeh's websocket protocol as a browser does
(with `click` and `changed` to build and recognise its messages).

All traffic stays on 127.0.0.1; every wait is bounded.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

if TYPE_CHECKING:
    from recorder import Recorder

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from deploy.proxy import free_port  # noqa: E402,F401  (one source of ports for every bench)
SERVER_LOG = Path(os.environ.get("TMPDIR", "/tmp")) / "classroom-server.log"
LECTURER_TOKEN = "bench-" + os.urandom(8).hex()


def start_server(port: int, tiny: bool, app_dir: Path | None = None, procs: int = 1,
                 browsers_per_address: int | None = 1000, store: Path | None = None) -> subprocess.Popen:
    """Serve app.py (this project's, or the one in `app_dir`: another checkout, to compare) on
    127.0.0.1:`port` (the tiny pair if `tiny`) with the lecturer token, its log in SERVER_LOG;
    return once it answers. `procs` > 1: that many processes (`python -m serving --num-procs N`: the
    pair loaded once before the fork; a checkout without the launcher: `panel serve --num-procs N
    --setup shell/start.py`, a copy of the pair each), sharing the class's store in the cache folder.
    Every simulated student comes from 127.0.0.1: `browsers_per_address` lets that address start that
    many browsers, each with its vote (shell.room.identity; None: the server's own limits, as a script on
    one machine meets them). `store`: the class store's file (SPECLAB_STORE), else none (one process)."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", SPECLAB_LECTURER_TOKEN=LECTURER_TOKEN)
    env.pop("SPECLAB_STORE", None)
    if store is not None:
        env["SPECLAB_STORE"] = str(store)
    env.pop("SPECLAB_BROWSERS_PER_ADDRESS", None)
    env.pop("SPECLAB_VOTES_PER_ADDRESS", None)
    if browsers_per_address is not None:
        env["SPECLAB_BROWSERS_PER_ADDRESS"] = env["SPECLAB_VOTES_PER_ADDRESS"] = str(browsers_per_address)
    if tiny:
        env["SPECLAB_PAIR"] = "tiny"
    serve = [sys.executable, "-m", "panel", "serve", "app.py"]
    if procs > 1:      # the lab's launcher loads the pair once, before the fork (serving/__main__.py)
        launcher = ((app_dir or ROOT) / "serving" / "__main__.py").exists()
        serve = [sys.executable, "-m", "serving"] if launcher else [*serve, "--setup", "shell/start.py"]
        serve += ["--num-procs", str(procs)]
    # The server's log goes to a file: a pipe nobody reads fills up and then blocks the server. Its own
    # session: stopping it stops the processes it forked too.
    with open(SERVER_LOG, "w") as log:
        proc = subprocess.Popen(
            [*serve, "--port", str(port), "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{port}"],
            cwd=app_dir or ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=60)
            return proc
        except OSError:
            time.sleep(1)
    proc.kill()
    raise SystemExit("the server did not answer within 10 minutes")


def wait_for_warm_up(app_dir: Path | None = None, timeout: float = 600, procs: int = 1) -> float | None:
    """Wait until the served lab says its start-up warm-up is done (shell/frame/warmup.py logs "warm-up: …
    ready", once per serving process), as a lecturer starts the server before the class arrives;
    seconds waited, or None for code without a warm-up (another checkout's)."""
    root = app_dir or ROOT
    if not any((root / "shell" / where / "warmup.py").exists() for where in ("frame", "")):
        return None
    start = time.time()
    while time.time() - start < timeout:
        if len(re.findall(r"warm-up: .* ready", SERVER_LOG.read_text(errors="replace"))) >= procs:
            return time.time() - start
        time.sleep(1)
    raise SystemExit(f"the server's warm-up did not finish within {timeout:.0f} s")


def stop_server(proc: subprocess.Popen) -> None:
    """Ask the server (and every process it forked) to stop; kill them after 20 s."""
    import signal
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def server_rss(proc: subprocess.Popen) -> int:
    """The resident memory of the server and its children, in bytes (summed: pages the forked
    processes share are counted in each, so with several processes this is an upper bound)."""
    p = psutil.Process(proc.pid)
    total = p.memory_info().rss
    for child in p.children(recursive=True):
        with contextlib.suppress(psutil.Error):     # a child that exits meanwhile
            total += child.memory_info().rss
    return total


def server_pss(proc: subprocess.Popen) -> int:
    """The proportional memory of the server and its children, in bytes: each page the processes
    share counted once, split among them (Linux's smaps_rollup; 0 where the system has none)."""
    total = 0
    pids = [proc.pid] + [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
    return total


def fetch(url: str, source: str | None = None, cookie: str | None = None, timeout: float = 120) -> str:
    """GET `url` (on loopback) from the local address `source` (another 127.x address stands for
    another student's machine), with the `speclab_id` cookie if given; the page's HTML. A page the
    server's gate refuses (HTTP 429, shell.room.gate) is asked for again after its Retry-After, as the
    refused page reloads itself in a browser."""
    import http.client
    import urllib.parse
    parts = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + timeout
    while True:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        try:
            conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""),
                         headers={"Cookie": f"speclab_id={cookie}"} if cookie else {})
            reply = conn.getresponse()
            body = reply.read().decode()
        finally:
            conn.close()
        retry = int(reply.headers.get("Retry-After") or 0)
        if reply.status != 429 or time.monotonic() + retry > deadline:
            return body
        time.sleep(retry)            # as the refused page reloads itself (shell.room.gate)


class PageSession:
    """One student's page: the HTTP load, its session's websocket and Bokeh's message protocol
    (a message is a header, metadata and content frame, then an id frame and a binary frame per buffer).
    `source`: the local address it connects from (default 127.0.0.1); `cookie`: its browser id."""

    def __init__(self, base: str, query: str, source: str | None = None, cookie: str | None = None):
        self.base, self.query, self.source, self.cookie = base, query, source, cookie
        self.events: list[dict] = []          # every event of every PATCH-DOC the server sent
        self.errors: list[str] = []
        self.arrived = asyncio.Event()
        self.models: dict[str, dict] = {}     # id -> {"name":…, "attributes":…} from the pulled document
        self._ids = itertools.count(1)

    async def open(self) -> None:
        import websockets
        loop = asyncio.get_running_loop()
        url = f"{self.base}?{self.query}"
        html = await loop.run_in_executor(None, lambda: fetch(url, self.source, self.cookie))
        token = re.search(r'"token":"([^"]+)"', html).group(1)
        origin = self.base.split("/app")[0]
        self.ws = await websockets.connect(origin.replace("http", "ws", 1) + f"/app/ws?{self.query}",
                                           subprotocols=["bokeh", token], origin=origin, max_size=None,
                                           open_timeout=120,
                                           **({"local_addr": (self.source, 0)} if self.source else {}))
        header, _ = await self._read()                       # ACK
        assert header["msgtype"] == "ACK", header
        await self.send("PULL-DOC-REQ", {})
        while True:
            header, content = await self._read()
            if header["msgtype"] == "PULL-DOC-REPLY":
                break
            self._handle(header, content)                    # a PATCH-DOC may come first
        self._index(content)
        self.reader = asyncio.create_task(self._read_forever())
        await self.patch([{"kind": "MessageSent", "msg_type": "bokeh_event",     # as the browser does
                           "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}}}])

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()

    async def send(self, msgtype: str, content: dict) -> None:
        await self.ws.send(json.dumps({"msgid": f"s{next(self._ids)}", "msgtype": msgtype}))
        await self.ws.send("{}")
        await self.ws.send(json.dumps(content))

    async def patch(self, events: list[dict]) -> None:
        await self.send("PATCH-DOC", {"events": events})

    async def _read(self):
        header = json.loads(await self.ws.recv())
        await self.ws.recv()                                   # metadata
        content = json.loads(await self.ws.recv())
        for _ in range(2 * header.get("num_buffers", 0)):      # buffer id frame, then its bytes
            await self.ws.recv()
        return header, content

    on_event = None          # a function called with every event as it arrives (the lecturer's watch)

    def _handle(self, header: dict, content: dict) -> None:
        if header["msgtype"] == "PATCH-DOC":
            self._index(content)                                   # models the page gains later
            self.events.extend(content.get("events", []))
            if self.on_event is not None:
                for e in content.get("events", []):
                    self.on_event(e)
            self.arrived.set()
        elif header["msgtype"] == "ERROR":
            self.errors.append(f"server ERROR: {str(content)[:200]}")

    async def _read_forever(self) -> None:
        try:
            while True:
                self._handle(*await self._read())
        except Exception:   # the socket closed
            pass

    def _index(self, content: dict) -> None:
        def walk(x):
            if isinstance(x, dict):
                if x.get("type") == "object" and "id" in x and "name" in x:
                    self.models[x["id"]] = x
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(content)

    def browser_id(self) -> str | None:
        """The browser id the server issued this page (the shell's keys write it into the cookie)."""
        for m in self.models.values():
            bid = m.get("attributes", {}).get("browser_id")
            if isinstance(bid, str) and bid:
                return bid
        return None

    def says(self, text: str) -> bool:
        """Whether some HTML pane of the page contains `text` (the page's sentences)."""
        return any(text in str(m.get("attributes", {}).get("text", "")) for m in self.models.values()) or \
            any(text in str(e.get("new", "")) for e in self.events if e.get("attr") == "text")

    def find(self, name: str, **attrs) -> list[dict]:
        """Models of type `name` whose attributes contain the given strings."""
        return [m for m in self.models.values() if m["name"].endswith(name)
                and all(v in str(m.get("attributes", {}).get(k, "")) for k, v in attrs.items())]

    async def wait_for(self, found, timeout: float, what: str = "the page to fill"):
        """Wait until `found()` (a look at the models and events so far) is truthy; return it."""
        deadline = time.perf_counter() + timeout
        while not (value := found()):
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"waited {timeout:.0f}s for {what}")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), timeout=min(left, 1.0))
            except asyncio.TimeoutError:
                pass
        return value

    async def timed(self, rec: Recorder, name: str, events: list[dict], done, timeout: float) -> None:
        """Send `events`; add to `rec` under `name` the time until an event for which `done` is true arrives."""
        mark = len(self.events)
        start = time.perf_counter()
        await self.patch(events)
        await self.wait_for(lambda: any(done(e) for e in self.events[mark:]), timeout, f"the answer to {name}")
        rec.add(name, time.perf_counter() - start)


def click(model_id: str) -> list[dict]:
    """The events a browser sends when the button `model_id` is clicked."""
    return [{"kind": "MessageSent", "msg_type": "bokeh_event",
             "msg_data": {"type": "event", "name": "button_click",
                          "values": {"type": "map", "entries": [["model", {"id": model_id}]]}}}]


def changed(model_id: str, attr: str, value=None):
    """An event predicate: `attr` of `model_id` changed (to `value`, if given)."""
    return lambda e: (e.get("model", {}).get("id") == model_id and e.get("attr") == attr
                      and (value is None or e.get("new") == value))


def slide(model_id: str, value) -> list[dict]:
    """The events a browser sends when the slider `model_id` is let go at `value`."""
    return [{"kind": "ModelChanged", "model": {"id": model_id}, "attr": "value", "new": value},
            {"kind": "ModelChanged", "model": {"id": model_id}, "attr": "value_throttled", "new": value}]
