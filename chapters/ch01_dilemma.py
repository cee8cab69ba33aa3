"""Chapter 1 — the dilemma: the big model is good but slow, the small one fast but sloppy.

"Write" asks both live models for 20 tokens of plain decoding on the student's prompt and draws the
race as it is computed (lab.experiments.racestream): every call on one shared time axis at its cost in the
pair's one cost profile (the times chapters 3, 10 and 11 use, flagged when the machine was busy),
each lane's text growing while the models work. A race already computed (the server warms the
default one at start-up, shell/warmup.py) is replayed at the same speed instead. Draft tokens the
target would pick less than 15% of the time (teacher-forced target probability, raw distribution)
are marked in the small model's lane once the race is over.
"""
from __future__ import annotations

import asyncio
import html
import math
import time
from functools import cached_property

import panel as pn
from bokeh.models import ColumnDataSource, Label, Range1d, Span

from chapters.base import Chapter
from lab.experiments.racestream import cached_race
from lab.speed.timeline import UNLIKELY, Race, calls_until
from uikit import palette
from uikit.clicks import on_click
from uikit.figures import static_figure
from uikit.lazy import lazy_figure
from uikit.pacing import in_document, served
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS
from uikit.tokens import Chip, TokenStrip, count_html, lane, legend

N_TOKENS = 20
LANES = ("Small model", "Big model")   # bottom → top on the time axis
FIGURE_HEIGHT = 210   # px: the race figure
LABEL_Y = {"small": 0.5, "between": 1.0, "big": 1.5}   # the "done" labels' rows: a lane's centre, or between


def fmt_seconds(s: float) -> str:
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def summary_html(r: Race, reduced_motion: bool) -> str:
    """Who finished when, and how many of the small model's words the big one would rarely pick."""
    ratio = r.target_done / r.draft_done if r.draft_done > 0 else float("inf")
    n_unlikely = sum(r.unlikely)
    per_big = r.target_done / max(1, len(r.target_ends))
    per_small = r.draft_done / max(1, len(r.draft_ends))
    busy = f" <b>{html.escape(r.busy)}</b>" if r.busy else ""
    return (f'<div class="verdict waiting">The small model finished in <b>{fmt_seconds(r.draft_done)}</b>, '
            f'the big model in <b>{fmt_seconds(r.target_done)}</b> ({ratio:.1f}× the small model’s time; both make one '
            f'call per word: {fmt_seconds(per_big)} vs {fmt_seconds(per_small)} a call, as this pair’s cost profile '
            f'times them for chapters 3, 10 and 11). '
            f'But <b>{n_unlikely} of the small model’s {len(r.draft_texts)}</b> words are ones the big model '
            f'would pick less than {UNLIKELY:.0%} of the time here (marked ⚠).{busy}{motion_note(reduced_motion)}</div>')


def motion_note(reduced_motion: bool) -> str:
    if not reduced_motion:
        return ""
    return (' <i>Your browser asks for reduced motion, so the race is shown finished: each bar above is '
            'one call, placed at its cost in this pair’s cost profile.</i>')


class RaceFigure:
    """One row per model, one bar per call, on a shared time axis; "done" markers. Its source, time
    axis and markers are drawn into from the start; the figure is built the first time it is asked
    for (below the fold on a small screen: uikit.lazy)."""

    def __init__(self):
        self.calls = ColumnDataSource(dict(lane=[], left=[], right=[], color=[]))
        self.x_range = Range1d(0, 1)
        self.small_done = Span(location=0, dimension="height", line_color=palette.DRAFT, line_width=3,
                               line_dash="dashed", visible=False)
        self.big_done = Span(location=0, dimension="height", line_color=palette.TARGET, line_width=3,
                             line_dash="dashed", visible=False)
        # Each "done" label sits where no bar can be (placed by `draw`, `place_labels`).
        self.small_label = Label(x=0, y=LABEL_Y["small"], text="small model done", visible=False,
                                 text_color=palette.DRAFT, text_font_size="14px", text_baseline="middle")
        self.big_label = Label(x=0, y=LABEL_Y["between"], text="big model done", visible=False,
                               text_color=palette.TARGET, text_font_size="14px", text_baseline="middle")
        self.place_labels(small_last=False)
        self.now = Span(location=0, dimension="height", line_color=palette.INK, line_width=1, visible=False)

    @cached_property
    def figure(self):
        fig = static_figure(height=FIGURE_HEIGHT, sizing_mode="stretch_width", y_range=list(LANES),
                            x_range=self.x_range,
                            x_axis_label="time (seconds, each call at its cost measured on this server)")
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
                data["lane"].append(row); data["left"].append(start)
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


RECALL = ('<p style="font-size:1.05rem;color:#2b2d31">Recall the KV Cache Lab: a cache makes each call cheaper, '
          'but the big model must still be called once for every new word.</p>')


def words_count(n: int) -> str:
    return count_html(n, f"of {N_TOKENS} words")


def intro_for(pair) -> str:
    """The intro with the pair's own size ratio and names."""
    ratio = pair.target_params / max(1, pair.draft_params)
    return ("A large model is a careful writer, but it writes one word per call and every call is "
            f"expensive. A model {ratio:.0f} times smaller (here {pair.draft_label}, beside "
            f"{pair.target_label}) answers quicker — yet it is not the writer we asked for. "
            "Press **Write** and watch both.")


def dilemma_card(state) -> PredictCard:
    """Chapter 1's question: why not all 20 words in one call?"""
    right = "Each word is computed from the words before it, so word 4 must wait for word 3"
    return PredictCard(
        state, 1, DilemmaChapter.question, answer=right,
        choices=["It could, but one call for 20 words would need more memory than the GPU has",
                 right,
                 "It could, but the words would come out less accurate",
                 "Only the small model can write several words per call"],
        explanation="Writing is sequential: the model predicts the next token from everything before "
                    "it, so it must be called once for every new token — thousands of parallel units "
                    "cannot skip that wait.",
        hint="Now press Write and watch both models.")


def small_chip(r: Race, i: int, text: str) -> Chip:
    """The small model's word i; marked once the target's probability of it is known."""
    p = r.draft_target_p[i]
    if math.isnan(p):
        return Chip(text, "draft", "the small model's word (scored when the race is over)")
    return Chip(text, "unlikely" if p < UNLIKELY else "draft", f"the big model would pick this {p:.0%} of the time here")


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
    tour_parts = ("write_button", "speed", "big_strip", "small_strip", "figure", "summary")    # what shell/tour_steps.py shows
    question = ("A GPU does thousands of things at once. Why can’t the big model produce all 20 words "
                "in a single call?")
    presets = True

    @classmethod
    def warmup(cls, student):
        return [("chapter 1's race", cached_race,
                 (student.service, student.prompt_ids(), student.settings, N_TOKENS), {})]

    def page_intro(self) -> str:
        return intro_for(self.state.service.pair)

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.race: Race | None = None
        self.shown_time = 0.0
        self.animate = True            # tests set False: jump straight to the end
        self._callback = None
        self._t0 = 0.0
        self._shown_counts = None
        self.streaming = False         # the race on screen is still being computed
        self._writes = 0               # each Write's number: a late update of an earlier one is dropped

        self.write_button = pn.widgets.Button(label="✎ Write", color="primary", width=160,
                                              description="Both models write 20 tokens of your prompt")
        on_click(self.write_button, self._on_write)
        self.speed = pn.widgets.RadioButtonGroup(options=["real speed", "10× slower"], value="real speed",
                                                 color="primary", variant="outline")
        self.big_strip = TokenStrip(empty="Press Write: the big model's words appear here.")
        self.small_strip = TokenStrip(empty="…and the small model's here.")
        self.big_count = pn.pane.HTML(words_count(0), stylesheets=[BOX_CSS], width=140)
        self.small_count = pn.pane.HTML(words_count(0), stylesheets=[BOX_CSS], width=140)
        self.summary = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.race_figure = RaceFigure()

    @property
    def figure(self):
        """The race (the tour shows it; built when first asked for)."""
        return self.race_figure.figure

    def make_predict(self):
        return dilemma_card(self.state)

    # --- running ---
    async def _on_write(self, event=None):
        await self.write()

    async def write(self) -> Race | None:
        """Run both models, drawing the race as it is computed; a race computed before (cached per
        prompt and settings) is replayed at the same times."""
        ids = self.prompt_ids()
        if ids is None:
            return None
        self.stop()
        self._writes += 1
        write, loop, streamed = self._writes, asyncio.get_running_loop(), []
        doc = pn.state.curdoc if served() else None

        def progress(race, t):                       # on the model worker, after each call
            streamed.append(t)
            loop.call_soon_threadsafe(self._progress, write, race, t, doc)
        with button_disabled(self.write_button):
            result = await self.run_model(cached_race, self.state.service, ids, self.state.settings, N_TOKENS,
                                          progress, message="Both models are writing 20 tokens…")
        if write != self._writes:                    # a newer Write took over
            return None
        self.streaming = False
        if result is None:
            return None
        self.race, self._shown_counts = result, None
        in_document(self._start_replay, not streamed)
        return result

    def _progress(self, write: int, race: Race, t: float, doc) -> None:
        """A call has finished: draw the race so far (on the event loop, in the page's document)."""
        if write == self._writes:
            self.streaming, self.race = True, race
            if doc is None:
                self._draw_progress(race, t)
            else:                                    # a next-tick callback holds the document's lock
                try:
                    doc.add_next_tick_callback(lambda: self._draw_progress(race, t))
                except RuntimeError:                 # Bokeh's "already-destroyed Document": the tab closed
                    self.streaming = False

    def _draw_progress(self, race: Race, t: float) -> None:
        if self.race is not race or not self.streaming:      # the finished race is already drawn
            return
        x = self.race_figure.x_range
        if t > 0.85 * x.end or not self._shown_counts:
            x.end = max(t * 1.4, 1e-3)
        self.show(t)

    def _start_replay(self, replay: bool = True):
        """Show the finished race: replayed from 0 (when it came from the cache), else at its end."""
        self.race_figure.x_range.end = self.race.end * 1.12 or 1.0
        self.show(0.0 if replay else self.race.end)
        if replay and self.animate and not self.state.reduced_motion:
            self._t0 = time.perf_counter()
            self._callback = pn.state.add_periodic_callback(self._tick, period=80)   # ~12 frames/s
        else:
            self.show(self.race.end)

    @property
    def replaying(self) -> bool:
        """Whether a finished race is being replayed on the page (its frames still to come)."""
        return self._callback is not None

    def stop(self):
        """Stop replaying the race where it stands."""
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
            self.small_strip.chips = [small_chip(r, i, x) for i, x in enumerate(r.draft_texts[:n_small])]
            self.big_count.object = words_count(n_big)
            self.small_count.object = words_count(n_small)

        streamed = (len(r.draft_texts) >= N_TOKENS, len(r.target_texts) >= N_TOKENS)   # lanes done so far
        self.race_figure.draw(r, t, streamed if self.streaming else (True, True))
        if t >= r.end and not self.streaming:
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
            lazy_figure(lambda: self.figure, FIGURE_HEIGHT),    # below the fold at 1280×720
            legend(["target_call", "draft_call", "unlikely"],
                   {"target_call": "one slow big-model call", "draft_call": "one quick small-model call"}),
            self.summary,
            pn.pane.HTML(RECALL, sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
