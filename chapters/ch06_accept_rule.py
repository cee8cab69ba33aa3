"""Chapter 6 — the accept rule, on one position with two tokens A and B.

The student sets p(A) and q(A); every draw is a whole round (lab.experiments.twotokens): x ~ q from the
student's own seeded generator, kept when u < min(1, p(x)/q(x)) (`lab.core.sampling.accept_probability`),
otherwise corrected from the residual. Running frequencies of "kept" per token are shown against
min(1, p/q), and the payoff: the share of outputs that are A approaching p(A), not q(A).

The sliders redraw in the browser (uikit.browser: assets/analytic.js and assets/ch06_accept_rule.js,
lab.experiments.display.regions and the accept rule, the counts cleared); Python's p(A) and q(A) follow
when the student lets go, and Python then resets the counts and draws the same.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import panel as pn
import param
from bokeh.core.properties import value
from bokeh.models import Label, Legend, LegendItem, Range1d
from bokeh.transform import dodge

from chapters.base import Chapter
from lab.experiments.display import regions
from lab.experiments.twotokens import (SETTLED, TOKENS, rounds, running_share, share_settled, share_spread,
                                       student_rng, student_seed, thresholds)
from uikit import palette
from uikit.browser import browser_redraw, browser_slider, redraw_on_move
from uikit.clicks import on_click
from uikit.figures import page_sources, region_bars, static_figure
from uikit.lazy import Lazy, lazy_figure
from uikit.pacing import in_document
from uikit.predict import PredictCard
from uikit.styles import TABLE_CSS

QUESTION_P, QUESTION_Q = 0.6, 0.8   # the predict question's numbers
SHARE_POINTS = 60                    # points a batch of draws adds to the share-of-A line
NO_DRAW = "<p>Press <b>Draw</b>: the draft proposes A or B from q.</p>"   # the last draw, before one
FIG_WIDTH, FIG_HEIGHT = 310, 330      # px: the regions' and the kept frequencies' figures, …
U_WIDTH, U_HEIGHT = 400, 140          # … the last draw's …
SHARE_WIDTH, SHARE_HEIGHT = 520, 330  # … and the share of A's
SHARE_AXIS = 20                      # the share-of-A chart's x axis before it has more rounds than this


def frequency_table_html(p_a: float, q_a: float, proposed, kept, freq, thr) -> str:
    """Per token: p, q, its region, how often it was proposed and kept, against min(1, p/q)."""
    rows = []
    p = (p_a, 1 - p_a)
    q = (q_a, 1 - q_a)
    for i, t in enumerate(TOKENS):
        f = "—" if np.isnan(freq[i]) else f"{freq[i]:.3f}"
        kind = "draft too eager" if q[i] > p[i] else ("draft too shy" if q[i] < p[i] else "both agree")
        rows.append(f"<tr><td><b>{t}</b></td><td>{p[i]:.2f}</td><td>{q[i]:.2f}</td><td>{kind}</td>"
                    f"<td>{proposed[i]}</td><td>{kept[i]}</td><td>{f}</td><td>{thr[i]:.3f}</td></tr>")
    return (
        "<table class='speclab-table'><thead><tr><th>token</th><th>p</th><th>q</th><th>region</th>"
        "<th>proposed</th><th>kept</th><th>kept ÷ proposed</th><th>min(1, p/q)</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>")


class AcceptRuleFigures:
    """One position's regions, the last draw's u, the kept frequencies and the share of A. The
    sources, the share chart's x range and legend items and the u label are built with the page (the
    browser's redraw holds them); each figure is built the first time it is asked for (the last
    draw's and the share's sit below the fold: uikit.lazy)."""

    def __init__(self):
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
            "p(A): the target", "q(A): the draft alone", "measured share of A"))

        # the same drawing in the browser, while a slider moves (uikit.browser)
        self.redraw = browser_redraw(
            "ch06_accept_rule", region_src=self.region_src, pq_src=self.pq_src, lines_src=self.lines_src,
            share_src=self.share_src, freq_src=self.freq_src, thr_src=self.thr_src, u_src=self.u_src,
            u_label=self.u_label, share_range=self.share_range, p_item=self.p_item, q_item=self.q_item,
            share_item=self.share_item, tokens=list(TOKENS), share_axis=SHARE_AXIS, last_draw_text="",
            share_note_text="")

    @cached_property
    def region_fig(self):
        f = static_figure(syncable=False, height=FIG_HEIGHT, width=FIG_WIDTH, x_range=list(TOKENS), y_range=(0, 1.05),
                          title="One position · two tokens", y_axis_label="probability")
        region_bars(f, self.region_src, self.pq_src, width=0.6, half=0.36,
                    labels=("both agree: min(p, q)", "draft too eager: q − p", "draft too shy: p − q"))
        f.legend.spacing = 0
        f.legend.padding = 2
        f.add_layout(f.legend[0], "below")
        return f

    @cached_property
    def u_fig(self):
        """The last draw: u on [0, 1] against the threshold min(1, p/q)."""
        g = static_figure(syncable=False, height=U_HEIGHT, width=U_WIDTH, x_range=(0, 1), y_range=(0, 1),
                          title="Last draw: kept if u < min(1, p/q)",
                          x_axis_label="u ~ Uniform(0, 1)")
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
        h = static_figure(syncable=False, height=FIG_HEIGHT, width=FIG_WIDTH, x_range=list(TOKENS), y_range=(0, 1.05),
                          title="Share of proposals kept", y_axis_label="kept ÷ proposed")
        h.vbar(x="token", top="freq", source=self.freq_src, width=0.5, color=palette.TARGET, alpha=0.8,
               legend_label="measured frequency")
        h.segment(x0=dodge("token", -0.36, range=h.x_range), x1=dodge("token", 0.36, range=h.x_range),
                  y0="rule", y1="rule", source=self.freq_src, line_width=4, color=palette.DRAFT,
                  line_dash="dashed", legend_label="min(1, p / q) (dashed line)")
        h.add_layout(h.legend[0], "below")
        return h

    @cached_property
    def share_fig(self):
        """The payoff: the share of outputs that are A, round after round, against p(A) and q(A).

        p(A) and q(A) are full-width lines named in the legend under the plot: the measured line
        spans the whole width, so a name written inside the plot was crossed by it. The x axis
        starts at 0 to SHARE_AXIS rounds (axes and grid before the first draw), then follows the draws."""
        s = static_figure(syncable=False, height=SHARE_HEIGHT, width=SHARE_WIDTH, x_range=self.share_range,
                          y_range=(0, 1.02), title="Share of outputs that are A", x_axis_label="rounds so far",
                          y_axis_label="share of A")
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
        self.p_item.label = value(f"p(A) = {p_a:.2f}: the target")
        self.q_item.label = value(f"q(A) = {q_a:.2f}: the draft alone")
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
            self.u_label.text = f"u = {last['u']:.3f}"
        else:
            self.thr_src.data = dict(left=[0], right=[0])
            self.u_src.data = dict(u=[], y=[], color=[])
            self.u_label.text = ""


def share_note_html(share: float | None, total: int, p_a: float, q_a: float) -> str:
    """What the share of outputs that are A says so far: nothing yet (no rounds), too little to read
    (a few rounds: each writes A or B), then the share against p(A) with its sampling noise."""
    if not total:
        return ("<p>Each draw is a whole round: the kept draft, or the correction from the residual. "
                "Draw 1000 and watch the share of A.</p>")
    a = round(share * total)
    if not share_settled(total):
        return (f"<p class='speclab-formula'>After <b>{total}</b> round{'s' if total != 1 else ''}, "
                f"{a} {'output is' if a == 1 else 'outputs are'} A. Each round writes A or B, so a few rounds "
                f"say little about p(A): draw more to see the share settle (it is read from {SETTLED} rounds "
                "on; press Draw 1000).</p>")
    return (f"<p class='speclab-formula'>After <b>{total}</b> rounds, <b>{share:.3f}</b> of the outputs are A — "
            f"the target's p(A) = {p_a:.2f} (give or take {share_spread(p_a, total):.3f}, sampling noise), not "
            f"the draft's q(A) = {q_a:.2f}: kept drafts plus corrections write exactly what the target would.</p>")


class AcceptRuleChapter(Chapter):
    number = 6
    slug = "accept-rule"
    part = "III"
    kicker = "Question 2 · the accept rule"
    title = "Keep a guess as often as the target agrees."
    intro = ("In Part I, “agree” meant “same first guess”. But models roll dice, so agreement comes "
             "in degrees: the draft proposes a token with probability q, and the target would have "
             "chosen it with probability p. One position, two possible tokens — drag both and press "
             "Draw.")
    takeaway = "Accept a draft token with probability min(1, p / q)."
    tour_parts = ("p_slider", "q_slider", "region_fig", "draw_button", "draw_many_button", "reset_button",
                  "u_fig", "last_draw", "freq_fig", "freq_table")    # what shell/tour_steps.py shows
    question = ("The draft proposes A with q = 0.8, but the target only gives A p = 0.6. What should "
                "we do with a proposed A?")

    p_a = param.Number(default=QUESTION_P, bounds=(0.0, 1.0), step=0.01, doc="p(A), the target's probability of A.")
    q_a = param.Number(default=QUESTION_Q, bounds=(0.01, 0.99), step=0.01, doc="q(A), the draft's probability of A.")
    proposed = param.Array(default=np.zeros(2, dtype=int), doc="How often A, B were drawn from q.")
    kept = param.Array(default=np.zeros(2, dtype=int), doc="How often A, B were kept.")
    last = param.Dict(default={}, doc="The last draw: token, u, threshold, kept.")
    outputs = param.Array(default=np.zeros(2, dtype=int), doc="How often rounds wrote A, B.")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.rng = student_rng(state.seed, state.owner)     # the student's own, reproducible
        self.p_slider = browser_slider(self.param.p_a, label="p(A) — target", width=250)
        self.q_slider = browser_slider(self.param.q_a, label="q(A) — draft", width=250)
        self.draw_button = pn.widgets.Button(label="Draw", color="primary", width=120)
        self.draw_many_button = pn.widgets.Button(label="Draw 1000", color="default", width=120)
        self.reset_button = pn.widgets.Button(label="Reset counts", color="light", width=120)
        on_click(self.draw_button, lambda e: self.draw(1))
        on_click(self.draw_many_button, lambda e: self.draw(1000))
        on_click(self.reset_button, lambda e: self.reset())
        self.last_draw = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.freq_table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.figs = AcceptRuleFigures()
        self.share_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        redraw_on_move(self.figs.redraw, dict(p_a=self.p_slider, q_a=self.q_slider),
                       dict(last_draw=self.last_draw, freq_table=self.freq_table, share_note=self.share_note))
        self.param.watch(lambda *e: self._on_probabilities(), ["p_a", "q_a"])
        self._on_probabilities()

    # the figures (the tour shows them; each built when first asked for)
    region_fig = property(lambda self: self.figs.region_fig)
    u_fig = property(lambda self: self.figs.u_fig)
    freq_fig = property(lambda self: self.figs.freq_fig)
    share_fig = property(lambda self: self.figs.share_fig)

    # ---- predict ------------------------------------------------------------------------------------
    def make_predict(self):
        ratio = float(thresholds(QUESTION_P, QUESTION_Q)[0])
        self._question_choices = ["Always keep it: the draft proposed it",
                                  "Always reject it: the target likes A less",
                                  f"Keep it with probability p / q = {ratio:.2f}",
                                  f"Keep it with probability p = {QUESTION_P}"]

        def explain(truth):
            return (f"The draft offers A {QUESTION_Q:.0%} of the time but the target wants it only "
                    f"{QUESTION_P:.0%} of the time, so keeping a proposed A with probability "
                    f"{QUESTION_P} / {QUESTION_Q} = {ratio:.2f} brings A's share down to exactly p(A). "
                    "Press Draw 1000 at these values: the measured frequency lands on that line.")
        return PredictCard(self.state, 6, self.question, choices=self._question_choices,
                           answer=self._question_choices[2], explanation=explain,
                           hint="Now press Draw 1000 below to check.")

    # ---- the rule -------------------------------------------------------------------------------
    def on_settings_changed(self, changed):
        if "seed" in changed:                 # the student asked for other draws
            self.reset()

    def draw(self, n: int = 1) -> None:
        """n rounds: x ~ q, u ~ U[0, 1); keep x when u < min(1, p(x)/q(x)), else correct it."""
        thr = thresholds(self.p_a, self.q_a)                       # (2,)
        r = rounds(self.p_a, self.q_a, n, self.rng)
        before, before_a = int(self.outputs.sum()), int(self.outputs[0])
        share = running_share(r.out, before, before_a)
        at = np.unique(np.linspace(0, n - 1, min(n, SHARE_POINTS)).astype(int))
        self.proposed = self.proposed + np.bincount(r.x, minlength=2)
        self.kept = self.kept + np.bincount(r.x[r.kept], minlength=2)
        self.outputs = self.outputs + np.bincount(r.out, minlength=2)
        self.last = dict(token=TOKENS[r.x[-1]], u=float(r.u[-1]), threshold=float(thr[r.x[-1]]),
                         kept=bool(r.kept[-1]), n=n, out=TOKENS[r.out[-1]])
        in_document(self.figs.add_share, (before + at + 1).tolist(), share[at].tolist())
        self._refresh_draws()
        if self.predict is not None:
            self.predict.reveal()

    def reset(self) -> None:
        """Clear the counts and start the student's draws again from their seed."""
        self.rng = student_rng(self.state.seed, self.state.owner)
        self.proposed = np.zeros(2, dtype=int)
        self.kept = np.zeros(2, dtype=int)
        self.outputs = np.zeros(2, dtype=int)
        self.last = {}
        in_document(self.figs.clear_share)
        self._refresh_draws()

    def share_of_a(self) -> float | None:
        """The share of outputs that are A so far (None before the first round)."""
        total = int(self.outputs.sum())
        return self.outputs[0] / total if total else None

    def frequencies(self) -> np.ndarray:
        """Kept ÷ proposed per token (NaN before the first proposal of that token)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.proposed > 0, self.kept / np.maximum(self.proposed, 1), np.nan)

    def _on_probabilities(self):
        with pn.io.hold():   # one patch message for the figures and the reset counts
            in_document(self.figs.draw_probabilities, self.p_a, self.q_a)   # raw Bokeh models
            self.reset()   # counts measured under other p, q would mislead

    def _refresh_draws(self):
        in_document(self._draw_draws)   # raw Bokeh models: changed where the lock is held

    def _draw_draws(self):
        thr, freq, last = thresholds(self.p_a, self.q_a), self.frequencies(), self.last
        self.figs.draw_draws(last, freq, thr)
        if last:
            verdict = "✓ kept" if last["kept"] else "✗ rejected"
            rel = "<" if last["kept"] else "≥"
            self.last_draw.object = (
                f"<p class='speclab-formula'>{'Last of ' + str(last['n']) + ' draws' if last['n'] > 1 else 'Draw'}: the draft "
                f"proposed <b>{last['token']}</b>; u = {last['u']:.3f} {rel} min(1, p/q) = "
                f"{last['threshold']:.3f} → <b>{verdict}</b></p>")
        else:
            self.last_draw.object = NO_DRAW
        self.freq_table.object = frequency_table_html(self.p_a, self.q_a, self.proposed, self.kept, freq, thr)
        self.share_note.object = (share_note_html(self.share_of_a(), int(self.outputs.sum()), self.p_a, self.q_a)
                                  + self.seed_note())
        # what the browser shows while a slider moves: the counts cleared (uikit.browser)
        texts = dict(last_draw_text=NO_DRAW, share_note_text=share_note_html(None, 0, 0, 0) + self.seed_note())
        if any(self.figs.redraw.args.get(k) != v for k, v in texts.items()):
            self.figs.redraw.args = dict(self.figs.redraw.args, **texts)

    def seed_note(self) -> str:
        """Which seed the student's draws use, under the share of A."""
        return (f"<p style='color:#44474d'>Your draws use seed {student_seed(self.state.seed, self.state.owner)} "
                "(your seed setting and this browser): the same draws again after Reset, other draws for a "
                "classmate.</p>")

    # ---- page -------------------------------------------------------------------------------------------
    def body(self):
        controls = pn.Column("#### Set p and q, then draw", self.p_slider, self.q_slider,
                             pn.Row(self.draw_button, self.draw_many_button), self.reset_button, width=290)
        # The figures are built when the student scrolls to them (the whole body is below the fold
        # at 1280×720); their sentences and the table are light, and on the page at once.
        figures = Lazy(lambda: pn.Row(pn.pane.Bokeh(self.region_fig), pn.pane.Bokeh(self.freq_fig), margin=0),
                       height=FIG_HEIGHT, width=2 * FIG_WIDTH + 20)     # one section: they come into view together
        return pn.Column(
            pn.Row(controls, figures),
            pn.Row(lazy_figure(lambda: self.u_fig, U_HEIGHT, U_WIDTH), self.last_draw, sizing_mode="stretch_width"),
            self.freq_table,
            pn.Row(lazy_figure(lambda: self.share_fig, SHARE_HEIGHT, SHARE_WIDTH), self.share_note,
                   sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
