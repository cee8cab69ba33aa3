"""Chapter 10 — when does drafting save time? The analytic model, with sliders, and the live pair.

The sliders redraw in the browser (uikit.browser: assets/analytic.js and assets/ch10_breakeven.js,
the same formulas and HTML as lab.experiments.breakeven and uikit.readouts); Python's α, γ and c follow
when the student lets go, and its redraw (numpy, `ColumnDataSource.data`) draws the same. The figures
(chapters/ch10_breakeven/figures.py) are built once and never wait for a model. Beside the lecture's round cost 1 + γc runs the cost measured on this
machine, γc + v(γ + 1), from the pair's one cost profile (lab.speed.costs, shared with chapters 3 and 11).
"Use my models" asks the model service for the outcome of the student's request (lab.speed.request: the
same one chapters 4, 11 and 12 show), moves α, γ and c there and shows the measured speed-up beside
the formula's; `measure_live` fetches it without touching the sliders (the tour starts it ahead) and
keeps it, which Use my models then applies at once.
"""
from __future__ import annotations

import time

import panel as pn
import param
from bokeh.models import CustomJSTickFormatter

from chapters.base import Chapter
from chapters.ch10_breakeven.figures import FIGURES_HEIGHT, BreakEvenFigures, browser_profile  # noqa: F401  browser_profile: tests/uikit
from lab.experiments import breakeven
from lab.experiments.breakeven import QUESTION
from lab.core.request import REQUEST_TOKENS
from intercept.clicks import on_click
from uikit.actions import action
from lab.i18n import N_
from uikit.browser import browser_slider, redraw_on_move
from uikit.language import Translated, gettext as _, number
from uikit.kept import KeptWork
from uikit.lazy import Lazy
from intercept.pacing import Throttled, in_document, served
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.progress import TimeLeft
from uikit.readouts import (VERDICT_CSS, cost_note_html, live_html, measured_point, page_number_format,
                            question_explanation, readout_html, table_html, versus_html)
from uikit.state import GAMMA_MAX
from uikit.styles import TABLE_CSS

MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
LIVE_FRESH_SECONDS = 600   # "Use my models" takes a kept measurement of the same request this young


TOOK = "live measurement"  # the model service's record of how long the last one took (ModelService.took)

# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker): marked
# here for the catalog
KICKER = (N_("When is it really faster?"),)
# The question's choices: the class poll's keys (and lab.experiments.breakeven.question_verdict's
# answer), in English here, in the catalog for the card to show
CHOICES = (N_("faster"), N_("slower"))


def slider_format() -> dict:
    """The α and c sliders' keyword for their value as the page's language writes it, two decimals
    ("0,60" in Spanish; a slider's value has no more decimals, so no rounding differs from
    uikit.language.number); none where the language writes a decimal point (the slider's own "0.60")."""
    written = page_number_format()
    if written["python"] or written["decimal"] == ".":
        return {}
    return dict(format=CustomJSTickFormatter(code="return tick.toFixed(2).replace('.', decimal)",
                                             args=dict(decimal=written["decimal"])))


class BreakEvenChapter(Chapter):
    number = 10
    slug = "breakeven"
    part = "III"
    kicker = Translated("Question 5 · when does drafting save time?")
    title = Translated("Tokens per round, divided by cost per round.")
    intro = Translated("A round costs γ draft calls plus one target call, and returns a few tokens. Three "
                       "numbers decide whether that beats standard decoding: the acceptance rate α, the "
                       "draft's relative cost c, and the draft length γ.")
    takeaway = Translated("Drafting pays off when α is high and c is small — and it can be slower.")
    tour_parts = ("try_question", "alpha_slider", "gamma_slider", "c_slider", "readout", "speed_fig",
                  "use_models", "time_left", "live", "gamma_fig")    # what shell/tour/steps.py shows
    presets = True       # the preset prompts and the aligned / weak / random draft variant (chapters.base)
    drafters = True      # and the drafter: the draft model, a copy from the text, or both

    question = Translated("The draft is accepted 60% of the time and each draft call costs 30% of a target "
                          "call. With γ = 5, is drafting faster?")

    alpha = param.Number(default=0.8, bounds=(0.0, 1.0), step=0.01, doc="α, the acceptance rate.")
    gamma = param.Integer(default=4, bounds=(1, GAMMA_MAX), doc="γ, the draft length.")
    c = param.Number(default=0.1, bounds=(0.0, 2.0), step=0.01, doc="c, draft call ÷ target call.")
    outcome = param.Parameter(default=None, doc="The student's request measured (lab.speed.request.Outcome).")
    profile = param.Parameter(default=None, doc="The pair's lab.speed.costs.CostProfile, once measured.")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        shown = slider_format()
        self.alpha_slider = browser_slider(self.param.alpha, label=_("α acceptance rate"), width=260, **shown)
        self.gamma_slider = browser_slider(self.param.gamma, label=_("γ draft length"), width=260)
        self.c_slider = browser_slider(self.param.c, label=_("c draft cost ÷ target cost"), width=260, **shown)
        self.use_models = action(_("Use my models"), "use-models", color="primary", width=160)
        on_click(self.use_models, self.use_my_models)
        a, g, c = QUESTION
        self.try_question = action(_("Try α = {alpha}, γ = {gamma}, c = {c}").format(
            alpha=number(a, 1), gamma=g, c=number(c, 1)), "try-question", width=200)
        on_click(self.try_question, lambda e: self.param.update(alpha=a, gamma=g, c=c))
        # the formula, the live pair's measurement, the lecture's table, the note on the measured cost,
        # and the sliders against the measured request (redrawn in the browser with the formula)
        self.readout, self.live, self.table, self.cost_note, self.versus = (
            pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, VERDICT_CSS]) for _ in range(5))
        self.figs = BreakEvenFigures()
        self.point = None          # the measured request where Use my models put the sliders (measured_point)
        self.versus.stylesheets = [*self.versus.stylesheets, ".versus { font-size: 1.1rem; margin: 4px 0; }"]
        redraw_on_move(self.figs.redraw, dict(alpha=self.alpha_slider, gamma=self.gamma_slider, c=self.c_slider),
                       dict(readout=self.readout, table=self.table, note=self.cost_note, versus=self.versus))
        self.kept = KeptWork(LIVE_FRESH_SECONDS)   # the live pair's measurement (measure_live)
        self.time_left = TimeLeft()                 # its progress bar and time left
        self.profile = state.service.profiles.already_measured(self.variant)   # drawn in the first draw
        self._update()
        self.param.watch(Throttled(self._update), ["alpha", "gamma", "c", "profile"])
        if served():
            pn.state.onload(self.load)

    async def load(self) -> None:
        """Fetch the pair's cost profile (measured once per server) and draw the measured curves; at
        once, without the model worker, when it is measured already."""
        profiles = self.state.service.profiles
        got = profiles.already_measured(self.variant) or await self.run_model(
            profiles.of, message=N_("Timing this pair's calls (once per server)…"))
        if got is not None and got is not self.profile:
            self.profile = got

    async def on_settings_changed(self, changed: set[str]) -> None:
        """Another draft variant (the preset bar) costs its own c: fetch that pair's profile."""
        if "variant" in changed and self.profile is not None:
            await self.load()

    # the figures (the tour shows them; each built when first asked for)
    speed_fig = property(lambda self: self.figs.speed_fig)
    gamma_fig = property(lambda self: self.figs.gamma_fig)

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
        self.versus.object = versus_html(a, g, c, self.point)
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
        now = self.state.service.profiles.already_measured(request.variant)
        if got is not None and now is not None and got.profile is not now:    # re-timed since: price anew
            self.kept = KeptWork(LIVE_FRESH_SECONDS)
            got = await self.kept.get(request, lambda: self._measure(request))
        return got

    async def _measure(self, request):
        async with self.time_left.running() as left:
            last = self.state.service.took.get(TOOK)    # the server's last one, on any student's page
            if last is not None:
                left.set_estimate(last)
            started = time.monotonic()
            outcome = await self.run_model(self.state.service.outcome, request,
                                           message=N_("Decoding your request plainly and with drafting…"))
        if outcome is not None:
            self.state.service.took[TOOK] = time.monotonic() - started
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
        self.point = point = measured_point(got)
        in_document(setattr, self.figs.request, "data", point)    # what the browser compares the sliders with
        # the α/γ/c watchers redraw the figure through in_document; the formula then reads the request's
        self.param.update(alpha=point["alpha"][0], gamma=point["gamma"][0], c=point["c"][0])
        self.versus.object = versus_html(self.alpha, self.gamma, self.c, point)
        self.live.object = live_html(got)

    # ---- predict ------------------------------------------------------------------------------------
    def make_predict(self):
        return PredictCard(self.state, 10, self.question, choices=list(CHOICES), answer=lambda: breakeven.question_verdict()[0],
                           explanation=question_explanation, hint=_("Now set α, γ and c below to check."))

    def _maybe_reveal(self):
        if self.predict is not None and (round(self.alpha, 2), self.gamma, round(self.c, 2)) == QUESTION:
            self.predict.reveal()

    def body(self):
        controls = pn.Column("#### " + _("Find the break-even"), self.alpha_slider, self.gamma_slider,
                             self.c_slider, self.try_question, self.use_models, self.busy, self.time_left, width=300)
        return pn.Column(
            pn.Row(controls, pn.Column(self.readout, self.live, self.versus, sizing_mode="stretch_width"),
                   sizing_mode="stretch_width"),
            # below the fold: the figures, the measured cost's note, the lecture's table
            Lazy(lambda: self.figs.section(self.cost_note, self.table), height=FIGURES_HEIGHT),
            sizing_mode="stretch_width")

