"""A simulated class against one served lab on loopback, bounded in count and time.

    python bench/classroom.py [--students 40] [--classes N] [--clients ws|browser] [--tiny] [--soak SECONDS]

Starts `panel serve app.py` (the embedded pair, or the tiny pair with --tiny), then runs the students,
joining a second apart, each running a scripted lesson: open chapter 10 and move the α/γ/c sliders,
answer its predict question, open chapter 4 and run rounds. Prints per-interaction p50/p95 latency,
errors and the server's memory.

The class poll: a lecturer page (the lecturer token) watches the poll. Once every student of a class
is on chapter 10 the question opens and each answers within --poll-window seconds; every fourth
student first moves the sliders three times while the others vote ("slider during poll"). When all
have voted they leave for chapter 4 as they came, a join interval apart (all at once, 40 pages opening
would be what is measured). "lecturer
view" is, for the k-th vote sent, the time until the lecturer's page shows at least k answers to
question 10 (votes counted in the order they were sent). With --soak, waves of students keep joining and leaving for that many
seconds and the server's memory growth from the first wave to the last is printed.

Two kinds of student:
- `ws` (default): a websocket client that speaks Bokeh's protocol as the browser does: it loads the
  page over HTTP, opens its session's websocket, pulls the document, sends the same PATCH-DOC
  messages a browser sends for a slider move or a button click (value / value_throttled changes,
  button_click events), and times until the server's answer arrives: the figure's new data for a
  slider, the predict card's new text for an answer, the button enabled again for "next round".
  Nothing is rendered, so 40 of them leave the server its 2 cores.
- `browser`: a context in one headless Debian chromium per student; latency from the key press or
  click until the page's text changes. On this machine 40 browsers starve the server they measure.

All traffic stays on 127.0.0.1; every loop is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import html
import itertools
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import psutil

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


SERVER_LOG = Path(os.environ.get("TMPDIR", "/tmp")) / "classroom-server.log"


LECTURER_TOKEN = "bench-" + os.urandom(8).hex()


def start_server(port: int, tiny: bool) -> subprocess.Popen:
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", SPECLAB_LECTURER_TOKEN=LECTURER_TOKEN)
    if tiny:
        env["SPECLAB_PAIR"] = "tiny"
    # The server's log goes to a file: a pipe nobody reads fills up and then blocks the server.
    with open(SERVER_LOG, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", "app.py", "--port", str(port), "--address", "127.0.0.1",
             f"--allow-websocket-origin=127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=60)
            return proc
        except OSError:
            time.sleep(1)
    proc.kill()
    raise SystemExit("the server did not answer within 10 minutes")


def stop_server(proc: subprocess.Popen) -> None:
    """Ask the server to stop; kill it after 20 s."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def server_rss(proc: subprocess.Popen) -> int:
    p = psutil.Process(proc.pid)
    return p.memory_info().rss + sum(c.memory_info().rss for c in p.children(recursive=True))


class Recorder:
    def __init__(self):
        self.latency = defaultdict(list)
        self.errors: list[str] = []

    def add(self, name: str, seconds: float):
        self.latency[name].append(seconds)

    def merge(self, other: "Recorder"):
        for name, xs in other.latency.items():
            self.latency[name].extend(xs)
        self.errors.extend(other.errors)

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


async def browser_lesson(browser, base: str, rec: Recorder, student: int, rounds: int, drags: int):
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


# --- students as Bokeh websocket clients -------------------------------------------------------------
class PageSession:
    """One student's page: the HTTP load, its session's websocket and Bokeh's message protocol
    (a message is a header, metadata and content frame, then an id frame and a binary frame per buffer)."""

    def __init__(self, base: str, query: str):
        self.base, self.query = base, query
        self.events: list[dict] = []          # every event of every PATCH-DOC the server sent
        self.errors: list[str] = []
        self.arrived = asyncio.Event()
        self.models: dict[str, dict] = {}     # id -> {"name":…, "attributes":…} from the pulled document
        self._ids = itertools.count(1)

    async def open(self) -> None:
        import websockets
        loop = asyncio.get_running_loop()
        url = f"{self.base}?{self.query}"
        html = await loop.run_in_executor(None, lambda: urllib.request.urlopen(url, timeout=120).read().decode())
        token = re.search(r'"token":"([^"]+)"', html).group(1)
        origin = self.base.split("/app")[0]
        self.ws = await websockets.connect(origin.replace("http", "ws", 1) + f"/app/ws?{self.query}",
                                           subprotocols=["bokeh", token], origin=origin, max_size=None,
                                           open_timeout=120)
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
        mark = len(self.events)
        start = time.perf_counter()
        await self.patch(events)
        await self.wait_for(lambda: any(done(e) for e in self.events[mark:]), timeout, f"the answer to {name}")
        rec.add(name, time.perf_counter() - start)


def _click(model_id: str) -> list[dict]:
    return [{"kind": "MessageSent", "msg_type": "bokeh_event",
             "msg_data": {"type": "event", "name": "button_click",
                          "values": {"type": "map", "entries": [["model", {"id": model_id}]]}}}]


def _changed(model_id: str, attr: str, value=None):
    """An event predicate: `attr` of `model_id` changed (to `value`, if given)."""
    return lambda e: (e.get("model", {}).get("id") == model_id and e.get("attr") == attr
                      and (value is None or e.get("new") == value))


class PollPhase:
    """The poll of one class: the question opens when every student is on chapter 10 (or after
    `patience` seconds); each answers within `window` seconds; the lecturer's page is watched."""

    def __init__(self, students: int, window: float, gap: float, patience: float = 180):
        self.students, self.window, self.gap, self.patience = students, window, gap, patience
        self.arrived = 0
        self.open, self.closed = asyncio.Event(), asyncio.Event()
        self.sent: list[float] = []             # when each vote was sent
        self.lecturer: PageSession | None = None
        self.seen: list[tuple[float, int]] = []  # (when, answers to question 10) on the lecturer's page

    async def wait_open(self) -> None:
        self.arrived += 1
        if self.arrived >= self.students:
            self.open.set()
        try:
            await asyncio.wait_for(self.open.wait(), self.patience)
        except asyncio.TimeoutError:
            self.open.set()

    async def leave_in_turn(self, student: int) -> None:
        """Once every vote is in, go on a join interval after the student before."""
        if len(self.sent) >= self.students:
            self.closed.set()
        try:
            await asyncio.wait_for(self.closed.wait(), self.patience)
        except asyncio.TimeoutError:
            self.closed.set()
        await asyncio.sleep(student * self.gap)

    async def watch(self, base: str) -> None:
        """The lecturer's page: reset the poll, then note every count of question 10's answers."""
        self.lecturer = page = PageSession(base, f"lecturer={LECTURER_TOKEN}")
        page.on_event = self._seen
        await page.open()
        reset = await page.wait_for(lambda: page.find("Button", label="Reset all questions"), 120,
                                    "the lecturer's poll")
        await page.wait_for(lambda: page.find("HTML", text="data-q"), 120, "question 10 on the lecturer's page")
        await page.patch(_click(reset[0]["id"]))

    def _seen(self, event: dict) -> None:
        text = html.unescape(str(event.get("new", ""))) if event.get("attr") == "text" else ""
        if re.search(r'data-q="10"', text):
            m = re.search(r"(\d+) of \d+ browser", text)
            if m:
                self.seen.append((time.perf_counter(), int(m.group(1))))

    def latencies(self) -> list[float]:
        """For the k-th vote sent, the time until the lecturer's page showed ≥ k answers."""
        out = []
        for k, sent in enumerate(sorted(self.sent), start=1):
            shown = next((t for t, n in self.seen if n >= k and t >= sent), None)
            if shown is not None:
                out.append(shown - sent)
        return out

    async def close(self) -> None:
        if self.lecturer is not None:
            await self.lecturer.close()


async def ws_lesson(base: str, rec: Recorder, student: int, rounds: int, drags: int, poll: PollPhase | None = None):
    page = None
    try:
        start = time.perf_counter()
        page = PageSession(base, "chapter=breakeven")
        await page.open()
        sliders = await page.wait_for(
            lambda: [m for m in page.find("Slider") if m["attributes"].get("title", "")[:1] in "αγc"], 120)
        choice = await page.wait_for(lambda: page.find("Button", label="slower"), 30)
        figures = {m["id"] for m in page.find("ColumnDataSource")}
        if len(sliders) != 3:
            raise RuntimeError(f"chapter 10 has {len(sliders)} α/γ/c sliders, not 3")
        rec.add("open chapter 10", time.perf_counter() - start)
        redrawn = lambda e: e.get("kind") == "ColumnDataChanged" and e.get("model", {}).get("id") in figures
        for i in range(drags):                                 # move α, γ, c one step, as a key press does
            slider = sliders[i % 3]
            a = slider["attributes"]
            step = a.get("step") or 1
            value = a["value"] + random.choice([-1, 1]) * step
            value = round(min(a["end"], max(a["start"], value)), 6)
            if value == a["value"]:
                value = round(a["value"] - step if value >= a["end"] else a["value"] + step, 6)
            a["value"] = value
            sid = slider["id"]
            await page.timed(rec, "slider", [{"kind": "ModelChanged", "model": {"id": sid}, "attr": "value", "new": value},
                                             {"kind": "ModelChanged", "model": {"id": sid}, "attr": "value_throttled",
                                              "new": value}], redrawn, 30)
            await asyncio.sleep(random.uniform(0.2, 0.6))      # a student looks at the curve
        card_text = lambda e: e.get("attr") == "text" and e.get("model", {}).get("id") != choice[0]["id"]
        if poll is not None:                                   # the lecturer opens the question
            await poll.wait_open()
            if student % 4 == 0:                               # sliders while the class votes
                for i in range(3):
                    slider = sliders[i % 3]
                    a = slider["attributes"]
                    step = a.get("step") or 1
                    value = round(a["value"] - step if a["value"] - step >= a["start"] else a["value"] + step, 6)
                    a["value"] = value
                    sid = slider["id"]
                    await page.timed(rec, "slider during poll",
                                     [{"kind": "ModelChanged", "model": {"id": sid}, "attr": "value", "new": value},
                                      {"kind": "ModelChanged", "model": {"id": sid}, "attr": "value_throttled",
                                       "new": value}], redrawn, 30)
                    await asyncio.sleep(random.uniform(0.2, 0.6))
            else:
                await asyncio.sleep(random.uniform(0, poll.window))
            poll.sent.append(time.perf_counter())
        await page.timed(rec, "answer question", _click(choice[0]["id"]), card_text, 30)
        if poll is not None:
            await poll.leave_in_turn(student)
        await page.close()

        start = time.perf_counter()
        page = PageSession(base, "chapter=guess-check-keep")
        await page.open()
        button = await page.wait_for(lambda: page.find("Button", label="Next round"), 120)
        bid = button[0]["id"]
        rec.add("open chapter 4", time.perf_counter() - start)
        for _ in range(rounds):
            await page.timed(rec, "next round", _click(bid), _changed(bid, "disabled", False), 120)
            await asyncio.sleep(random.uniform(0.5, 1.5))      # a student reads the result
        for e in page.errors:
            rec.errors.append(f"student {student}: {e}")
    except Exception as err:   # a timeout or a broken page is an error of the run, not a crash
        rec.errors.append(f"student {student}: {type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''}")
    finally:
        if page is not None:
            try:
                await page.close()
            except Exception:
                pass


async def run(args):
    port = args.port or free_port()
    server = start_server(port, args.tiny)
    base = f"http://127.0.0.1:{port}/app"
    rec = Recorder()
    pw = browser = None
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
        rss_start = server_rss(server)
        print(f"{args.students} {args.clients} students; server memory after warm-up: {rss_start / 2**20:.0f} MiB",
              flush=True)
        peak = rss_start
        if args.soak:
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
                rss = server_rss(server)
                samples.append((time.time(), rss))
                peak = max(peak, rss)
                print(f"  {len(samples)} waves, {student} students, server {rss / 2**20:.0f} MiB, "
                      f"errors so far {len(rec.errors)}", flush=True)
            first, last = samples[0][1], samples[-1][1]
            print(f"soak: {args.soak:.0f}s, {student} student sessions in {len(samples)} waves, memory after the "
                  f"first wave {first / 2**20:.0f} MiB, after the last {last / 2**20:.0f} MiB, "
                  f"growth {100 * (last - first) / first:+.1f}%")
        else:
            for k in range(args.classes):                # classes one after another, same server
                one = Recorder()
                tasks = []
                poll = PollPhase(args.students, args.poll_window, args.join_interval) if args.clients == "ws" else None
                if poll is not None:
                    await poll.watch(base)
                for i in range(args.students):           # join a second apart
                    tasks.append(asyncio.create_task(lesson(one, i, args.rounds, args.drags, poll)))
                    await asyncio.sleep(args.join_interval)
                    peak = max(peak, server_rss(server))
                while not all(t.done() for t in tasks):
                    peak = max(peak, server_rss(server))
                    await asyncio.sleep(0.5)
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
        rec.report()
        print(f"server memory peak: {peak / 2**20:.0f} MiB")
    finally:
        if browser is not None:
            await browser.close()
            await pw.stop()
        stop_server(server)
        err = SERVER_LOG.read_text(errors="replace")
        # A tab closed while the server was sending is logged by tornado; it is not a lab error.
        benign = ("WebSocketClosedError", "StreamClosedError")
        blocks = [b for b in err.split("Traceback")[1:] if not any(x in b for x in benign)]
        closed = err.count("Traceback") - len(blocks)
        print(f"server tracebacks: {len(blocks)} (plus {closed} 'tab closed while sending' notices)")
        if blocks:
            print("first one (its last lines):\n" + "\n".join(blocks[0].splitlines()[-14:]))
        print(f"server log: {SERVER_LOG}")


def main():
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
    args = ap.parse_args()
    if not 1 <= args.students <= 60 or args.soak > 3600 or not 1 <= args.classes <= 10:
        raise SystemExit("--students must be 1–60, --classes 1–10 and --soak at most 3600 seconds")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
