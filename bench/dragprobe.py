"""A slider drag in a real browser while a class runs: one headless chromium page on chapter 10
drags the α slider with the mouse, and each pointer move is timed inside the page: until the curve
is redrawn (the animation frame after the figures' data changed: BokehJS paints a changed plot in
the next frame) and until the read-outs show the new text (the first frame whose text differs).
The page's websocket frames are counted too: a drag computed in the browser sends none until the
student lets go.

    probe = DragProbe(base)               # the served lab's /app URL
    await probe.open()
    await probe.run(rec, stop, drags=20)  # adds "browser drag → curve" and "… → read-outs" to rec
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
# Every data source of the page: after a change, the time of the next animation frame (BokehJS
# paints the changed plot in that frame, before this callback, which was asked for after its own).
SOURCES = """() => {
  window.__painted = 0; let pending = false;
  const sources = [...Bokeh.documents[0].all_models].filter((m) => m.constructor.__name__ === "ColumnDataSource");
  for (const s of sources) s.change.connect(() => {
    if (pending) return; pending = true;
    requestAnimationFrame(() => { window.__painted = performance.now(); pending = false; });
  });
  return sources.length;
}"""
# From now, every animation frame compares the page's text with what it is now, and notes the time
# of the first frame whose text differs (in the page: no round trip to this process in between).
WATCH_TEXT = """() => { const before = window.__deepText(); window.__redrawn = 0;
  const tick = () => { if (window.__deepText() !== before) window.__redrawn = performance.now();
                       else requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""
BOTH = "() => window.__painted > window.__lastMove && window.__redrawn > window.__lastMove"
STEP_PX = 12        # one pointer move of a drag
MOVES_PER_DRAG = 5  # moves right, then as many back left


class DragProbe:
    """One chromium page dragging chapter 10's α slider; latencies per pointer move, frames sent."""

    def __init__(self, base: str):
        self.base = base
        self.sent_dragging = 0      # websocket frames sent while the mouse button was down
        self.sent_released = 0      # … and in the second after it was let go
        self.drags = 0
        self.dragging_sent: list[str] = []     # the first frames sent while dragging, to say what they were
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
        if not await self.page.evaluate(SOURCES):
            raise RuntimeError("chapter 10 has no figure data to watch")

    def _sent(self, payload) -> None:
        if self._dragging:
            self.sent_dragging += 1
            if len(self.dragging_sent) < 3:
                self.dragging_sent.append(str(payload)[:160])
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
                await self.page.evaluate(WATCH_TEXT)
                await mouse.move(x, y)
                await self.page.wait_for_function(BOTH, polling=100, timeout=30000)
                curve, text = await self.page.evaluate(
                    "[window.__painted - window.__lastMove, window.__redrawn - window.__lastMove]")
                rec.add("browser drag → curve", curve / 1000)
                rec.add("browser drag → read-outs", text / 1000)
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
        sent = "".join(f"\n  sent while dragging: {frame}" for frame in self.dragging_sent)
        return (f"browser drags: {self.drags} of α, websocket frames sent while dragging: "
                f"{self.sent_dragging}, in the second after letting go: {self.sent_released}{sent}")

    async def close(self) -> None:
        await self.browser.close()
        await self.pw.stop()
