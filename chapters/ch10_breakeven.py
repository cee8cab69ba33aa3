"""Chapter 10 — when does drafting save time? The analytic model, with sliders, and the live pair.

The sliders redraw in the browser (uikit.browser: assets/analytic.js and assets/ch10_breakeven.js,
the same formulas and HTML as lab.experiments.breakeven and uikit.readouts); Python's α, γ and c follow
when the student lets go, and its redraw (numpy, `ColumnDataSource.data`) draws the same. The figures are
built once and never wait for a model. Beside the lecture's round cost 1 + γc runs the cost measured on this
machine, γc + v(γ + 1), from the pair's one cost profile (lab.speed.costs, shared with chapters 3 and 11).
"Use my models" asks the model service for the outcome of the student's request (lab.speed.request: the
same one chapters 4, 11 and 12 show), moves α, γ and c there and shows the measured speed-up beside
the formula's; `measure_live` fetches it without touching the sliders (the tour starts it ahead) and
keeps it, which Use my models then applies at once.
"""
from __future__ import annotations

import time
from functools import cached_property

import numpy as np
import panel as pn
import param
from bokeh.models import Label, Range1d, Span

from chapters.base import Chapter
from lab.experiments import breakeven
from lab.speed import costs
from lab.experiments.breakeven import ALPHAS, QUESTION
from lab.speed.timeline import REQUEST_TOKENS
from uikit import palette
from uikit.clicks import on_click
from uikit.figures import page_sources, static_figure
from uikit.browser import browser_redraw, browser_slider, redraw_on_move
from uikit.kept import KeptWork
from uikit.lazy import Lazy
from uikit.pacing import Throttled, in_document, served
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.progress import TimeLeft
from uikit.readouts import (TABLE_ROWS, VERDICT_CSS, cost_note_html, live_html, question_explanation, readout_html,
                             table_html)
from uikit.state import GAMMA_MAX
from uikit.styles import TABLE_CSS

GAMMAS = np.arange(1, GAMMA_MAX + 1)   # the γ bars
MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
LIVE_FRESH_SECONDS = 600   # "Use my models" takes a kept measurement of the same request this young
LAST_SECONDS: list[float] = []   # how long the server's last live measurement took: the next one's estimate
FIGURES_HEIGHT = 855        # px: the figures, the table and the caption, as laid out at 1280 px wide
CAPTION = ("Analytic model of Leviathan, Kalman & Matias (2023): acceptances are treated as independent with "
           "rate α; one verification pass over γ + 1 positions takes about as long as one target call; c is "
           "the time of a draft call divided by a target call. It predicts shapes, not benchmarks.")


def browser_profile(profile) -> dict:
    """What the browser's redraw needs of the pair's cost profile (lab.speed.costs.CostProfile): each verify
    pass in target calls (index k: a pass over k + 1 positions) and the busy sentence, if any."""
    return dict(verify=[s / profile.unit for s in profile.verify_seconds],
                busy=" " + profile.why_busy() if profile.busy else "")


class BreakEvenFigures:
    """Speed-up against α (with the break-even line), against γ (the best γ filled) and the cost of
    a round, redrawn by changing their sources' data and ranges. The sources, ranges and break-even
    marks are built with the page (the browser's redraw holds them); each figure is built the first
    time it is asked for (the page's figures sit below the fold: uikit.lazy)."""

    def __init__(self):
        source = page_sources()
        self.curve = source(alpha=ALPHAS, speedup=ALPHAS * 0)
        self.point = source(alpha=[0.0], speedup=[0.0])
        self.measured = source(alpha=[], speedup=[])   # filled once the profile is in
        self.break_span = Span(location=0.5, dimension="height", line_dash="dotted",
                               line_color=palette.EAGER, line_width=2)
        self.break_label = Label(x=0.5, y=3.5, text="", text_color=palette.EAGER, text_font_size="14px", x_offset=4)
        self.bars = source(gamma=[str(g) for g in GAMMAS], speedup=GAMMAS * 0.0,
                           color=[palette.MUTED] * len(GAMMAS), hatch=[" "] * len(GAMMAS))
        self.lecture_cost = source(gamma=GAMMAS, cost=GAMMAS * 0.0)
        self.measured_cost = source(gamma=[], cost=[])
        # the y ranges the redraws move (each figure's y_range)
        self.speed_range, self.gamma_range, self.cost_range = (Range1d(0, 4) for _ in range(3))

        # the same redraw in the browser, while a slider moves (uikit.browser)
        self.redraw = browser_redraw(
            "ch10_breakeven", curve=self.curve, point=self.point, measured=self.measured, bars=self.bars,
            lecture_cost=self.lecture_cost, measured_cost=self.measured_cost, speed_range=self.speed_range,
            gamma_range=self.gamma_range, cost_range=self.cost_range, break_span=self.break_span,
            break_label=self.break_label, profile=None, gamma_max=GAMMA_MAX,
            colours=dict(target=palette.TARGET, muted=palette.MUTED), table_rows=[list(r) for r in TABLE_ROWS])

    @cached_property
    def speed_fig(self):
        f = static_figure(syncable=False, height=300, sizing_mode="stretch_width", x_range=(0, 1),
                          y_range=self.speed_range, title="Speed-up vs α (chosen γ and c)",
                          x_axis_label="α (acceptance rate)", y_axis_label="speed-up ×")
        f.line("alpha", "speedup", source=self.curve, line_width=3, color=palette.TARGET,
               legend_label="speed-up E / (1 + γc)")
        f.line("alpha", "speedup", source=self.measured, line_width=3, color=palette.OVERLAP, line_dash="dashdot",
               legend_label="E / (γc + v(γ + 1)), v measured")
        f.scatter("alpha", "speedup", source=self.point, size=12, color=palette.DRAFT,
                  marker="diamond", legend_label="your α")
        f.add_layout(self.break_span)
        f.add_layout(self.break_label)
        # speed-up = 1 across the whole α axis, its key in the legend (a label would cross the curve)
        f.line([0, 1], [1, 1], line_dash="dashed", line_color=palette.INK, line_width=2,
               legend_label="speed-up = 1: break-even")
        f.legend.location = "top_left"
        return f

    @cached_property
    def gamma_fig(self):
        g = static_figure(syncable=False, height=300, sizing_mode="stretch_width", x_range=[str(g) for g in GAMMAS],
                          title="Speed-up vs γ (chosen α and c) — best γ filled",
                          x_axis_label="γ (draft length)", y_axis_label="speed-up ×", y_range=self.gamma_range)
        g.vbar(x="gamma", top="speedup", source=self.bars, width=0.8, fill_color="color",
               line_color=palette.INK, hatch_pattern="hatch", hatch_color="white", hatch_alpha=0.6)
        g.add_layout(Span(location=1, dimension="width", line_dash="dashed", line_color=palette.INK, line_width=2))
        return g

    @cached_property
    def cost_fig(self):
        h = static_figure(syncable=False, height=260, sizing_mode="stretch_width", x_range=(0.5, GAMMA_MAX + 0.5),
                          y_range=self.cost_range, title="Cost of one round (target calls) vs γ, chosen c",
                          x_axis_label="γ (draft length)", y_axis_label="target calls")
        h.line("gamma", "cost", source=self.lecture_cost, line_width=3, color=palette.TARGET,
               legend_label="lecture: 1 + γc")
        h.line("gamma", "cost", source=self.measured_cost, line_width=3, color=palette.OVERLAP,
               line_dash="dashdot", legend_label="measured: v(γ + 1) + γc")
        h.scatter("gamma", "cost", source=self.measured_cost, size=7, color=palette.OVERLAP)
        h.legend.location = "top_left"
        h.xaxis.ticker = list(GAMMAS)
        return h

    def draw(self, a: float, g: int, c: float, n: dict, profile=None) -> None:
        """Redraw for α, γ, c and their numbers (BreakEvenChapter.numbers); with the pair's cost
        profile (lab.speed.costs.CostProfile), the measured-cost curves too."""
        top = max(2.0, float(n["curve"].max()) * 1.1)
        be, s, best = n["break_even"], n["per_gamma"], n["best_gamma"]
        self.curve.data.update(speedup=n["curve"])   # only the changed columns are sent
        self.point.data = dict(alpha=[a], speedup=[n["speedup"]])
        self.speed_range.end = top
        # The legend holds the top left; the label goes where the curve is not.
        if np.isnan(be):   # the whole curve is below 1: write above it, on the right
            self.break_span.visible = False
            self.break_label.update(text="no α breaks even (c too large)", x=0.98, y=top * 0.6,
                                    text_align="right", x_offset=0)
        else:              # the curve is above 1 right of the line: write at its foot
            self.break_span.update(visible=True, location=be)
            # Keep the label inside the plot: right of the line, or left of it near α = 1.
            left = be > 0.6
            self.break_label.update(text=f"break-even α = {be:.2f}", x=be, y=top * 0.04,
                                    text_align="right" if left else "left", x_offset=-4 if left else 4)
        pays = n["best_speedup"] > 1             # no γ filled when none beats standard decoding
        self.bars.data.update(speedup=s,
                              color=[palette.TARGET if x == best and pays else palette.MUTED for x in GAMMAS],
                              hatch=[" " if x == best and pays else "/" for x in GAMMAS])
        self.gamma_range.end = max(2.0, float(s.max()) * 1.15)
        self.lecture_cost.data.update(cost=1 + GAMMAS * c)
        if profile is not None:
            self.redraw.args = dict(self.redraw.args, profile=browser_profile(profile))
            self.measured.data = dict(alpha=ALPHAS, speedup=profile.speedup(ALPHAS, g, c))
            self.measured_cost.data = dict(gamma=GAMMAS, cost=profile.round_cost(GAMMAS, c))
        self.cost_range.end = 1.1 * max([*self.lecture_cost.data["cost"], *self.measured_cost.data["cost"]])


class BreakEvenChapter(Chapter):
    number = 10
    slug = "breakeven"
    part = "III"
    kicker = "Question 5 · when does drafting save time?"
    title = "Tokens per round, divided by cost per round."
    intro = ("A round costs γ draft calls plus one target call, and returns a few tokens. Three "
             "numbers decide whether that beats standard decoding: the acceptance rate α, the "
             "draft's relative cost c, and the draft length γ.")
    takeaway = "Drafting pays off when α is high and c is small — and it can be slower."
    tour_parts = ("try_question", "alpha_slider", "gamma_slider", "c_slider", "readout", "speed_fig",
                  "use_models", "time_left", "live", "gamma_fig")    # what shell/tour_steps.py shows
    presets = True       # the preset prompts and aligned / weak / random draft bar (chapters.base)
    guessers = True      # and who guesses: the draft model, a copy from the text, or both

    question = ("The draft is accepted 60% of the time and each draft call costs 30% of a target "
                "call. With γ = 5, is drafting faster?")

    alpha = param.Number(default=0.8, bounds=(0.0, 1.0), step=0.01, doc="α, the acceptance rate.")
    gamma = param.Integer(default=4, bounds=(1, GAMMA_MAX), doc="γ, the draft length.")
    c = param.Number(default=0.1, bounds=(0.0, 2.0), step=0.01, doc="c, draft call ÷ target call.")
    outcome = param.Parameter(default=None, doc="The student's request measured (lab.speed.request.Outcome).")
    profile = param.Parameter(default=None, doc="The pair's lab.speed.costs.CostProfile, once measured.")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.alpha_slider = browser_slider(self.param.alpha, label="α acceptance rate", width=260)
        self.gamma_slider = browser_slider(self.param.gamma, label="γ draft length", width=260)
        self.c_slider = browser_slider(self.param.c, label="c draft cost ÷ target cost", width=260)
        self.use_models = pn.widgets.Button(label="Use my models", color="primary", width=160)
        on_click(self.use_models, self.use_my_models)
        a, g, c = QUESTION
        self.try_question = pn.widgets.Button(label=f"Try α = {a}, γ = {g}, c = {c}", width=200)
        on_click(self.try_question, lambda e: self.param.update(alpha=a, gamma=g, c=c))
        # the formula, the live pair's measurement, the lecture's table, the note on the measured cost
        self.readout, self.live, self.table, self.cost_note = (
            pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, VERDICT_CSS]) for _ in range(4))
        self.figs = BreakEvenFigures()
        redraw_on_move(self.figs.redraw, dict(alpha=self.alpha_slider, gamma=self.gamma_slider, c=self.c_slider),
                       dict(readout=self.readout, table=self.table, note=self.cost_note))
        self.kept = KeptWork(LIVE_FRESH_SECONDS)   # the live pair's measurement (measure_live)
        self.time_left = TimeLeft()                 # its progress bar and time left
        self.profile = costs.already_measured(state.service, self.draft)   # drawn in the first draw
        self._update()
        self.param.watch(Throttled(self._update), ["alpha", "gamma", "c", "profile"])
        if served():
            pn.state.onload(self.load)

    async def load(self) -> None:
        """Fetch the pair's cost profile (measured once per server) and draw the measured curves; at
        once, without the model worker, when it is measured already."""
        got = costs.already_measured(self.state.service, self.draft) or await self.run_model(
            costs.of_service, self.state.service, message="Timing this pair's calls (once per server)…")
        if got is not None and got is not self.profile:
            self.profile = got

    async def on_settings_changed(self, changed: set[str]) -> None:
        """Another draft (the preset bar) costs its own c: fetch that pair's profile."""
        if "draft" in changed and self.profile is not None:
            await self.load()

    @property
    def speed_fig(self):
        """The speed-up against α (the tour shows it; built when first asked for)."""
        return self.figs.speed_fig

    @property
    def gamma_fig(self):
        """The speed-up against γ (the tour shows it; built when first asked for)."""
        return self.figs.gamma_fig

    # ---- pure numpy updates -----------------------------------------------------------------
    def numbers(self) -> dict:
        """The analytic model at the sliders' α, γ, c (lab.experiments.breakeven.analytic_figures; the
        bars over 1…GAMMA_MAX)."""
        return breakeven.analytic_figures(self.alpha, self.gamma, self.c, GAMMA_MAX)

    def _update(self):
        # one patch message for the whole redraw (readout, table and figures), not one per change
        with pn.io.hold():
            self._redraw()

    def _redraw(self):
        a, g, c = self.alpha, self.gamma, self.c
        n = self.numbers()
        in_document(self.figs.draw, a, g, c, n, self.profile)   # raw Bokeh models: where the document lock is held
        self.readout.object = readout_html(a, g, c, n, self.profile)
        self.table.object = table_html(c, (round(a, 2), g))
        self.cost_note.object = cost_note_html(self.profile, g)
        self._maybe_reveal()

    # ---- the live pair ---------------------------------------------------------------------------
    async def measure_live(self):
        """The outcome of the student's request (lab.speed.request: their prompt, settings and γ, the
        request chapters 4, 11–13 show), kept for "Use my models" (the tour starts this two steps
        ahead); α, γ, c and their sliders stay where they are. The sliders are the formula's: they
        never change the student's γ for the other pages.

        An outcome of the same request younger than LIVE_FRESH_SECONDS (or still coming) is reused,
        unless the machine has been re-timed since (serving.retime): then it is priced anew; returns
        it, or None with the problem shown.
        """
        ids = self.prompt_ids()
        if ids is None:
            return None
        request = self.request(ids, max_new_tokens=MAX_NEW_TOKENS)
        got = await self.kept.get(request, lambda: self._measure(request))
        now = costs.already_measured(self.state.service, request.draft)
        if got is not None and now is not None and got.profile is not now:    # re-timed since: price anew
            self.kept = KeptWork(LIVE_FRESH_SECONDS)
            got = await self.kept.get(request, lambda: self._measure(request))
        return got

    async def _measure(self, request):
        async with self.time_left.running() as left:
            if LAST_SECONDS:
                left.set_estimate(LAST_SECONDS[-1])
            started = time.monotonic()
            outcome = await self.run_model(self.state.service.outcome, request,
                                           message="Decoding your request plainly and with drafting…")
        if outcome is not None:
            LAST_SECONDS[:] = [time.monotonic() - started]
        return outcome

    async def use_my_models(self, event=None):
        """The student's request measured (measure_live: at once when kept), with α, γ and c moved
        there and the measured speed-up beside the formula's."""
        with button_disabled(self.use_models):
            self.live.object = ""
            got = await self.measure_live()
        if got is None:
            return
        self.outcome, self.profile = got, got.profile
        # the α/γ/c watchers redraw the figure through in_document; the formula then reads the request's
        self.param.update(alpha=round(min(1.0, max(0.0, got.alpha or 0.0)), 2), gamma=got.mean_gamma,
                          c=round(min(2.0, max(0.0, got.c)), 2))
        self.live.object = live_html(got)

    # ---- predict ------------------------------------------------------------------------------------
    def make_predict(self):
        return PredictCard(self.state, 10, self.question,
                           choices=["faster", "slower"], answer=lambda: breakeven.question_verdict()[0],
                           explanation=question_explanation, hint="Now set α, γ and c below to check.")

    def _maybe_reveal(self):
        if self.predict is not None and (round(self.alpha, 2), self.gamma, round(self.c, 2)) == QUESTION:
            self.predict.reveal()

    # ---- page ------------------------------------------------------------------------------------------
    def body(self):
        controls = pn.Column("#### Find the break-even", self.alpha_slider, self.gamma_slider,
                             self.c_slider, self.try_question, self.use_models, self.busy, self.time_left, width=300)
        return pn.Column(
            pn.Row(controls, pn.Column(self.readout, self.live, sizing_mode="stretch_width"),
                   sizing_mode="stretch_width"),
            # below the fold: the figures, the measured cost's note, the lecture's table
            Lazy(self.figures_section, height=FIGURES_HEIGHT),
            sizing_mode="stretch_width")

    def figures_section(self):
        """The three figures, the note on the measured cost, the lecture's table and the caption."""
        caption = pn.pane.Markdown(CAPTION, sizing_mode="stretch_width",
                                   styles={"font-size": "1rem", "color": palette.MUTED})
        return pn.Column(
            pn.Row(pn.pane.Bokeh(self.speed_fig, sizing_mode="stretch_width"),
                   pn.pane.Bokeh(self.gamma_fig, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            pn.Row(pn.pane.Bokeh(self.figs.cost_fig, sizing_mode="stretch_width"), self.cost_note,
                   sizing_mode="stretch_width"),
            self.table, caption, sizing_mode="stretch_width", margin=0)
