"""The class bench/machines.py runs: students as websocket clients from addresses of their own,
through the proxy (or straight to one machine), a lecturer's page on each machine watching question
10's count, and one machine killed once half the class has joined.

    run = ClassRun(base, args, lecturers={"A": url_a, "B": url_b}, kill=kill_b, where=proxy.machine_for)
    await run_class(run); run.figures(); run.rec      # the latencies (a bench/recorder.py Recorder)

A student whose page's websocket closes (its machine went away) reloads through the proxy: chapter 10
again, where the card must show the answer it gave; then it goes on where it was.
"""
from __future__ import annotations

import asyncio
import contextlib
import html
import http.client
import re
import time
import urllib.parse
from collections import Counter

from recorder import Recorder
from sight import first_sight
from wsclient import LECTURER_TOKEN, PageSession, changed, click, slide

CHAPTER10, CHAPTER4 = "chapter=breakeven", "chapter=guess-check-keep"
RELOADS = 3                  # a student's reloads at most (a machine that went away, a page refused)
SAID = ("You said", "✓ Right.", "Not quite")     # a card that holds the student's answer (uikit.predict)


async def close_quietly(page) -> None:
    """Close a page's websocket if it has one; a machine already gone may fail to answer."""
    if page is not None:
        with contextlib.suppress(Exception):
            await page.close()


class MachineGone(Exception):
    """The page's websocket closed: the machine serving it went away."""


def fetch(url: str, source: str, cookie: str | None, refused: Counter, timeout: float = 180) -> tuple[str, str]:
    """GET a page as a browser from `source` with its cookie: (HTML, the machine that answered, from
    the proxy's X-Speclab-Machine). A page refused for now (429: too many pages being built) or with no
    machine to answer (502/503/504) is asked for again, as the refused page reloads itself."""
    parts = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + timeout
    while True:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout, source_address=(source, 0))
        try:
            conn.request("GET", f"{parts.path}?{parts.query}", headers={"Cookie": f"speclab_id={cookie}"} if cookie else {})
            reply = conn.getresponse()
            body = reply.read().decode()
        finally:
            conn.close()
        if reply.status == 200:
            return body, (reply.headers.get("X-Speclab-Machine") or "").split(",")[-1].strip()
        refused[reply.status] += 1
        if time.monotonic() > deadline:
            raise RuntimeError(f"HTTP {reply.status} for {timeout:.0f} s")
        time.sleep(max(1, int(reply.headers.get("Retry-After") or 1)))


class ProxiedPage(PageSession):
    """A PageSession whose websocket carries the browser's cookie (the proxy routes by it) and that
    says when its machine went away (MachineGone) instead of waiting out its timeouts."""
    machine = ""
    refused: Counter

    async def open(self) -> None:
        import websockets
        self.gone = asyncio.Event()
        loop = asyncio.get_running_loop()
        url = f"{self.base}?{self.query}"
        page, self.machine = await loop.run_in_executor(None, lambda: fetch(url, self.source, self.cookie, self.refused))
        token = re.search(r'"token":"([^"]+)"', page)
        if token is None:
            raise RuntimeError(f"no page in the reply: {page[:160]!r}")
        origin = self.base.split("/app")[0]
        try:
            self.ws = await websockets.connect(
                origin.replace("http", "ws", 1) + f"/app/ws?{self.query}", subprotocols=["bokeh", token.group(1)],
                origin=origin, max_size=None, open_timeout=120, local_addr=(self.source, 0),
                additional_headers={"Cookie": f"speclab_id={self.cookie}"} if self.cookie else None)
            header, _ = await self._read()                       # ACK
            await self.send("PULL-DOC-REQ", {})
            while True:
                header, content = await self._read()
                if header["msgtype"] == "PULL-DOC-REPLY":
                    break
                self._handle(header, content)
        except (websockets.ConnectionClosed, OSError) as err:
            raise MachineGone(f"the page's websocket: {err}") from None
        self._index(content)
        self.reader = asyncio.create_task(self._read_forever())
        await self.patch([{"kind": "MessageSent", "msg_type": "bokeh_event",
                           "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}}}])

    async def _read_forever(self) -> None:
        await super()._read_forever()
        self.gone.set()                  # the socket closed
        self.arrived.set()

    async def patch(self, events: list[dict]) -> None:
        import websockets
        if self.gone.is_set():
            raise MachineGone("the page's websocket closed")
        try:
            await super().patch(events)
        except websockets.ConnectionClosed:
            raise MachineGone("the page's websocket closed") from None

    async def wait_for(self, found, timeout: float, what: str = "the page to fill"):
        """PageSession's wait, ended by MachineGone once the page's machine went away."""
        def seen():
            if self.gone.is_set():
                raise MachineGone(f"the machine went away while waiting for {what}")
            return found()
        return await super().wait_for(seen, timeout, what)

    def texts(self) -> list[str]:
        """Every HTML text the page holds or was sent, unescaped."""
        held = [str(m.get("attributes", {}).get("text", "")) for m in self.models.values()]
        sent = [str(e.get("new", "")) for e in self.events if e.get("attr") == "text"]
        return [html.unescape(t) for t in held + sent]

    def shows_answer(self) -> bool:
        return any(said in t for t in self.texts() for said in SAID)


class LecturerWatch:
    """A lecturer's page on one machine, noting every count of question 10's answers it shows."""

    STATUS = re.compile(r'data-q="10".*?(?:(\d+) of \d+ browsers? here ha(?:s|ve) answered|No browser has a '
                        r'question page open now)'
                        r'(?: · (\d+) answers? from (?:a )?browsers? that ha(?:s|ve) left)?(?: · (\d+) not in the histogram)?', re.S)

    def __init__(self, name: str, url: str):
        self.name, self.url = name, url
        self.seen: list[tuple[float, int]] = []       # (when, answers counted)
        self.left_out = 0
        self.page: ProxiedPage | None = None

    async def open(self, reset: bool) -> None:
        self.page = page = ProxiedPage(self.url, f"lecturer={LECTURER_TOKEN}", source="127.0.0.1")
        page.refused = Counter()
        page.on_event = self._seen
        await page.open()
        button = await page.wait_for(lambda: page.find("Button", label="Reset all questions"), 180, "the lecturer's poll")
        await page.wait_for(lambda: page.find("HTML", text="data-q"), 180, "question 10 on the lecturer's page")
        if reset:
            await page.patch(click(button[0]["id"]))

    def _seen(self, event: dict) -> None:
        text = html.unescape(str(event.get("new", ""))) if event.get("attr") == "text" else ""
        m = self.STATUS.search(text)
        if m:
            self.seen.append((time.perf_counter(), int(m.group(1) or 0) + int(m.group(2) or 0)))
            self.left_out = max(self.left_out, int(m.group(3) or 0))

    def latencies(self, sent: list[float]) -> list[float]:
        """For the k-th vote sent, the time until this view showed at least k answers (none once
        its machine went away)."""
        out = []
        for k, at in enumerate(sorted(sent), start=1):
            shown = next((t for t, n in self.seen if n >= k and t >= at), None)
            if shown is not None:
                out.append(shown - at)
        return out

    async def close(self) -> None:
        await close_quietly(self.page)


class ClassRun:
    """One class: `base` the app's URL the students open (the proxy's, or one machine's), a lecturer
    watching on each of `lecturers` ({name: the machine's app URL}), `kill()` (blocking; returns the
    address of the machine it killed) called once half the class has joined, `where(cookie)` the
    machine the proxy sends a browser to."""

    def __init__(self, base: str, args, lecturers: dict[str, str], kill=None, where=None):
        self.base, self.args, self.kill_fn, self.where = base, args, kill, where
        self.watches = [LecturerWatch(name, url) for name, url in lecturers.items()]
        self.rec = Recorder()
        self.sent: list[float] = []           # when each vote was sent whose card then showed it
        self.shown: list[float] = []          # … and when its card showed it
        self.killed_at: float | None = None
        self.killed = ""                       # the address of the machine killed
        self.refused: Counter = Counter()      # pages asked for again (HTTP status)
        self.first: Counter = Counter()        # the machine each student's first page came from
        self.cookied: Counter = Counter()      # … and its chapter 4 page (routed by its id)
        self.gone = 0                          # students whose page's machine went away
        self.landed: Counter = Counter()       # where their reloads opened
        self.kept = self.lost_answers = 0      # reloads of students who had answered: answer shown or not
        self.unsure = 0                        # votes sent as the machine went, their card not yet shown
        self.finished = 0
        self.over = asyncio.Event()

    def figures(self) -> dict:
        lecturer = {w.name: (w.seen[-1][1] if w.seen else 0) for w in self.watches}
        return {"students": self.args.students,
                "first page on": dict(self.first), "chapter 4 (routed by id) on": dict(self.cookied),
                "votes counted (cards showed them)": len(self.sent),
                "lecturer views' last count": lecturer,
                "left out of the histogram (per address)": max((w.left_out for w in self.watches), default=0),
                "machine killed": self.killed or "none",
                "votes shown counted 1 s or more before the kill": sum(
                    1 for t in self.shown if self.killed_at and t < self.killed_at - 1),
                "students whose machine went away": self.gone,
                "their reloads opened on": dict(self.landed),
                "answers kept / lost on reload": f"{self.kept} / {self.lost_answers}",
                "votes sent as the machine went (card not yet shown)": self.unsure,
                "pages asked for again (HTTP status: count)": dict(self.refused),
                "errors": len(self.rec.errors)}


class Student:
    """One student's browser: its own address, its id cookie, the page it has open."""

    def __init__(self, run: ClassRun, i: int):
        self.run, self.i = run, i
        self.source = f"127.0.{1 + i // 250}.{1 + i % 250}" if i >= 0 else "127.1.0.1"
        self.cookie: str | None = None
        self.page: ProxiedPage | None = None
        self.voted = False
        self.reloads = 0

    async def open(self, query: str, name: str | None) -> ProxiedPage:
        """Open a page (as a reload or a link does: the old one closes), timed under `name`."""
        await self.close()
        start = time.perf_counter()
        page = ProxiedPage(self.run.base, query, source=self.source, cookie=self.cookie)
        page.refused = self.run.refused
        self.page = page
        await page.open()
        if self.cookie is None and name:
            self.run.first[page.machine] += 1
        await first_sight(page, self.run.rec if name else Recorder(), start)
        await page.wait_for(lambda: page.find("HTML", text="Takeaway"), 180, "the page's last section")
        if name:
            self.run.rec.add(name, time.perf_counter() - start)
        self.cookie = page.browser_id() or self.cookie       # the shell's keys write it into the cookie
        return page

    async def close(self) -> None:
        await close_quietly(self.page)
        self.page = None

    async def chapter10(self) -> None:
        """Chapter 10: move α, γ, c; answer its question (counted once the card shows it)."""
        run = self.run
        page = self.page if self.page is not None and self.page.query == CHAPTER10 else \
            await self.open(CHAPTER10, "open chapter 10")
        sliders = await page.wait_for(
            lambda: [m for m in page.find("Slider") if m["attributes"].get("title", "")[:1] in "αγc"], 120)
        choice = await page.wait_for(lambda: page.find("Button", label="slower"), 60)
        figures = {m["id"] for m in page.find("ColumnDataSource")}
        redrawn = lambda e: e.get("kind") == "ColumnDataChanged" and e.get("model", {}).get("id") in figures
        for k in range(run.args.drags):
            a = sliders[k % len(sliders)]["attributes"]
            step = a.get("step") or 1
            value = round(a["value"] - step if a["value"] - step >= a["start"] else a["value"] + step, 6)
            a["value"] = value
            await page.timed(run.rec, "slider", slide(sliders[k % len(sliders)]["id"], value), redrawn, 60)
            await asyncio.sleep(0.3)
        if not self.voted:
            card = lambda e: e.get("attr") == "text" and e.get("model", {}).get("id") != choice[0]["id"]
            sent = time.perf_counter()
            try:
                await page.timed(run.rec, "answer question", click(choice[0]["id"]), card, 60)
            except MachineGone:
                run.unsure += 1
                raise
            self.voted = True
            run.sent.append(sent)
            run.shown.append(time.perf_counter())

    async def chapter4(self) -> None:
        page = await self.open(CHAPTER4, "open chapter 4")
        self.run.cookied[page.machine] += 1
        button = await page.wait_for(lambda: page.find("Button", label="Next round"), 120)
        for _ in range(self.run.args.rounds):
            await page.timed(self.run.rec, "next round", click(button[0]["id"]), changed(button[0]["id"], "disabled", False), 120)
            await asyncio.sleep(0.8)

    async def stay(self) -> None:
        """Keep the page open until the class ends (a machine going away meanwhile is noticed)."""
        self.run.finished += 1
        if self.run.finished >= self.run.args.students and (self.run.kill_fn is None or self.run.killed_at):
            self.run.over.set()
        while not self.run.over.is_set():
            if self.page is None or self.page.gone.is_set():
                raise MachineGone("the page's machine went away")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.page.gone.wait(), 1.0)

    async def reload(self) -> None:
        """The page's machine went away: reload through the proxy (chapter 10, the answer on it)."""
        run = self.run
        self.reloads += 1
        if self.reloads > RELOADS:
            raise RuntimeError(f"reloaded {RELOADS} times")
        if self.reloads == 1:
            run.gone += 1
        page = await self.open(CHAPTER10, "reload after the kill")
        run.landed[page.machine] += 1
        if self.voted:
            if page.shows_answer():
                run.kept += 1
            else:
                run.lost_answers += 1
        elif page.shows_answer():          # its vote went through as the machine went
            self.voted = True

    async def lesson(self) -> None:
        stage = "chapter10"
        while True:
            try:
                if stage == "chapter10":
                    await self.chapter10()
                    stage = "chapter4"
                if stage == "chapter4":
                    await self.chapter4()
                    stage = "stay"
                await self.stay()
                return
            except MachineGone:              # reload, and go on where it was
                if stage == "stay":
                    self.run.finished -= 1
                while True:
                    try:
                        await self.reload()
                        break
                    except MachineGone:          # bounded: reload() gives up after RELOADS
                        continue


async def run_class(run: ClassRun) -> None:
    """A warm-up student, the lecturers' pages (the first resets the poll), then the class; half-way
    through joining, the kill."""
    warm = Student(run, -1)                # asks question 10, so the lecturers' pages show it
    try:
        await warm.open(CHAPTER10, None)
    finally:
        await warm.close()
    for k, watch in enumerate(run.watches):
        await watch.open(reset=k == 0)
    students = [Student(run, i) for i in range(run.args.students)]
    tasks = []

    async def one(student: Student) -> None:
        try:
            await student.lesson()
        except Exception as err:      # a timeout or a broken page is an error of the run, not a crash
            run.rec.errors.append(f"student {student.i}: {type(err).__name__}: {str(err)[:200]}")
            run.finished += 1
            if run.finished >= run.args.students:
                run.over.set()
        finally:
            await student.close()

    loop = asyncio.get_running_loop()
    for i, student in enumerate(students):
        if run.kill_fn is not None and i == len(students) // 2:
            run.killed = await loop.run_in_executor(None, run.kill_fn)
            run.killed_at = time.perf_counter()
            print(f"  machine {run.killed} killed with {i} students joined", flush=True)
        tasks.append(asyncio.create_task(one(student)))
        await asyncio.sleep(run.args.join_interval)
        if i % 50 == 49:
            print(f"  {i + 1} students joined; errors so far {len(run.rec.errors)}", flush=True)
    if run.finished >= run.args.students:
        run.over.set()
    await asyncio.gather(*tasks)
    await asyncio.sleep(3)                 # the last counts on the lecturers' pages
    for watch in run.watches:
        name = f"lecturer view on {watch.name}"
        for x in watch.latencies(run.sent):
            run.rec.add(name, x)
        await watch.close()
