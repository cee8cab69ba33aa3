"""Chapter 6's figures: one position's regions, the last draw's u against its threshold, the
share of proposals kept per token, and the share of outputs that are A round after round.

Their sources, the share chart's x range, its legend items and the u label are built with the page,
because the browser's redraw (uikit.browser: assets/analytic.js and assets/ch06_accept_rule.js)
writes into them while a slider moves; the figures themselves are built the first time they are
asked for (below the fold: uikit.lazy).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
from bokeh.core.properties import value
from bokeh.models import CustomJS, Label, Legend, LegendItem, Range1d
from bokeh.transform import dodge

from lab.experiments.display import regions
from lab.experiments.twotokens import TOKENS
from uikit import palette
from uikit.browser import browser_redraw
from chapters.ch06_accept_rule.words import p_label, q_label
from uikit.figures import page_sources, region_bars, static_figure
from uikit.language import gettext as _, number

FIG_WIDTH, FIG_HEIGHT = 310, 330      # px: the regions' and the kept frequencies' figures (at least), …
FIG_MAX_WIDTH = 540                   # … which widen with the page (a projector) up to this, …
U_WIDTH, U_HEIGHT = 400, 140          # … the last draw's …
SHARE_WIDTH, SHARE_HEIGHT = 520, 330  # … and the share of A's
SHARE_AXIS = 20                      # the share-of-A chart's x axis before it has more rounds than this


class AcceptRuleFigures:
    """One position's regions, the last draw's u, the kept frequencies and the share of A. The
    sources, the share chart's x range and legend items and the u label are built with the page (the
    browser's redraw holds them); each figure is built the first time it is asked for (the last
    draw's and the share's sit below the fold: uikit.lazy). `words`: the page's sentences for the
    browser's code (chapters.ch06_accept_rule.words.browser_words)."""

    def __init__(self, words: dict):
        source = page_sources()
        self.region_src = source(token=list(TOKENS), agree=[0, 0], eager=[0, 0], shy=[0, 0])
        self.pq_src = source(token=list(TOKENS), p=[0, 0], q=[0, 0])
        self.u_src = source(u=[], y=[], color=[])              # the last draw: u on [0, 1] …
        self.thr_src = source(left=[0], right=[0])              # … against the threshold min(1, p/q)
        self.u_label = Label(x=0, y=0.05, text="", text_font_size="14px")
        self.freq_src = source(token=list(TOKENS), freq=[0, 0], rule=[0, 0])
        self.share_src = source(n=[], share=[])
        self.lines_src = source(p=[0.0], q=[0.0])     # p(A) and q(A) across the share chart
        self.share_range = Range1d(0, SHARE_AXIS)
        # the share chart's legend: p(A), q(A) (their values in the label) and the measured line
        self.p_item, self.q_item, self.share_item = (LegendItem(label=value(text)) for text in (
            _("p(A): the target"), _("q(A): the draft alone"), _("measured share of A")))

        # the same drawing in the browser, while a slider moves (uikit.browser)
        self.redraw = browser_redraw(
            "ch06_accept_rule", region_src=self.region_src, pq_src=self.pq_src, lines_src=self.lines_src,
            share_src=self.share_src, freq_src=self.freq_src, thr_src=self.thr_src, u_src=self.u_src,
            u_label=self.u_label, share_range=self.share_range, p_item=self.p_item, q_item=self.q_item,
            share_item=self.share_item, tokens=list(TOKENS), share_axis=SHARE_AXIS, last_draw_text="",
            share_note_text="", words=words)

    def draws(self, **args) -> CustomJS:
        """Draw, Draw 1000 or Reset counts in the browser (`n` rounds, 0 resets: assets/ch06_draws.js),
        into the same sources and models as Python's draws; `args`: the seed's state, the page's words."""
        return browser_redraw(
            "ch06_draws", lines_src=self.lines_src, share_src=self.share_src, share_range=self.share_range,
            share_item=self.share_item, freq_src=self.freq_src, thr_src=self.thr_src, u_src=self.u_src,
            u_label=self.u_label, tokens=list(TOKENS), kept_colour=palette.OVERLAP, rejected_colour=palette.EAGER,
            share_axis=SHARE_AXIS, **args)

    @cached_property
    def region_fig(self):
        f = static_figure(syncable=False, height=FIG_HEIGHT, width=FIG_WIDTH, min_width=FIG_WIDTH,
                          max_width=FIG_MAX_WIDTH, sizing_mode="stretch_width", x_range=list(TOKENS), y_range=(0, 1.05),
                          title=_("One position · two tokens"), y_axis_label=_("probability"))
        region_bars(f, self.region_src, self.pq_src, width=0.6, half=0.36,
                    labels=(_("both agree: min(p, q)"), _("draft too eager: q − p"), _("draft too shy: p − q")))
        f.legend.spacing = 0
        f.legend.padding = 2
        f.add_layout(f.legend[0], "below")
        return f

    @cached_property
    def u_fig(self):
        """The last draw: u on [0, 1] against the threshold min(1, p/q)."""
        g = static_figure(syncable=False, height=U_HEIGHT, width=U_WIDTH, x_range=(0, 1), y_range=(0, 1),
                          title=_("Last draw: kept if u < min(1, p/q)"),
                          x_axis_label=_("u ~ Uniform(0, 1)"))
        g.quad(left="left", right="right", bottom=0.2, top=0.8, source=self.thr_src, color=palette.OVERLAP,
               alpha=0.35, hatch_pattern="/", hatch_color=palette.OVERLAP)
        g.scatter(x="u", y="y", color="color", source=self.u_src, size=16, marker="inverted_triangle")
        g.yaxis.visible = False
        g.ygrid.visible = False
        g.add_layout(self.u_label)
        return g

    @cached_property
    def freq_fig(self):
        """Running frequencies of "kept" per token against min(1, p/q)."""
        h = static_figure(syncable=False, height=FIG_HEIGHT, width=FIG_WIDTH, min_width=FIG_WIDTH,
                          max_width=FIG_MAX_WIDTH, sizing_mode="stretch_width", x_range=list(TOKENS), y_range=(0, 1.05),
                          title=_("Share of proposals kept"), y_axis_label=_("kept ÷ proposed"))
        h.vbar(x="token", top="freq", source=self.freq_src, width=0.5, color=palette.TARGET, alpha=0.8,
               legend_label=_("measured frequency"))
        h.segment(x0=dodge("token", -0.36, range=h.x_range), x1=dodge("token", 0.36, range=h.x_range),
                  y0="rule", y1="rule", source=self.freq_src, line_width=4, color=palette.DRAFT,
                  line_dash="dashed", legend_label=_("min(1, p / q)"))    # the swatch is the dashed line
        h.add_layout(h.legend[0], "below")
        return h

    @cached_property
    def share_fig(self):
        """The payoff: the share of outputs that are A, round after round, against p(A) and q(A).

        p(A) and q(A) are full-width lines named in the legend under the plot, where the measured
        line, which spans the whole width, cannot cross their names. The x axis
        starts at 0 to SHARE_AXIS rounds (axes and grid before the first draw), then follows the draws."""
        s = static_figure(syncable=False, height=SHARE_HEIGHT, width=SHARE_WIDTH, x_range=self.share_range,
                          y_range=(0, 1.02), title=_("Share of outputs that are A"),
                          x_axis_label=_("rounds so far"), y_axis_label=_("share of A"))
        lines = (s.hspan(y="p", source=self.lines_src, line_color=palette.TARGET, line_width=3),
                 s.hspan(y="q", source=self.lines_src, line_color=palette.DRAFT, line_width=3, line_dash="dashed"),
                 s.line(x="n", y="share", source=self.share_src, line_width=3, color=palette.INK))
        for item, line in zip((self.p_item, self.q_item, self.share_item), lines):
            item.renderers = [line]
        s.add_layout(Legend(items=[self.p_item, self.q_item, self.share_item], spacing=0, padding=4), "below")
        return s

    def draw_probabilities(self, p_a: float, q_a: float) -> None:
        """p and q of A and B, split into their regions."""
        r = regions([p_a, 1 - p_a], [q_a, 1 - q_a])
        self.region_src.data = dict(token=list(TOKENS), **{k: list(v) for k, v in r.items()})
        self.pq_src.data = dict(token=list(TOKENS), p=[p_a, 1 - p_a], q=[q_a, 1 - q_a])
        self.lines_src.data = dict(p=[p_a], q=[q_a])
        self.p_item.label = value(p_label().format(p=number(p_a, 2)))
        self.q_item.label = value(q_label().format(q=number(q_a, 2)))
        self.clear_share()

    def clear_share(self) -> None:
        """No rounds yet: an empty line (and no legend entry for it) on the first SHARE_AXIS rounds."""
        self.share_src.data = dict(n=[], share=[])
        self.share_range.end = SHARE_AXIS
        self.share_item.visible = False

    def add_share(self, n: list[int], share: list[float]) -> None:
        """Extend the share-of-A line; the x axis follows the rounds."""
        self.share_src.stream(dict(n=n, share=share))
        self.share_range.end = max(SHARE_AXIS, n[-1])
        self.share_item.visible = True

    def draw_draws(self, last: dict, freq: np.ndarray, thr: np.ndarray) -> None:
        """The last draw's u against its threshold, and the kept frequencies against min(1, p/q)."""
        self.freq_src.data = dict(token=list(TOKENS), freq=list(np.nan_to_num(freq)), rule=list(thr))
        if last:
            colour = palette.OVERLAP if last["kept"] else palette.EAGER
            self.thr_src.data = dict(left=[0], right=[last["threshold"]])
            self.u_src.data = dict(u=[last["u"]], y=[0.5], color=[colour])
            self.u_label.text = "u = " + number(last["u"], 3)
        else:
            self.thr_src.data = dict(left=[0], right=[0])
            self.u_src.data = dict(u=[], y=[], color=[])
            self.u_label.text = ""
