"""Chapter 10's figures: speed-up against α, speed-up against γ and the cost of a round, and the
section below the fold that lays them out with the lecture's table and the model's caption, in the
page's language (the browser's redraw is given its words: uikit.readouts.browser_words).

The sources, ranges and break-even marks are built with the page, because the browser's redraw
(uikit.browser: assets/analytic.js and assets/ch10_breakeven.js) writes into them while a slider
moves; Python's `BreakEvenFigures.draw` draws the same when the slider is let go. The figures
themselves are built the first time the student scrolls to them (uikit.lazy).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import panel as pn
from bokeh.models import Label, Range1d, Span

from lab.experiments.breakeven import ALPHAS
from lab.i18n import N_
from uikit import palette
from uikit.browser import browser_redraw
from uikit.figures import page_sources, static_figure
from uikit.language import gettext as _, number
from uikit.readouts import SAID, TABLE_ROWS, browser_words
from uikit.state import GAMMA_MAX
from uikit.verdicts import verify_note, why_busy

GAMMAS = np.arange(1, GAMMA_MAX + 1)   # the γ bars
SPAN_AS_BUILT = 0.5         # α where the break-even line sits while hidden (as a fresh page builds it)
COST_HEIGHT = 290           # px: the cost figure, its legend's row above the plot included
FIGURES_HEIGHT = 885        # px: the figures, the table and the caption, as laid out at 1280 px wide
CAPTION = N_("Analytic model of Leviathan, Kalman & Matias (2023): acceptances are treated as independent with "
             "rate α; one verification pass over γ + 1 positions takes about as long as one target call; c is "
             "the time of a draft call divided by a target call. It predicts shapes, not benchmarks.")


def browser_profile(profile) -> dict:
    """What the browser's redraw needs of the pair's cost profile (lab.speed.costs.CostProfile), in the
    page's language: each verify pass in target calls (index k: a pass over k + 1 positions), the busy
    sentence ("" when it does not apply) and the note beside the round-cost figure at each γ (`notes`,
    index γ − 1: uikit.verdicts.verify_note; "" past the passes the profile timed)."""
    return dict(verify=[s / profile.unit for s in profile.verify_seconds], busy=why_busy(profile),
                notes=[verify_note(profile, int(g)) if g + 1 <= profile.max_positions else "" for g in GAMMAS])


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
        self.break_span = Span(location=SPAN_AS_BUILT, dimension="height", line_dash="dotted",
                               line_color=palette.EAGER, line_width=2)
        self.break_label = Label(x=0.5, y=3.5, text="", text_color=palette.EAGER, text_font_size="14px", x_offset=4)
        self.bars = source(gamma=[str(g) for g in GAMMAS], speedup=GAMMAS * 0.0,
                           color=[palette.MUTED] * len(GAMMAS), hatch=[" "] * len(GAMMAS))
        self.lecture_cost = source(gamma=GAMMAS, cost=GAMMAS * 0.0)
        self.measured_cost = source(gamma=[], cost=[])
        # the student's request where Use my models put the sliders, and its speed-up (readouts.measured_point)
        self.request = source(alpha=[], gamma=[], c=[], speedup=[])
        # the y ranges the redraws move (each figure's y_range)
        self.speed_range, self.gamma_range, self.cost_range = (Range1d(0, 4) for _ in range(3))

        # the same redraw in the browser, while a slider moves (uikit.browser)
        self.redraw = browser_redraw(
            "ch10_breakeven", curve=self.curve, point=self.point, measured=self.measured, bars=self.bars,
            lecture_cost=self.lecture_cost, measured_cost=self.measured_cost, speed_range=self.speed_range,
            gamma_range=self.gamma_range, cost_range=self.cost_range, break_span=self.break_span,
            break_label=self.break_label, span_as_built=SPAN_AS_BUILT, profile=None, gamma_max=GAMMA_MAX,
            request=self.request, words=browser_words(),
            colours=dict(target=palette.TARGET, muted=palette.MUTED), table_rows=[list(r) for r in TABLE_ROWS])

    @cached_property
    def speed_fig(self):
        f = static_figure(syncable=False, height=300, sizing_mode="stretch_width", x_range=(0, 1),
                          y_range=self.speed_range, title=_("Speed-up vs α (chosen γ and c)"),
                          x_axis_label=_("α (acceptance rate)"), y_axis_label=_("speed-up ×"))
        f.line("alpha", "speedup", source=self.curve, line_width=3, color=palette.TARGET,
               legend_label=_("speed-up E / (1 + γc)"))
        f.line("alpha", "speedup", source=self.measured, line_width=3, color=palette.OVERLAP, line_dash="dashdot",
               legend_label=_("E / (γc + v(γ + 1)), v measured"))
        f.scatter("alpha", "speedup", source=self.point, size=12, color=palette.DRAFT,
                  marker="diamond", legend_label=_("your α"))
        f.add_layout(self.break_span)
        f.add_layout(self.break_label)
        # speed-up = 1 across the whole α axis, its key in the legend (a label would cross the curve)
        f.line([0, 1], [1, 1], line_dash="dashed", line_color=palette.INK, line_width=2,
               legend_label=_("speed-up = 1: break-even"))
        # tight, so its four rows fit the plot on a short projector figure (the tour at 1280×720)
        f.legend.update(location="top_left", margin=4, padding=4, spacing=0)
        return f

    @cached_property
    def gamma_fig(self):
        g = static_figure(syncable=False, height=300, sizing_mode="stretch_width", x_range=[str(g) for g in GAMMAS],
                          title=_("Speed-up vs γ (chosen α and c) — best γ filled"),
                          x_axis_label=_("γ (draft length)"), y_axis_label=_("speed-up ×"), y_range=self.gamma_range)
        g.vbar(x="gamma", top="speedup", source=self.bars, width=0.8, fill_color="color",
               line_color=palette.INK, hatch_pattern="hatch", hatch_color="white", hatch_alpha=0.6)
        g.add_layout(Span(location=1, dimension="width", line_dash="dashed", line_color=palette.INK, line_width=2))
        return g

    @cached_property
    def cost_fig(self):
        h = static_figure(syncable=False, height=COST_HEIGHT, sizing_mode="stretch_width", x_range=(0.5, GAMMA_MAX + 0.5),
                          y_range=self.cost_range, title=_("Cost of one round (target calls) vs γ, chosen c"),
                          x_axis_label=_("γ (draft length)"), y_axis_label=_("target calls"))
        h.line("gamma", "cost", source=self.lecture_cost, line_width=3, color=palette.TARGET,
               legend_label=_("lecture: 1 + γc"))
        h.line("gamma", "cost", source=self.measured_cost, line_width=3, color=palette.OVERLAP,
               line_dash="dashdot", legend_label=_("measured: v(γ + 1) + γc"))
        h.scatter("gamma", "cost", source=self.measured_cost, size=7, color=palette.OVERLAP)
        # The legend sits above the plot, in a row of its own: inside it, some corner always holds
        # points or a line for some c and verify costs (γ 4–6's measured points were hidden so).
        legend = h.legend[0]
        h.center.remove(legend)
        legend.update(orientation="horizontal", location="top_left", margin=0, padding=4)
        h.add_layout(legend, "above")
        h.xaxis.ticker = list(GAMMAS)
        return h

    def draw(self, a: float, g: int, c: float, n: dict, profile=None) -> None:
        """Redraw for α, γ, c and their numbers (the chapter's `numbers()`); with the pair's cost
        profile (lab.speed.costs.CostProfile), the measured-cost curves too."""
        top = max(2.0, float(n["curve"].max()) * 1.1)
        be, s, best = n["break_even"], n["per_gamma"], n["best_gamma"]
        self.curve.data.update(speedup=n["curve"])   # only the changed columns are sent
        self.point.data = dict(alpha=[a], speedup=[n["speedup"]])
        self.speed_range.end = top
        # The legend holds the top left; the label goes where the curve is not.
        if np.isnan(be):   # the whole curve is below 1: write above it, on the right; the hidden line
            # goes back as built, so what looks the same is the same figure (the export records it once)
            self.break_span.update(visible=False, location=SPAN_AS_BUILT)
            self.break_label.update(text=_(SAID["no_label"]), x=0.98, y=top * 0.6,
                                    text_align="right", x_offset=0)
        else:              # the curve is above 1 right of the line: write at its foot
            self.break_span.update(visible=True, location=be)
            # Keep the label inside the plot: right of the line, or left of it near α = 1.
            left = be > 0.6
            self.break_label.update(text=_(SAID["label"]).format(be=number(be, 2)), x=be, y=top * 0.04,
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

    def section(self, cost_note: pn.pane.HTML, table: pn.pane.HTML) -> pn.Column:
        """The three figures, the chapter's note on the measured cost, its lecture's table and the
        caption: the page's section below the fold."""
        caption = pn.pane.Markdown(_(CAPTION), sizing_mode="stretch_width",
                                   styles={"font-size": "1rem", "color": palette.MUTED})
        return pn.Column(
            pn.Row(pn.pane.Bokeh(self.speed_fig, sizing_mode="stretch_width"),
                   pn.pane.Bokeh(self.gamma_fig, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            pn.Row(pn.pane.Bokeh(self.cost_fig, sizing_mode="stretch_width"), cost_note,
                   sizing_mode="stretch_width"),
            table, caption, sizing_mode="stretch_width", margin=0)
