"""A progress bar with the time left, for a measurement that takes a while.

The work reports how long it may take (`estimate`, in seconds, settable from the model worker's
thread); until then the bar runs without a value and says it is estimating. While it runs the bar
fills with the time elapsed against the estimate and the line reads "about N s left"; past the
estimate it reads "almost done", and well past it that the machine is busy. Hidden when nothing runs,
and then as built.

    async with self.time_left.running() as left:
        result = await self.run_model(work, ..., on_estimate=left.set_estimate)
"""
from __future__ import annotations

import asyncio
import contextlib
import math
import time

import panel as pn

from uikit.styles import BOX_CSS

OVERRUN = 1.25   # past this many times the estimate (and 2 s more), the line says the machine is busy


def time_left_text(elapsed: float, estimate: float | None) -> tuple[int, str]:
    """(bar value 0…99, or -1 while unknown; the line under it) after `elapsed` of `estimate` seconds."""
    if estimate is None:
        return -1, "Estimating how long this takes…"
    left = estimate - elapsed
    value = int(min(99, 100 * elapsed / estimate)) if estimate > 0 else 99
    if elapsed > OVERRUN * estimate + 2:
        return value, "Taking longer than estimated: the machine is busy…"
    if left < 1:
        return value, "Almost done…"
    return value, f"About {math.ceil(left)} s left"


class TimeLeft(pn.viewable.Viewer):
    """A progress bar and "about N s left", shown while `running()`, redrawn every `period` seconds
    (the line counts whole seconds; every waiting page's redraw is work on the loop the class shares)."""

    def __init__(self, *, width: int = 240, period: float = 1.0, clock=time.monotonic):
        super().__init__()
        self.period, self._clock = period, clock
        self.estimate: float | None = None
        self._start = 0.0
        self.bar = pn.indicators.Progress(value=-1, max=100, active=False, width=width, bar_color="primary",
                                          margin=(10, 8))
        self.text = pn.pane.HTML("", stylesheets=[BOX_CSS], margin=(2, 0), min_width=170)
        self._row = pn.Row(self.bar, self.text, visible=False, css_classes=["time-left"])

    def set_estimate(self, seconds: float) -> None:
        """How long the work may take, from its start (callable from any thread)."""
        self.estimate = max(0.0, float(seconds))

    def refresh(self) -> tuple[int, str]:
        """Draw the bar and the line for now; returns what was drawn."""
        value, line = time_left_text(self._clock() - self._start, self.estimate)
        self.bar.value, self.bar.active = value, value < 0
        self.text.object = f'<div class="busy" aria-live="off">{line}</div>'
        return value, line

    @contextlib.asynccontextmanager
    async def running(self):
        """Show the bar while the body runs, refreshed every `period` seconds; hide it afterwards."""
        self.estimate, self._start = None, self._clock()
        self.refresh()
        self._row.visible = True
        ticker = asyncio.ensure_future(self._tick())
        try:
            yield self
        finally:
            ticker.cancel()
            self._row.visible = False
            self._as_built()

    def _as_built(self) -> None:
        """The hidden bar and line as a fresh page builds them, so what looks the same after any
        measurement is the same page (the export records it once)."""
        self.bar.param.update(value=-1, active=False)
        self.text.object = ""

    async def _tick(self):
        while True:
            await asyncio.sleep(self.period)
            self.refresh()

    def __panel__(self):
        return self._row
