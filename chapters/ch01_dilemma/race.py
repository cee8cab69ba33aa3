"""Chapter 1's race as the page draws it: both models' calls on one time axis, the lanes' words,
the verdict under them, and the replay of a race computed before.

`RaceFigure` draws the race as it stood at a time t (every call begun by then, each lane's "done"
marker once it has finished); `Replay` moves t from 0 to the race's end at the race's own speed, or
ten times slower, so a race from the cache is seen as it was computed. The figure's source, time
axis and markers exist from the start; the figure is built the first time it is asked for (below
the fold on a small screen: uikit.lazy).
"""
from __future__ import annotations

import html
import math
import time
from functools import cached_property
from typing import Callable

import panel as pn
from bokeh.models import ColumnDataSource, Label, Range1d, Span

from lab.speed.timeline import UNLIKELY, Race, calls_until
from uikit import palette
from uikit.figures import static_figure
from uikit.language import gettext as _, ngettext, number, percent
from uikit.tokens import Chip, count_html
from uikit.verdicts import why_busy

N_TOKENS = 20
LANES = ("Small model", "Big model")   # bottom → top on the time axis, in the page's language on the page
FIGURE_HEIGHT = 210   # px: the race figure
LABEL_Y = {"small": 0.5, "between": 1.0, "big": 1.5}   # the "done" labels' rows: a lane's centre, or between
FRAME_MS = 80         # a replay's frame: about 12 a second


def fmt_seconds(s: float) -> str:
    if s < 1:
        return _("{value} ms").format(value=number(s * 1000))
    return _("{value} s").format(value=number(s, 2))


def summary_html(r: Race, reduced_motion: bool) -> str:
    """Who finished when, and how many of the small model's words the big one would rarely pick: two
    sentences, each one message."""
    ratio = r.target_done / r.draft_done if r.draft_done > 0 else float("inf")
    n_unlikely = sum(r.unlikely)
    per_big = r.target_done / max(1, len(r.target_ends))
    per_small = r.draft_done / max(1, len(r.draft_ends))
    busy = f" <b>{html.escape(why_busy(r.profile))}</b>" if r.profile is not None and r.profile.busy else ""
    times = html.escape(_(
        "The small model finished in {small}, the big model in {big} ({ratio}× the small model’s time; both make "
        "one call per word: {per_big} vs {per_small} a call, as this pair’s cost profile times them for chapters "
        "3, 10 and 11).")).format(small=f"<b>{fmt_seconds(r.draft_done)}</b>",
                                  big=f"<b>{fmt_seconds(r.target_done)}</b>", ratio=number(ratio, 1),
                                  per_big=fmt_seconds(per_big), per_small=fmt_seconds(per_small))
    # Translators: {count} is bold with "of the small model’s {total}"; the sentence ends with the ⚠ mark.
    rare = ngettext("But <b>{count} of the small model’s {total}</b> words are ones the big model would pick less "
                    "than {share} of the time here (marked ⚠).",
                    "But <b>{count} of the small model’s {total}</b> words are ones the big model would pick less "
                    "than {share} of the time here (marked ⚠).", n_unlikely).format(
        count=n_unlikely, total=len(r.draft_texts), share=percent(UNLIKELY))
    return f'<div class="verdict waiting">{times} {rare}{busy}{motion_note(reduced_motion)}</div>'


def motion_note(reduced_motion: bool) -> str:
    if not reduced_motion:
        return ""
    note = _("Your browser asks for reduced motion, so the race is shown finished: each bar above is one call, "
             "placed at its cost in this pair’s cost profile.")
    return f' <i>{html.escape(note)}</i>'


class RaceFigure:
    """One row per model, one bar per call, on a shared time axis; "done" markers. Its source, time
    axis and markers are drawn into from the start; the figure is built the first time it is asked
    for (below the fold on a small screen: uikit.lazy)."""

    def __init__(self):
        self.lanes = {lane: _(lane) for lane in LANES}     # each lane's row, named in the page's language
        self.calls = ColumnDataSource(dict(lane=[], left=[], right=[], color=[]))
        self.x_range = Range1d(0, 1)
        self.small_done = Span(location=0, dimension="height", line_color=palette.DRAFT, line_width=3,
                               line_dash="dashed", visible=False)
        self.big_done = Span(location=0, dimension="height", line_color=palette.TARGET, line_width=3,
                             line_dash="dashed", visible=False)
        # Each "done" label sits where no bar can be (placed by `draw`, `place_labels`).
        self.small_label = Label(x=0, y=LABEL_Y["small"], text=_("small model done"), visible=False,
                                 text_color=palette.DRAFT, text_font_size="14px", text_baseline="middle")
        self.big_label = Label(x=0, y=LABEL_Y["between"], text=_("big model done"), visible=False,
                               text_color=palette.TARGET, text_font_size="14px", text_baseline="middle")
        self.place_labels(small_last=False)
        self.now = Span(location=0, dimension="height", line_color=palette.INK, line_width=1, visible=False)

    @cached_property
    def figure(self):
        fig = static_figure(height=FIGURE_HEIGHT, sizing_mode="stretch_width",
                            y_range=[self.lanes[lane] for lane in LANES],
                            x_range=self.x_range,
                            x_axis_label=_("time (seconds, each call at its cost measured on this server)"))
        fig.hbar(y="lane", left="left", right="right", height=0.55, fill_color="color", line_color="white",
                 line_width=1.5, source=self.calls)
        for r in (self.small_done, self.big_done, self.now, self.small_label, self.big_label):
            fig.add_layout(r)
        fig.yaxis.major_label_text_font_size = "15px"
        fig.ygrid.grid_line_color = None
        return fig

    def draw(self, r: Race, t: float, finished: tuple[bool, bool] = (True, True)) -> None:
        """The race as it stood `t` seconds after both models started: each call begun so far; a
        lane's "done" marker only once it has finished (small, big)."""
        data = dict(lane=[], left=[], right=[], color=[])
        for row, ends, col in (("Big model", r.target_ends, palette.TARGET),
                               ("Small model", r.draft_ends, palette.DRAFT)):
            for start, end in calls_until(ends, t):
                data["lane"].append(self.lanes[row]); data["left"].append(start)
                data["right"].append(end); data["color"].append(col)
        self.calls.data = data
        self.now.location, self.now.visible = t, t < r.end
        for span, label, done, over in ((self.small_done, self.small_label, r.draft_done, finished[0]),
                                        (self.big_done, self.big_label, r.target_done, finished[1])):
            span.location = label.x = done
            span.visible = label.visible = over and t >= done
        self.place_labels(small_last=all(finished) and r.draft_done > r.target_done)

    def place_labels(self, small_last: bool) -> None:
        """The lane that finished first has its label in its own lane, right of its finish line (no
        call of its own is left there, and the race goes on after it); the last one's sits between
        the lanes, left of its finish line (near the figure's right edge, where no text fits after it)."""
        for label, own, last in ((self.small_label, "small", small_last), (self.big_label, "big", not small_last)):
            label.y = LABEL_Y["between"] if last else LABEL_Y[own]
            label.text_align, label.x_offset = ("right", -6) if last else ("left", 6)


def words_count(n: int) -> str:
    return count_html(n, ngettext("of {total} word", "of {total} words", N_TOKENS).format(total=N_TOKENS))


def small_chip(r: Race, i: int, text: str) -> Chip:
    """The small model's word i; marked once the target's probability of it is known."""
    p = r.draft_target_p[i]
    if math.isnan(p):
        return Chip(text, "draft", _("the small model's word (scored when the race is over)"))
    return Chip(text, "unlikely" if p < UNLIKELY else "draft",
                _("the big model would pick this {share} of the time here").format(share=percent(p)))



class Replay:
    """A finished race shown again from its start: `show(t)` about 12 times a second, t running
    from 0 to the race's end at its own speed divided by `slowdown()` (read at every frame, so the
    speed buttons apply at once), on a periodic callback of the page's document."""

    def __init__(self, show: Callable[[float], None], slowdown: Callable[[], float]):
        self._show, self._slowdown = show, slowdown
        self._callback = None
        self._t0 = self._end = 0.0

    @property
    def running(self) -> bool:
        """Whether frames are still to come."""
        return self._callback is not None

    def start(self, end: float) -> None:
        """Replay from 0 to `end` seconds of the race (the caller has shown t = 0)."""
        self.stop()
        self._t0, self._end = time.perf_counter(), end
        self._callback = pn.state.add_periodic_callback(self._frame, period=FRAME_MS)

    def stop(self) -> None:
        """Stop where the replay stands."""
        if self.running:
            self._callback.stop()
            self._callback = None

    def _frame(self) -> None:
        t = (time.perf_counter() - self._t0) / self._slowdown()
        if t >= self._end:
            self.stop()
            t = self._end
        self._show(t)
