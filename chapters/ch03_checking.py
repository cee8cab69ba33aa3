"""Chapter 3 — checking is faster than writing.

"Tick the clock": one tick is one big-model call. Writing five words takes five ticks, each waiting
for the word before; checking five words already on the page takes one tick. Why: a call's time goes
to moving all the weights from memory once, whatever the number of positions it scores. Then the
measurement behind it: one cached target call over 1…8 new positions, from the pair's one cost
profile (lab.speed.costs, shared with chapters 10 and 11), against the n calls that writing n tokens
needs — including where "about one call" stops being true, and saying so when the machine was too
busy to tell. Every word it shows is in the page's language (uikit.language); the reading is one
message per sentence, the tokens as the models wrote them.
"""
from __future__ import annotations

import html

import panel as pn
from bokeh.models import ColumnDataSource, Label, Span

from chapters.base import Chapter
from lab.core.request import Request
from lab.speed.costs import POSITIONS, PREFILL_TOKENS, CostProfile
from lab.speed.profile_eta import profile_with_eta
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.figures import static_figure
from uikit.language import Translated, gettext as _, ngettext
from intercept.pacing import in_document
from uikit.panels import Busy, button_disabled
from uikit.predict import PredictCard
from uikit.progress import TimeLeft
from uikit.styles import BOX_CSS
from uikit.tokens import Chip, TokenStrip, count_html, lane, legend
from uikit.verdicts import why_busy

N_WORDS = 5
MAX_POSITIONS = 8
ABOUT_ONE = 1.5      # "about one call": a call over n positions within 1.5× of a one-position call


def words(service, prompt_ids: list[int], settings, n: int = N_WORDS) -> list[str]:
    """On the model worker: the first n tokens the big model writes (the same cached request as ch. 1)."""
    trace = service.generation(Request(prompt_ids, settings=settings, max_new_tokens=20).plain())
    return [t for r in trace.rounds for t in r.emitted_texts][:n]


def bandwidth() -> str:
    """Why checking is about one call, in one sentence (the lecture's reason)."""
    return _("Why: one call moves all the model's weights from memory to the processor once, whether it scores "
             "1 position or 5; the arithmetic for a few more positions is small beside that. Memory, not "
             "arithmetic, is the bottleneck.")


def honest_reading(costs, busy: str = "") -> str:
    """What the bars show, in words, every figure read off a bar: where checking stops being nearly
    free (the first bar over ABOUT_ONE× a one-position call), the bars that dip back under it, what
    the question's five words cost, and whether checking still beats writing. `busy`
    (uikit.verdicts.why_busy) replaces any conclusion: busy figures prove nothing."""
    if busy:
        return _("{busy} Press Measure again when the machine is quieter; until then the tick-the-clock count "
                 "stands.").format(busy=busy)
    last = costs[-1]
    over = [c for c in costs if c.ratio > ABOUT_ONE]
    times = "{:.2f}".format
    if not over:
        head = _("On this machine checking stays about one call: a call over up to {n} positions takes at most "
                 "{ratio}× a one-position call, while writing {n} tokens takes {n} calls.").format(
            n=last.positions, ratio=times(max(c.ratio for c in costs)))
    else:
        first = over[0]
        before = [c for c in costs if c.positions < first.positions]
        said = dict(n=first.positions, ratio=times(first.ratio), last=last.positions, last_ratio=times(last.ratio))
        if len(before) > 1:
            head = _("Here checking stops being nearly free at {n} positions: a call over {n} takes {ratio}× a "
                     "one-position call (up to {before} positions: at most {before_ratio}×); over {last}: "
                     "{last_ratio}×.").format(before=before[-1].positions,
                                               before_ratio=times(max(c.ratio for c in before)), **said)
        else:
            head = _("Here checking stops being nearly free at {n} positions: a call over {n} takes {ratio}× a "
                     "one-position call; over {last}: {last_ratio}×.").format(**said)
        dips = [c for c in costs if c.positions > first.positions and c.ratio <= ABOUT_ONE]
        if dips:
            head += " " + _("Single calls vary: {measured}.").format(measured=", ".join(
                _("{n} positions measured {ratio}×").format(n=c.positions, ratio=times(c.ratio)) for c in dips))
        if last.ratio < last.positions:
            head += " " + _("Still cheaper than {n} separate calls, but not “about the time of one call”: this model "
                            "is small enough that the arithmetic, not moving its weights, takes part of the "
                            "time.").format(n=last.positions)
        else:
            head += " " + _("That is no cheaper than {n} separate calls: on this machine checking does not beat "
                            "writing (a model this small is limited by arithmetic, not by memory).").format(
                n=last.positions)
    five = next((c for c in costs if c.positions == N_WORDS), None)
    if five is not None:
        head += " " + _("Checking the question's {n} words: {ratio}× one call, where writing them takes {n}.").format(
            n=N_WORDS, ratio=times(five.ratio))
    return head + " " + _("Timings are live and vary from run to run.")


def cost_figure():
    """The bars of the measurement over the lecture's expectation (outlined: about one call
    whatever the positions) and the writing line, so the chart is never empty: (figure, the
    expectation's source, the measurement's source, the placeholder line)."""
    fig = static_figure(height=280, sizing_mode="stretch_width", x_range=(0.4, MAX_POSITIONS + 0.6), y_range=(0, 9),
                        x_axis_label=_("positions (tokens) in one call"),
                        y_axis_label=_("time ÷ one-position call"))
    n = list(range(1, MAX_POSITIONS + 1))
    expected = ColumnDataSource(dict(positions=n, ratio=[1.0] * len(n), writing=[float(k) for k in n]))
    costs = ColumnDataSource(dict(positions=[], ratio=[], writing=[], label=[]))
    fig.vbar(x="positions", top="ratio", width=0.6, color=palette.OVERLAP, source=costs,
             legend_label=_("checking: one call over n positions (measured)"))
    fig.vbar(x="positions", top="ratio", width=0.6, fill_alpha=0, line_color=palette.INK, line_width=2,
             line_dash="dashed", source=expected, legend_label=_("the lecture: about one call"))
    fig.line(x="positions", y="writing", color=palette.TARGET, line_width=3, line_dash="dashed",
             source=expected, legend_label=_("writing: n calls, one after another"))
    fig.scatter(x="positions", y="writing", color=palette.TARGET, size=9, marker="square",
                source=expected)
    # each bar's ratio (the figure the reading quotes) on a white ground: where the writing line
    # passes a bar's top (n = 1, 2) the label stays readable over it
    fig.text(x="positions", y="ratio", text="label", source=costs, text_align="center",
             text_baseline="bottom", y_offset=-4, text_font_size="14px", text_color=palette.INK,
             background_fill_color=palette.PAPER, background_fill_alpha=0.9, padding=2)
    placeholder = Label(x=MAX_POSITIONS + 0.5, y=1.4, text_align="right", text_font_size="16px",
                        text_color=palette.MUTED, text=_("This machine's bars appear here once measured."))
    fig.add_layout(placeholder)
    fig.add_layout(Span(location=1, dimension="width", line_color=palette.MUTED, line_dash="dotted", line_width=2))
    fig.legend.location = "top_left"
    fig.xaxis.ticker = n
    return fig, expected, costs, placeholder


class CheckingChapter(Chapter):
    number = 3
    slug = "checking"
    part = "I"
    kicker = Translated("A second lucky fact")
    title = Translated("Checking is faster than writing.")
    intro = Translated("To write word 4, the big model must wait for word 3. But if the words are already on the "
                       "page — guessed by someone else — nothing has to wait: the model can read them all in one "
                       "call and say, for every position, what it would have written there.")
    takeaway = Translated("Writing n words takes n calls, one after another; checking n words already on the page "
                          "takes one call, and the chart shows what that one call costs on this machine.")
    tour_parts = ("tick_button", "reset_button", "write_strip", "write_calls", "check_strip", "check_calls",
                  "measure_button", "measure_busy", "measure_progress", "figure", "reading")    # what shell/tour/steps.py shows
    question = Translated("Five guessed words are already on the page. How many big-model calls does it take to "
                          "check all five?")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.ticks = 0
        self.word_texts: list[str] = []
        self.costs = []
        self.profile: CostProfile | None = None
        self.tick_button = action(_("Tick the clock"), "tick", color="primary", width=200)
        on_click(self.tick_button, self._on_tick)
        self.reset_button = action(_("Start again"), "start-again", color="default", width=140)
        on_click(self.reset_button, lambda e: self.reset())
        self.write_strip = TokenStrip(empty=_("Each tick writes one word."))
        self.check_strip = TokenStrip(empty=_("The five guessed words wait on the page."))
        self.write_calls = pn.pane.HTML(self._calls_html(0), stylesheets=[BOX_CSS], width=170)
        self.check_calls = pn.pane.HTML(self._calls_html(0), stylesheets=[BOX_CSS], width=170)
        self.measure_button = action(_("Measure this machine"), "measure-machine", color="primary", width=220)
        on_click(self.measure_button, self._on_measure)
        self.measure_busy = Busy()
        self.measure_progress = TimeLeft()    # the bar and "about N s left" while the profile is timed
        self.reading = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        self.figure, self.expected_source, self.cost_source, self.placeholder = cost_figure()

    def make_predict(self):
        return PredictCard(
            self.state, 3, self.question, answer="1",
            choices=["1", "5", "6", "10"],
            explanation=_("The five words are already there, so nothing waits: one call reads all five positions "
                          "side by side and returns, at each, what the big model would have written."),
            hint=_("Now tick the clock until the writing lane has five words."))

    @staticmethod
    def _calls_html(n: int) -> str:
        return count_html(n, ngettext("big-model call", "big-model calls", n))

    # --- tick the clock ---
    async def _on_tick(self, event=None):
        await self.tick()

    async def tick(self) -> int:
        """One big-model call in both lanes' terms; returns the tick count."""
        if not self.word_texts:
            ids = self.prompt_ids()
            if ids is None:
                return self.ticks
            got = await self.run_model(words, self.state.service, ids, self.state.settings,
                                       message=_("The big model writes the words once, for the demo…"))
            if not got:
                return self.ticks
            self.word_texts = got
            self.check_strip.chips = [Chip(w, "draft", _("a guessed word, already on the page"))
                                      for w in self.word_texts]
        n = len(self.word_texts)
        if self.ticks >= n:
            return self.ticks
        self.ticks += 1
        self.write_strip.chips = [Chip(w, "target") for w in self.word_texts[: self.ticks]]
        self.write_calls.object = self._calls_html(self.ticks)
        # Checking: the first tick reads every guessed word at once; later ticks have nothing to do.
        self.check_strip.chips = [Chip(w, "kept", _("checked by the big model in one call")) for w in self.word_texts]
        self.check_calls.object = self._calls_html(1)
        if self.ticks >= n:
            self.tick_button.disabled = True
            if self.predict is not None:
                self.predict.reveal()
        return self.ticks

    def reset(self):
        self.ticks = 0
        self.tick_button.disabled = False
        self.write_strip.chips = []
        self.check_strip.chips = [Chip(w, "draft") for w in self.word_texts]
        self.write_calls.object = self.check_calls.object = self._calls_html(0)

    # --- the live measurement ---
    async def _on_measure(self, event=None):
        await self.measure()

    async def measure(self):
        """Time the big model over 1…POSITIONS positions (the pair's shared cost profile: one timed on a
        busy machine is timed again by the server at its next quiet moment, serving.retime, not on a
        student's press, so a class's verdicts do not flip with it) with a progress bar and the time
        left; then draw it."""
        ids = self.prompt_ids()
        if ids is None:
            return None
        with button_disabled(self.measure_button):
            async with self.measure_progress.running() as left:
                profile = await self.run_model(profile_with_eta, self.state.service.pair, left.set_estimate,
                                               self.state.service.profiles.of, busy=self.measure_busy,
                                               message=_("Timing the big model over 1 to {n} positions (the "
                                                         "chart's; the profile goes on to {all})…").format(
                                                   n=MAX_POSITIONS, all=POSITIONS))
        if profile is None:
            return None
        self.profile = profile
        in_document(self.show_costs, profile.verify_costs(MAX_POSITIONS))
        return profile

    def show_costs(self, costs) -> None:
        self.costs = list(costs)
        self.cost_source.data = dict(positions=[c.positions for c in costs], ratio=[c.ratio for c in costs],
                                     writing=[float(c.positions) for c in costs],
                                     label=[f"{c.ratio:.2f}×" for c in costs])
        self.figure.y_range.end = max(MAX_POSITIONS, max(c.ratio for c in costs)) + 1
        self.placeholder.visible = False
        one = costs[0].seconds
        busy = why_busy(self.profile)
        timed = _("One call over 1 position: <b>{ms} ms</b> (timed for this server, after {n} tokens of "
                  "text).").format(ms=f"{one * 1000:.1f}", n=PREFILL_TOKENS)
        self.reading.object = f'<div class="verdict waiting">{timed} {html.escape(honest_reading(costs, busy))}</div>'

    def body(self):
        return pn.Column(
            pn.Row(self.tick_button, self.reset_button, self.busy, sizing_mode="stretch_width"),
            lane(_("Writing"), _("each word waits for the one before it"), self.write_strip, self.write_calls),
            lane(_("Checking"), _("the guessed words are already on the page"), self.check_strip, self.check_calls),
            legend(["target", "draft", "kept"], {"target": _("written by the big model, one call each"),
                                                 "draft": _("a guessed word on the page"),
                                                 "kept": _("checked — all five in one call")}),
            pn.pane.HTML('<p style="font-size:1.1rem">' + " ".join(html.escape(s, quote=False) for s in (
                _("One tick is one call of the big model."),
                _("The lecture's claim: a call that looks at a handful of positions takes about as long as a call "
                  "that looks at one."), bandwidth(), _("Is that true on this machine? Measure it:"))) + "</p>",
                         sizing_mode="stretch_width"),
            pn.Row(self.measure_button, self.measure_busy, self.measure_progress, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.figure, sizing_mode="stretch_width"),
            self.reading,
            sizing_mode="stretch_width")
