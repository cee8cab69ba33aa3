"""A slider drag in a real browser while a class runs: one headless chromium page on chapter 10
drags the α slider with the mouse, and each pointer move is timed, inside the page, until the page
shows the redrawn result (its read-outs change in the next animation frame that shows them, the
frame the curve is painted in). The page's websocket frames are counted too: a drag computed in the
browser sends none until the student lets go.

    probe = DragProbe(base)               # the served lab's /app URL
    await probe.open()
    await probe.run(rec, stop, drags=20)  # adds "browser drag (α)" latencies to rec until `stop` is set
    await probe.close()
"""
from __future__ import annotations

import asyncio
import time

from lessons import CHROMIUM_ARGS, DEEP_TEXT
from recorder import Recorder

# The time of the latest pointer move, as the page saw it (captured before the slider's own handler).
MOVES = """
window.__lastMove = 0;
document.addEventListener('pointermove', () => { window.__lastMove = performance.now(); }, {capture: true});
"""
# True in the first animation frame whose text differs from `before`; notes that frame's time.
REDRAWN = """(before) => { const t = window.__deepText();
  if (t === before) return false; window.__redrawn = performance.now(); return true; }"""
STEP_PX = 12        # one pointer move of a drag
MOVES_PER_DRAG = 5  # moves right, then as many back left


class DragProbe:
    """One chromium page dragging chapter 10's α slider; latencies per pointer move, frames sent."""

    def __init__(self, base: str):
        self.base = base
        self.sent_dragging = 0      # websocket frames sent while the mouse button was down
        self.sent_released = 0      # … and in the second after it was let go
        self.drags = 0
        self._dragging = False
        self._released_at = 0.0

    async def open(self) -> None:
        from playwright.async_api import async_playwright
        self.pw = await async_playwright().start()
        self.browser = await self.pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        self.ctx = await self.browser.new_context(viewport={"width": 1280, "height": 720})
        await self.ctx.add_init_script(DEEP_TEXT + MOVES)
        self.page = await self.ctx.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"drag probe: page error {e}"[:300]))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"drag probe: console {m.text}"[:300]))
        self.page.on("websocket", lambda ws: ws.on("framesent", self._sent))
        await self.page.goto(f"{self.base}?chapter=breakeven", wait_until="load", timeout=180000)
        self.handle = self.page.locator(".noUi-handle:visible").first      # α: the chapter's first slider
        await self.handle.wait_for(timeout=180000)
        await self.page.get_by_text("Takeaway").first.wait_for(timeout=180000)

    def _sent(self, payload) -> None:
        if self._dragging:
            self.sent_dragging += 1
        elif time.perf_counter() - self._released_at < 1.0:
            self.sent_released += 1

    async def drag(self, rec: Recorder) -> None:
        """One drag: press α's handle, move it right and back in steps, each step timed, let go."""
        await self.handle.scroll_into_view_if_needed()
        box = await self.handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        mouse = self.page.mouse
        await mouse.move(x, y)
        await mouse.down()
        self._dragging = True
        try:
            direction = 1 if x < 640 else -1              # towards the slider's middle first
            for k in range(2 * MOVES_PER_DRAG):
                step = direction if k < MOVES_PER_DRAG else -direction
                x += step * STEP_PX
                before = await self.page.evaluate("window.__deepText()")
                await mouse.move(x, y)
                await self.page.wait_for_function(REDRAWN, arg=before, polling="raf", timeout=30000)
                ms = await self.page.evaluate("window.__redrawn - window.__lastMove")
                rec.add("browser drag (α)", ms / 1000)
        finally:
            self._dragging = False
            self._released_at = time.perf_counter()
            await mouse.up()
        self.drags += 1

    async def run(self, rec: Recorder, stop: asyncio.Event, drags: int, gap: float = 1.0) -> None:
        """Drag until `stop` is set or `drags` are done, `gap` seconds apart; errors go to rec."""
        try:
            while self.drags < drags and not stop.is_set():
                await self.drag(rec)
                try:
                    await asyncio.wait_for(stop.wait(), gap)
                except asyncio.TimeoutError:
                    pass
        except Exception as err:      # a timeout or a broken page is an error of the run, not a crash
            rec.errors.append(f"drag probe: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
        rec.errors.extend(self.errors)

    def summary(self) -> str:
        return (f"browser drags: {self.drags} of α, websocket messages sent while dragging: "
                f"{self.sent_dragging}, in the second after letting go: {self.sent_released}")

    async def close(self) -> None:
        await self.browser.close()
        await self.pw.stop()
