"""Chapter 7 — the correction: after a rejection, sample from the residual (p − q)+.

Target p and draft q for a live context come from the model service; the regions (overlap, too
eager, too shy = residual) and the accept + correct Monte-Carlo come from `lab.core.montecarlo`, run on
the model worker. Every distance on the page (Monte-Carlo, exact, the rules table) is over the same
bins — the tokens on the chart plus one for all others (lab.experiments.correction); the chart leaves that
last bin out of its bars, so it cannot squash the differences, and gives its two values in words.
"""
from __future__ import annotations

import html
from functools import cached_property

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, FactorRange, Range1d

from chapters.base import Chapter
from lab.core import montecarlo as mc
from lab.experiments.correction import distances, exact_distance
from lab.experiments.display import regions, shown_settings, top_k_union
from lab.prompts import encode_prompt
from lab.core.sampling import SamplingSettings
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.figures import paired_bars, region_bars, static_figure
from lab.i18n import N_
from uikit.language import Translated, gettext as _, ngettext, number, percent
from uikit.lazy import lazy_figure
from uikit.panels import sampling_words
from intercept.pacing import in_document, served
from uikit.predict import PredictCard
from uikit.state import SAMPLING
from uikit.styles import TABLE_CSS
from uikit.tokens import pieces_html, unique_labels

DEFAULT_CONTEXT = "the cat sat on the"
SHOW = 8                     # top candidates of each model on the chart
OUT_HEIGHT = 320             # px: the output's figure
RULE_NAMES = {"residual": N_("residual (p − q)+ normalised"), "target": N_("sample from p"),   # mc.RULES, named
              "draft": N_("sample from q"), "keep": N_("keep the draft")}
RUN_SIZES = (10_000, 100_000, 1_000_000)   # Monte-Carlo rounds a student can choose

# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker): marked
# here for the catalog
KICKER = (N_("What do we write after a miss?"),)
# The question's choices: the class poll's keys, in English here, in the catalog for the card to show
CHOICES = (N_("It would work just as well — p is the target after all"),
           N_("The kept drafts already supply p's overlap with q; sampling all of p again "
              "counts that overlap twice"),
           N_("Sampling from p needs another target call"))


def rule_table_html(p: np.ndarray, q: np.ndarray, shown_ids: list[int]) -> str:
    """Each correction rule and the exact total-variation distance of its output to p (same bins)."""
    rows = [f"<tr><td>{html.escape(_(label))}</td><td>{number(exact_distance(p, q, key, shown_ids), 3)}</td></tr>"
            for key, label in RULE_NAMES.items()]
    head = (_("correction rule"), _("exact TV distance of the output to p"))
    return (f"<table class='speclab-table'><thead><tr><th>{html.escape(head[0])}</th><th>{html.escape(head[1])}</th>"
            "</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def settings_note_html(settings: SamplingSettings, greedy: bool, shown: int, rejection: float,
                       tokens: list[str] = (), context: str = "") -> str:
    """How p and q were taken (greedy decoding shows the models' own distributions, since its p and
    q are one-hot), how many tokens the chart shows, how often a draft token is rejected, and what
    a token is (`tokens`, the chart's, after `context`: a piece of a word as the example)."""
    how = (_("the models' own distributions (temperature 1), because greedy decoding would make p and q "
             "one-hot") if greedy else sampling_words(settings))
    said = _("p and q after the sampling settings: {how}. Showing the {shown} most likely tokens of either "
             "model. A draft token is rejected {rejection} of the time here (r = 1 − Σ min(p, q)).").format(
        how=how, shown=shown, rejection=percent(rejection, 1))
    return f"<p>{html.escape(said)} {pieces_html(list(tokens), context, sequence=False)}</p>"


def distance_html(rule: str, d: dict, vocabulary: int) -> str:
    """The Monte-Carlo's distance to p against sampling noise, the rule's exact distance on the same
    bins, which bins, and the "all others" bin in words."""
    same = d["mc"] <= 3 * d["noise"]
    verdict = (_("✓ within sampling noise: the output is distributed as p") if same else
               _("✗ far beyond sampling noise: the output is not distributed as p"))
    k = d["bins"] - 1
    head = _("{rounds} seeded rounds: total-variation distance to p = {distance} (sampling noise alone ≈ "
             "{noise}) — {verdict}.").format(rounds=number(d["n"], group=True), distance=f"<b>{number(d['mc'], 3)}</b>",
                                            noise=number(d["noise"], 3), verdict=verdict)
    exact = _("Exact distance of this rule's output to p: {distance}.").format(distance=number(d["exact"], 3))
    bins = _("Both distances compare the same {bins} bins: the {k} tokens on the chart and one bin for the "
             "other {others} tokens, whose shares {rounds} rounds could not measure one by one. That bin, "
             "left off the chart: output {sampled}, p {p}.").format(
        bins=k + 1, k=k, others=number(vocabulary - k, group=True), rounds=number(d["n"], group=True),
        sampled=number(d["others_sampled"], 3), p=number(d["others_p"], 3))
    return (f"<div class='speclab-formula'><b>{html.escape(_(RULE_NAMES[rule]))}</b>, {head}<br>{exact}<br>"
            f"<small>{bins}</small></div>")


class CorrectionFigures:
    """p against q split into regions, and the Monte-Carlo's output against p. The output's figure
    is built the first time it is asked for (it sits below the fold: uikit.lazy); its source and
    ranges are drawn into before that."""

    def __init__(self):
        self.regions_src = ColumnDataSource(dict(token=[], agree=[], eager=[], shy=[], p=[], q=[]))
        f = static_figure(height=320, sizing_mode="stretch_width", x_range=[], y_range=(0, 1),
                          y_axis_label=_("probability"),
                          title=_("Target p vs draft q for the next token"))
        region_bars(f, self.regions_src, self.regions_src,
                    labels=(_("both agree: min(p, q)"), _("draft too eager: (q − p)+"),
                            _("draft too shy = residual (p − q)+")))
        f.add_layout(f.legend[0], "right")      # outside the plot, where no bar can be under it
        f.xaxis.major_label_orientation = 0.6
        self.regions_fig = f

        self.out_src = ColumnDataSource(dict(token=[], sampled=[], p=[]))   # the shown tokens only
        self.out_x, self.out_y = FactorRange(), Range1d(0, 1)

    @cached_property
    def out_fig(self):
        g = static_figure(height=OUT_HEIGHT, sizing_mode="stretch_width", x_range=self.out_x, y_range=self.out_y,
                          y_axis_label=_("share of rounds"),
                          title=_("What actually comes out vs the target p"))
        paired_bars(g, self.out_src, ("sampled", palette.DRAFT, _("output of accept + correct (sampled)")),
                    ("p", palette.TARGET, _("target p")))
        g.add_layout(g.legend[0], "below")
        g.xaxis.major_label_orientation = 0.6
        return g

    def draw_regions(self, labels: list[str], p: np.ndarray, q: np.ndarray) -> None:
        """The shown tokens' p and q, split into their regions."""
        self.regions_fig.x_range.factors = labels
        self.regions_src.data = dict(token=labels, **regions(p, q), p=p, q=q)
        self.regions_fig.y_range.end = float(max(p.max(), q.max())) * 1.35

    def draw_output(self, labels: list[str], sampled: np.ndarray, target: np.ndarray) -> None:
        """What the Monte-Carlo produced beside p, per shown token (the rest is given in words)."""
        self.out_x.factors = labels
        self.out_src.data = dict(token=labels, sampled=sampled, p=target)
        self.out_y.end = float(max(sampled.max(), target.max())) * 1.3


class CorrectionChapter(Chapter):
    number = 7
    slug = "correction"
    part = "III"
    kicker = Translated("Question 3 · the correction")
    title = Translated("Corrections go where the draft was too shy.")
    intro = Translated("After a rejection we must still output a token. Sample it from the residual — the part "
                       "of the target's probability the draft did not cover (purple). Switch the rule and "
                       "compare what comes out with the target.")
    takeaway = Translated("Accept + residual correction reproduces the target distribution exactly.")
    tour_parts = ("context", "show_button", "regions_fig", "rule_buttons", "size_select", "run_button",
                  "out_fig", "distance", "rule_table")    # what shell/tour/steps.py shows
    question = Translated("After a rejection, why not simply sample the replacement from the target p?")

    rule = param.Selector(default="residual", objects=list(mc.RULES), doc="The correction rule.")
    # 100k by default: on a real 50k-token vocabulary "sample from p" can be only ~0.02 off p, which
    # 10k rounds barely separate from sampling noise.
    runs = param.Integer(default=100_000, doc="Monte-Carlo rounds per run.")

    @classmethod
    def warmup(cls, student):
        context = encode_prompt(student.service.pair.tokenizer, DEFAULT_CONTEXT)
        return [("chapter 7's p and q", student.service.next_token_distributions,
                 (context, shown_settings(student.settings)), {})]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.p = self.q = None                 # (V,) numpy, after the settings
        self.ids: list[int] = []
        self.labels: list[str] = []
        self.counts = None
        self.run_index = 0
        self.context = pn.widgets.TextInput(label=_("Context (both models predict the next token)"),
                                            value=DEFAULT_CONTEXT, width=360)
        self.show_button = action(_("Show p and q"), "show-pq", color="primary", width=140,
                                  align="end")
        on_click(self.show_button, self._on_event)
        self.context.param.watch(self._on_event, "value")      # Enter in the box also asks the models
        self.rule_buttons = pn.widgets.RadioButtonGroup(
            label=_("Correction rule"), options={_(label): key for key, label in RULE_NAMES.items()},
            value=self.rule, color="primary", variant="outline", css_classes=["rule-switch"],
            sizing_mode="stretch_width")        # its buttons wrap where a language's labels outgrow the row
        self.rule_buttons.link(self, value="rule")
        self.size_select = pn.widgets.Select(label=_("Monte-Carlo size"), value=self.runs, width=160, options={
            ngettext("{n} round", "{n} rounds", n).format(n=number(n, group=True)): n for n in RUN_SIZES})
        self.size_select.link(self, value="runs")
        self.run_button = action(_("Run accept + correct"), "run-correct", color="primary", width=200,
                                 align="end")
        on_click(self.run_button, self._on_event)
        self.settings_note = pn.pane.HTML("", sizing_mode="stretch_width")
        self.distance = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.rule_table = pn.pane.HTML("", width=380, stylesheets=[TABLE_CSS])
        self.figs = CorrectionFigures()
        self.regions_fig = self.figs.regions_fig   # the tour shows it, and out_fig
        self.param.watch(self._on_event, ["rule", "runs"])
        if served():
            pn.state.onload(self.load)

    # ---- predict -------------------------------------------------------------------------------------
    def make_predict(self):
        self._choices = list(CHOICES)      # the class poll's keys: English, shown translated by the card

        def explain(truth):
            if self.p is None:
                return _("Run the Monte-Carlo below to see it.")
            tv = exact_distance(self.p, self.q, "target", self.ids)
            r = mc.rejection_mass(self.p, self.q)
            return _("Here a draft token is rejected {rejection} of the time. Replacing it from p gives an "
                     "output {distance} away from p (total variation); the residual gives exactly p.").format(
                rejection=percent(r), distance=number(tv, 3))
        return PredictCard(self.state, 7, self.question, choices=self._choices, answer=self._choices[1],
                           explanation=explain, hint=_("Now pick “sample from p” below and run it."))

    # ---- data ----------------------------------------------------------------------------------------
    def sampling_settings(self) -> SamplingSettings:
        """The student's settings, but greedy (one-hot p and q) is shown at temperature 1."""
        return shown_settings(self.state.settings)

    async def load(self) -> None:
        """p and q for the context, from the model service; then the regions and a first run."""
        try:
            ids = encode_prompt(self.state.service.pair.tokenizer, self.context.value)
        except ValueError as err:
            self.show_problem(str(err))
            return
        settings = self.sampling_settings()
        result = await self.run_model(self.state.service.next_token_distributions, ids, settings,
                                      message=N_("Asking both models for the next token…"))
        if result is None:
            return
        p, q = result
        self.set_distributions(p.numpy(), q.numpy(), settings)
        await self.simulate()

    async def on_settings_changed(self, changed):
        """New sampling settings in the side panel: p and q change with them (the context is the
        page's own, not the student's prompt)."""
        if self.p is not None and changed & set(SAMPLING):
            await self.load()

    def set_distributions(self, p: np.ndarray, q: np.ndarray, settings: SamplingSettings) -> None:
        self.p, self.q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
        tok = self.state.service.pair.tokenizer
        self.ids = top_k_union(self.p, self.q, SHOW)
        self.labels = unique_labels([tok.decode([i]) for i in self.ids])
        self.settings_note.object = settings_note_html(settings, self.state.settings.greedy, len(self.ids),
                                                       mc.rejection_mass(self.p, self.q),
                                                       [tok.decode([i]) for i in self.ids], self.context.value)
        self.state.page_sampling = {**self.state.page_sampling, self.number: settings.describe()}   # the badge
        in_document(self.figs.draw_regions, self.labels, self.p[self.ids], self.q[self.ids])   # raw Bokeh models
        self.rule_table.object = rule_table_html(self.p, self.q, self.ids)

    async def _on_event(self, *events):
        """A button, the context box or the rule: load p and q for a new context, else run again."""
        await (self.load() if events and getattr(events[0], "obj", None) in (self.show_button, self.context)
               else self.simulate())

    async def simulate(self) -> None:
        """A seeded Monte-Carlo of accept + correct under the chosen rule, on the model worker."""
        if self.p is None:
            return
        self.run_index += 1
        counts = await self.run_model(self.state.service.monte_carlo, self.p, self.q, self.rule, self.runs,
                                      seed=self.state.seed + self.run_index,
                                      message=N_("Running accept + correct…"))
        if counts is None:
            return
        self.counts = counts
        in_document(self._draw_output)   # raw Bokeh models: changed where the lock is held
        if self.predict is not None:
            self.predict.reveal()

    def distances(self) -> dict:
        """Monte-Carlo TV, its noise level and the exact TV, over the shown tokens plus one "other" bin."""
        return distances(self.p, self.q, self.counts, self.ids, self.rule)

    def _draw_output(self):
        shown = self.counts[self.ids] / self.counts.sum()
        self.figs.draw_output(self.labels, shown, self.p[self.ids] / self.p.sum())
        self.distance.object = distance_html(self.rule, self.distances(), self.p.size)

    @property
    def out_fig(self):
        """What comes out against p (the tour shows it; built when first asked for)."""
        return self.figs.out_fig

    # ---- page ------------------------------------------------------------------------------------------
    def body(self):
        return pn.Column(
            pn.Row(self.context, self.show_button),
            self.busy, self.settings_note,
            pn.pane.Bokeh(self.regions_fig, sizing_mode="stretch_width"),
            "#### " + _("Pick the correction rule"),
            pn.Row(self.rule_buttons, sizing_mode="stretch_width"),
            pn.Row(self.size_select, self.run_button),
            self.distance,
            # below the fold: the output's figure is built when scrolled to, its table at once
            pn.Row(lazy_figure(lambda: self.out_fig, OUT_HEIGHT), self.rule_table, sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
