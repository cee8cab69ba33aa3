"""The students of the classroom bench and their class poll: one scripted lesson per student, as a
headless chromium context (`browser_lesson`) or as a websocket client speaking Bokeh's protocol
(`ws_lesson`), each adding its latencies and errors to a Recorder."""
from __future__ import annotations

import asyncio
import html
import random
import re
import time

from recorder import Recorder
from sight import first_sight
from wsclient import LECTURER_TOKEN, PageSession, changed, click, slide

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic",
                 "--disable-dev-shm-usage", "--renderer-process-limit=8"]
# Text of the whole page, shadow roots included (Panel renders each component in one).
DEEP_TEXT = """
window.__deepText = () => { const out = []; const walk = (n) => { if (n.shadowRoot) walk(n.shadowRoot);
  for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent); else if (c.nodeType === 1) walk(c); } };
  walk(document.body); return out.join(' '); };
"""


async def text_changed(page, before: str, timeout_ms: float) -> None:
    """Wait until the page's text (shadow roots included) differs from `before`."""
    await page.wait_for_function("(b) => window.__deepText() !== b", arg=before, timeout=timeout_ms,
                                 polling=20)


async def timed_change(page, rec: Recorder, name: str, action, timeout_ms=60000):
    """Run `action`; add to `rec` under `name` the time until the page's text changes."""
    before = await page.evaluate("window.__deepText()")
    start = time.perf_counter()
    await action()
    await text_changed(page, before, timeout_ms)
    rec.add(name, time.perf_counter() - start)


async def browser_lesson(browser, base: str, rec: Recorder, student: int, rounds: int, drags: int):
    """One student in a chromium context: chapter 10's sliders and question, then chapter 4's rounds."""
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
        """Arrive on chapter 10; wait until the question opens (everyone here, or `patience` passed)."""
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
        await page.patch(click(reset[0]["id"]))

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
        """Close the lecturer's page."""
        if self.lecturer is not None:
            await self.lecturer.close()


async def ws_lesson(base: str, rec: Recorder, student: int, rounds: int, drags: int, poll: PollPhase | None = None):
    """One student as a websocket client: chapter 10's sliders, its question (in the class poll, if
    any), then chapter 4's rounds; latency until the server's answer arrives."""
    page = None
    try:
        start = time.perf_counter()
        page = PageSession(base, "chapter=breakeven")
        await page.open()
        await first_sight(page, rec, start)
        sliders = await page.wait_for(
            lambda: [m for m in page.find("Slider") if m["attributes"].get("title", "")[:1] in "αγc"], 120)
        choice = await page.wait_for(lambda: page.find("Button", label="slower"), 30)
        await page.wait_for(lambda: page.find("HTML", text="Takeaway"), 60, "the page's last section")
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
            await page.timed(rec, "slider", slide(slider["id"], value), redrawn, 30)
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
                    await page.timed(rec, "slider during poll", slide(slider["id"], value), redrawn, 30)
                    await asyncio.sleep(random.uniform(0.2, 0.6))
            else:
                await asyncio.sleep(random.uniform(0, poll.window))
            poll.sent.append(time.perf_counter())
        await page.timed(rec, "answer question", click(choice[0]["id"]), card_text, 30)
        if poll is not None:
            await poll.leave_in_turn(student)
        await page.close()

        start = time.perf_counter()
        page = PageSession(base, "chapter=guess-check-keep")
        await page.open()
        await first_sight(page, rec, start)
        button = await page.wait_for(lambda: page.find("Button", label="Next round"), 120)
        await page.wait_for(lambda: page.find("HTML", text="Takeaway"), 60, "the page's last section")
        bid = button[0]["id"]
        rec.add("open chapter 4", time.perf_counter() - start)
        for _ in range(rounds):
            await page.timed(rec, "next round", click(bid), changed(bid, "disabled", False), 120)
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
