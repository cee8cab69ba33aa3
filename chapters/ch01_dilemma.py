"""Chapter 1 — the dilemma: the big model is good but slow, the small one fast but sloppy.

"Write" asks both live models for 20 tokens of plain decoding on the student's prompt, then replays
the two traces side by side at their measured speed: every call is drawn on one shared time axis,
each lane's text fills in as its calls finish. Draft tokens the target would pick less than 15% of
the time (teacher-forced target probability, raw distribution) are marked in the small model's lane.
"""
from __future__ import annotations

import time

import panel as pn
from bokeh.models import ColumnDataSource, Label, Span

from chapters.base import Chapter
from lab.timeline import UNLIKELY, Race, calls_until
from uikit import palette
from uikit.figures import static_figure
from uikit.pacing import in_document
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS
from uikit.tokens import Chip, TokenStrip, count_html, lane, legend

N_TOKENS = 20
LANES = ("Small model", "Big model")   # bottom → top on the time axis


def fmt_seconds(s: float) -> str:
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def summary_html(r: Race, reduced_motion: bool) -> str:
    """Who finished when, and how many of the small model's words the big one would rarely pick."""
    ratio = r.target_done / r.draft_done if r.draft_done > 0 else float("inf")
    n_unlikely = sum(r.unlikely)
    per_big = r.target_done / max(1, len(r.target_ends))
    per_small = r.draft_done / max(1, len(r.draft_ends))
    return (f'<div class="verdict waiting">The small model finished in <b>{fmt_seconds(r.draft_done)}</b>, '
            f'the big model in <b>{fmt_seconds(r.target_done)}</b> ({ratio:.1f}× the small model’s time; both make one '
            f'call per word: {fmt_seconds(per_big)} vs {fmt_seconds(per_small)} a call). '
            f'But <b>{n_unlikely} of the small model’s {len(r.draft_texts)}</b> words are ones the big model '
            f'would pick less than {UNLIKELY:.0%} of the time here (marked ⚠).{motion_note(reduced_motion)}</div>')


def motion_note(reduced_motion: bool) -> str:
    if not reduced_motion:
        return ""
    return (' <i>Your browser asks for reduced motion, so the race is shown finished: each bar above is '
            'one call, placed at the time it was measured.</i>')


class RaceFigure:
    """One row per model, one bar per call, on a shared time axis; "done" markers; built once."""

    def __init__(self):
        fig = static_figure(height=210, sizing_mode="stretch_width", y_range=list(LANES), x_range=(0, 1),
                            x_axis_label="time (seconds, measured on this server)")
        self.calls = ColumnDataSource(dict(lane=[], left=[], right=[], color=[]))
        fig.hbar(y="lane", left="left", right="right", height=0.55, fill_color="color", line_color="white",
                 line_width=1.5, source=self.calls)
        self.small_done = Span(location=0, dimension="height", line_color=palette.DRAFT, line_width=3,
                               line_dash="dashed", visible=False)
        self.big_done = Span(location=0, dimension="height", line_color=palette.TARGET, line_width=3,
                             line_dash="dashed", visible=False)
        self.small_label = Label(x=0, y=0, y_units="screen", text="small model done", visible=False,
                                 text_color=palette.DRAFT, text_font_size="14px", x_offset=-5, text_align="right")
        self.big_label = Label(x=0, y=0, y_units="screen", text="big model done", visible=False,
                               text_color=palette.TARGET, text_font_size="14px", x_offset=-5, text_align="right")
        self.now = Span(location=0, dimension="height", line_color=palette.INK, line_width=1, visible=False)
        for r in (self.small_done, self.big_done, self.now, self.small_label, self.big_label):
            fig.add_layout(r)
        fig.yaxis.major_label_text_font_size = "15px"
        fig.ygrid.grid_line_color = None
        self.figure = fig

    def draw(self, r: Race, t: float) -> None:
        """The race as it stood `t` seconds after both models started: each call begun so far."""
        data = dict(lane=[], left=[], right=[], color=[])
        for row, ends, col in (("Big model", r.target_ends, palette.TARGET),
                               ("Small model", r.draft_ends, palette.DRAFT)):
            for start, end in calls_until(ends, t):
                data["lane"].append(row); data["left"].append(start)
                data["right"].append(end); data["color"].append(col)
        self.calls.data = data
        self.now.location, self.now.visible = t, t < r.end
        for span, label, done, y in ((self.small_done, self.small_label, r.draft_done, 150),
                                     (self.big_done, self.big_label, r.target_done, 130)):
            span.location = label.x = done
            span.visible = label.visible = t >= done
            label.y = y


class DilemmaChapter(Chapter):
    number = 1
    slug = "dilemma"
    part = "I"
    kicker = "The dilemma"
    title = "Good is slow. Fast is sloppy."
    intro = ("A large model is a careful writer, but it writes one word per call and every call is "
             "expensive. A much smaller model answers much quicker — yet it is not the writer we asked "
             "for. Press **Write** and watch both.")
    takeaway = "We want the big model’s words at something like the small model’s speed."
    question = ("A GPU does thousands of things at once. Why can’t the big model produce all 20 words "
                "in a single call?")

    def page_intro(self) -> str:
        pair = self.state.service.pair
        ratio = pair.target_params / max(1, pair.draft_params)
        return ("A large model is a careful writer, but it writes one word per call and every call is "
                f"expensive. A model {ratio:.0f} times smaller (here {pair.draft_label}, beside "
                f"{pair.target_label}) answers quicker — yet it is not the writer we asked for. "
                "Press **Write** and watch both.")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.race: Race | None = None
        self.shown_time = 0.0
        self.animate = True            # tests set False: jump straight to the end
        self._callback = None
        self._t0 = 0.0
        self._shown_counts = None

        self.write_button = pn.widgets.Button(label="✎ Write", color="primary", width=160,
                                              description="Both models write 20 tokens of your prompt")
        self.write_button.on_click(self._on_write)
        self.speed = pn.widgets.RadioButtonGroup(options=["real speed", "10× slower"], value="real speed",
                                                 color="primary", variant="outline")
        self.big_strip = TokenStrip(empty="Press Write: the big model's words appear here.")
        self.small_strip = TokenStrip(empty="…and the small model's here.")
        self.big_count = pn.pane.HTML(self._count_html(0), stylesheets=[BOX_CSS], width=140)
        self.small_count = pn.pane.HTML(self._count_html(0), stylesheets=[BOX_CSS], width=140)
        self.summary = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.race_figure = RaceFigure()
        self.figure = self.race_figure.figure   # the tour shows it

    # --- the predict card ---
    def make_predict(self):
        right = "Each word is computed from the words before it, so word 4 must wait for word 3"
        return PredictCard(
            self.state, 1, self.question, answer=right,
            choices=["It could, but one call for 20 words would need more memory than the GPU has",
                     right,
                     "It could, but the words would come out less accurate",
                     "Only the small model can write several words per call"],
            explanation="Writing is sequential: the model predicts the next token from everything before "
                        "it, so it must be called once for every new token — thousands of parallel units "
                        "cannot skip that wait.",
            hint="Now press Write and watch both models.")

    @staticmethod
    def _count_html(n: int) -> str:
        return count_html(n, f"of {N_TOKENS} words")

    # --- running ---
    async def _on_write(self, event=None):
        await self.write()

    async def write(self) -> Race | None:
        """Run both models (cached per prompt and settings), then replay their measured times."""
        ids = self.prompt_ids()
        if ids is None:
            return None
        self.stop()
        with button_disabled(self.write_button):
            result = await self.run_model(self.state.service.race, ids, self.state.settings, N_TOKENS,
                                          message="Both models are writing 20 tokens…")
        if result is None:
            return None
        self.race = result
        self._shown_counts = None
        in_document(self._start_replay)
        return result

    def _start_replay(self):
        self.race_figure.figure.x_range.end = self.race.end * 1.12 or 1.0
        self.show(0.0)
        if self.animate and not self.state.reduced_motion:
            self._t0 = time.perf_counter()
            self._callback = pn.state.add_periodic_callback(self._tick, period=80)   # ~12 frames/s
        else:
            self.show(self.race.end)

    def stop(self):
        if self._callback is not None:
            self._callback.stop()
            self._callback = None

    def _tick(self):
        slow = 10.0 if self.speed.value.startswith("10") else 1.0
        t = (time.perf_counter() - self._t0) / slow
        if self.race is None or t >= self.race.end:
            self.stop()
            t = self.race.end if self.race else 0.0
        self.show(t)

    def show(self, t: float) -> None:
        """Draw the race as it stood `t` seconds after both models started."""
        r = self.race
        self.shown_time = t
        n_big = sum(e <= t for e in r.target_ends)
        n_small = sum(e <= t for e in r.draft_ends)
        if (n_big, n_small) != self._shown_counts:      # send text only when a word was added
            self._shown_counts = (n_big, n_small)
            self.big_strip.chips = [Chip(x, "target") for x in r.target_texts[:n_big]]
            unlikely = r.unlikely
            self.small_strip.chips = [
                Chip(x, "unlikely" if unlikely[i] else "draft",
                     f"the big model would pick this {r.draft_target_p[i]:.0%} of the time here")
                for i, x in enumerate(r.draft_texts[:n_small])]
            self.big_count.object = self._count_html(n_big)
            self.small_count.object = self._count_html(n_small)

        self.race_figure.draw(r, t)
        if t >= r.end:
            self.summary.object = summary_html(self.race, self.state.reduced_motion)
            if self.predict is not None:
                self.predict.reveal()
        else:
            self.summary.object = ""

    # --- page ---
    def body(self):
        return pn.Column(
            pn.Row(self.write_button, self.speed, self.busy, sizing_mode="stretch_width"),
            lane("Big model", "the writer we want — one slow call per word", self.big_strip,
                 self.big_count, palette.TARGET),
            lane("Small model", "quicker per word, but not the writer we want", self.small_strip, self.small_count,
                 palette.DRAFT),
            pn.pane.Bokeh(self.figure, sizing_mode="stretch_width"),
            legend(["target_call", "draft_call", "unlikely"],
                   {"target_call": "one slow big-model call", "draft_call": "one quick small-model call"}),
            self.summary,
            pn.pane.HTML('<p style="font-size:1.05rem;color:#2b2d31">Recall the KV Cache Lab: a cache makes '
                         'each call cheaper, but the big model must still be called once for every new word.</p>',
                         sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
