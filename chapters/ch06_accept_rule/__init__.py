"""Chapter 6 — the accept rule, on one position with two tokens A and B.

The student sets p(A) and q(A); every draw is a whole round (lab.experiments.twotokens): x ~ q from the
student's own seeded generator, kept when u < min(1, p(x)/q(x)) (`lab.core.sampling.accept_probability`),
otherwise corrected from the residual. Running frequencies of "kept" per token are shown against
min(1, p/q), and the payoff: the share of outputs that are A approaching p(A), not q(A). The figures
are chapters/ch06_accept_rule/figures.py, the sentences chapters/ch06_accept_rule/words.py; this module
holds the page's behaviour.

The sliders redraw in the browser (uikit.browser: assets/analytic.js and assets/ch06_accept_rule.js,
lab.experiments.display.regions and the accept rule, the counts cleared); Python's p(A) and q(A) follow
when the student lets go, and Python then resets the counts and draws the same. The offline copy
(export/) draws in the browser too (`browser_presses`: assets/ch06_draws.js, the same draws from
the same seed, at the sliders' current values). Every sentence is in the page's language, the browser's
too: the page hands its code the sentences' templates and how the language writes numbers and counts
(chapters/ch06_accept_rule/words.py).
"""
from __future__ import annotations

import numpy as np
import panel as pn
import param

from chapters.base import Chapter
from chapters.ch06_accept_rule.figures import FIG_HEIGHT, FIG_MAX_WIDTH, FIG_WIDTH, SHARE_HEIGHT, SHARE_WIDTH, U_HEIGHT, U_WIDTH, AcceptRuleFigures
from chapters.ch06_accept_rule.words import (browser_words, frequency_table_html, last_draw_html, no_draw_html,
                                             share_note_html, slider_format)
from lab.experiments.twotokens import SETTLED, TOKENS, rounds, running_share, student_rng, student_seed, thresholds
from lab.i18n import N_
from uikit.browser import PANE_CLASS, browser_slider, redraw_on_move
from intercept.clicks import on_click
from uikit.actions import action
from uikit.language import Translated, gettext as _, number, percent
from uikit.lazy import Lazy, lazy_figure
from intercept.pacing import in_document
from uikit.predict import PredictCard
from uikit.styles import TABLE_CSS

QUESTION_P, QUESTION_Q = 0.6, 0.8   # the predict question's numbers
SHARE_POINTS = 60                    # points a batch of draws adds to the share-of-A line

# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker): marked
# here for the catalog
KICKER = (N_("When is a guess good enough to keep?"),)
# The question's choices: the class poll's keys, in English here, in the catalog for the card to show.
# Their numbers are QUESTION_P and p / q at QUESTION_P, QUESTION_Q (tests/chapters/test_ch06_accept_rule.py).
CHOICES = (N_("Always keep it: the draft proposed it"),
           N_("Always reject it: the target likes A less"),
           N_("Keep it with probability p / q = 0.75"),
           N_("Keep it with probability p = 0.6"))


def browser_draws(chapter) -> list[tuple]:
    """Draw, Draw 1000 and Reset counts as the offline copy computes them in the browser, each as
    (button, its browser code, what the served press does beyond it: a draw reveals the predict
    card's verdict). The code draws what `draw` draws, from the student's seeded generator, at the
    values the sliders show, and writes its sentences in the page's language (assets/ch06_draws.js)."""
    state = student_rng(chapter.state.seed, chapter.state.owner).bit_generator.state["state"]
    prefix = PANE_CLASS.format(redraw=chapter.figs.redraw.id, name="")
    code = dict(seed_state=str(state["state"]), seed_inc=str(state["inc"]), share_points=SHARE_POINTS,
                settled=SETTLED, seed_note=chapter.seed_note(), prefix=prefix, words=chapter.words)

    def reveal():
        if chapter.predict is not None:
            chapter.predict.reveal()
    return [(chapter.draw_button, chapter.figs.draws(n=1, **code), reveal),
            (chapter.draw_many_button, chapter.figs.draws(n=1000, **code), reveal),
            (chapter.reset_button, chapter.figs.draws(n=0, **code), lambda: None)]


class AcceptRuleChapter(Chapter):
    number = 6
    slug = "accept-rule"
    part = "III"
    kicker = Translated("Question 2 · the accept rule")
    title = Translated("Keep a guess as often as the target agrees.")
    intro = Translated("In Part I, “agree” meant “same first guess”. But models roll dice, so agreement comes "
                       "in degrees: the draft proposes a token with probability q, and the target would have "
                       "chosen it with probability p. One position, two possible tokens — drag both and press "
                       "Draw.")
    takeaway = Translated("Accept a draft token with probability min(1, p / q).")
    tour_parts = ("p_slider", "q_slider", "region_fig", "draw_button", "draw_many_button", "reset_button",
                  "u_fig", "last_draw", "freq_fig", "freq_table")    # what shell/tour/steps.py shows
    question = Translated("The draft proposes A with q = 0.8, but the target only gives A p = 0.6. What should "
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
        shown = slider_format()                # one formatter for both
        self.p_slider = browser_slider(self.param.p_a, label=_("p(A) — target"), width=250, **shown)
        self.q_slider = browser_slider(self.param.q_a, label=_("q(A) — draft"), width=250, **shown)
        self.draw_button = action(_("Draw"), "draw", color="primary", width=120)
        self.draw_many_button = action(_("Draw 1000"), "draw-many", color="default", width=120)
        self.reset_button = action(_("Reset counts"), "reset-counts", color="light", width=120)
        on_click(self.draw_button, lambda e: self.draw(1))
        on_click(self.draw_many_button, lambda e: self.draw(1000))
        on_click(self.reset_button, lambda e: self.reset())
        self.last_draw = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.freq_table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.words = browser_words()           # the page's sentences, for its browser code
        self.figs = AcceptRuleFigures(self.words)
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
        self._question_choices = list(CHOICES)   # the class poll's keys: English, shown translated by the card

        def explain(truth):
            return _("The draft offers A {q} of the time but the target wants it only {p} of the time, so keeping "
                     "a proposed A with probability {p_value} / {q_value} = {ratio} brings A's share down to "
                     "exactly p(A). Press Draw 1000 at these values: the measured frequency lands on that "
                     "line.").format(q=percent(QUESTION_Q), p=percent(QUESTION_P), p_value=number(QUESTION_P, 1),
                                     q_value=number(QUESTION_Q, 1), ratio=number(ratio, 2))
        return PredictCard(self.state, 6, self.question, choices=self._question_choices,
                           answer=self._question_choices[2], explanation=explain,
                           hint=_("Now press Draw 1000 below to check."))

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

    def browser_presses(self) -> list[tuple]:
        """What the offline copy (export/) computes in the browser: `browser_draws`."""
        return browser_draws(self)

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
        self.last_draw.object = last_draw_html(last)
        self.freq_table.object = frequency_table_html(self.p_a, self.q_a, self.proposed, self.kept, freq, thr)
        self.share_note.object = (share_note_html(self.share_of_a(), int(self.outputs.sum()), self.p_a, self.q_a)
                                  + self.seed_note())
        # what the browser shows while a slider moves: the counts cleared (uikit.browser)
        texts = dict(last_draw_text=no_draw_html(), share_note_text=share_note_html(None, 0, 0, 0) + self.seed_note())
        if any(self.figs.redraw.args.get(k) != v for k, v in texts.items()):
            self.figs.redraw.args = dict(self.figs.redraw.args, **texts)

    def seed_note(self) -> str:
        """Which seed the student's draws use, under the share of A."""
        said = _("Your draws use seed {seed} (your seed setting and this browser): the same draws again after "
                 "Reset, other draws for a classmate.").format(seed=student_seed(self.state.seed, self.state.owner))
        return f"<p style='color:#44474d'>{said}</p>"

    # ---- page -------------------------------------------------------------------------------------------
    def body(self):
        controls = pn.Column("#### " + _("Set p and q, then draw"), self.p_slider, self.q_slider,
                             pn.Row(self.draw_button, self.draw_many_button), self.reset_button, width=290)
        # The figures are built when the student scrolls to them (the whole body is below the fold
        # at 1280×720); their sentences and the table are light, and on the page at once.
        figures = Lazy(lambda: pn.Row(*(pn.pane.Bokeh(f, sizing_mode="stretch_width", min_width=FIG_WIDTH,
                                                      max_width=FIG_MAX_WIDTH) for f in (self.region_fig, self.freq_fig)),
                                      margin=0, sizing_mode="stretch_width"),
                       height=FIG_HEIGHT, min_width=2 * FIG_WIDTH + 20)  # one section: they come into view together
        return pn.Column(
            pn.Row(controls, figures, sizing_mode="stretch_width"),
            pn.Row(lazy_figure(lambda: self.u_fig, U_HEIGHT, U_WIDTH), self.last_draw, sizing_mode="stretch_width"),
            self.freq_table,
            pn.Row(lazy_figure(lambda: self.share_fig, SHARE_HEIGHT, SHARE_WIDTH), self.share_note,
                   sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
