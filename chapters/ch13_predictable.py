"""Chapter 13 — how predictable is your text? α per kind of text, measured on the live pair.

"Measure the six kinds" decodes a few held-out prompts of each kind (lab.experiments.textkinds) with the
lecture's drafting (the draft model at the student's γ), one model-worker job per kind with the
progress shown; greedy and seeded, so the figures are cached per server and a class shares them.
The student's own prompt is their request with the draft model guessing (lab.speed.request), the very
one chapters 4, 10, 11 and 12 show, so its α is theirs. The lecture's argument frames it; its
closing question ends it.
"""
from __future__ import annotations

import html
import math
import time

import panel as pn
from bokeh.models import ColumnDataSource, Label, LabelSet, Span

from chapters.base import Chapter
from lab.core import analytic
from lab.experiments import textkinds
from lab.experiments.presets import MEASURED_DRAFTERS, PRESETS
from lab.prompts import encode_prompt
from lab.core.request import REQUEST_TOKENS
from uikit import palette
from intercept.clicks import on_click
from uikit.figures import projector_type, static_figure
from intercept.pacing import in_document
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.presets import DRAFTER_NAMES
from uikit.progress import TimeLeft
from uikit.styles import TABLE_CSS
from uikit.verdicts import against_break_even

PER_KIND = 2            # held-out prompts per kind
GAMMA = 4               # the lecture's γ: the argument's numbers
MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
YOURS = "yours"


def argument_html(gamma: int = GAMMA) -> str:
    """Seed 001's argument, its numbers from the analytic model."""
    e70 = float(analytic.expected_tokens(0.7, gamma))
    be = {c: float(analytic.break_even_alpha(gamma, c)) for c in (0.1, 0.3)}
    return (
        "<div class='speclab-live'><b>Where the speed-up comes from.</b><ul style='margin:4px 0'>"
        "<li>Why not skip the draft and hand the target random guesses? Verification is a chain: a "
        "rejected guess drops every guess after it. A random guess 1 is rejected, so a round gives one "
        "token — the same as plain decoding, plus the cost of drafting and checking dead positions.</li>"
        "<li>So the target fixing mistakes was never the win: fixing only gets you back to one token per "
        "call. <b>The win is the draft being right</b>: every kept guess is a token the target skips writing.</li>"
        f"<li>Language is often predictable: a closing bracket, “the”, “of”, the rest of a half-typed word, "
        f"the same variable name three lines down. If the target keeps each of γ = {gamma} guesses with "
        f"chance α = 0.7 (given it kept the ones before), a target call gives <b>{e70:.2f}</b> tokens "
        "instead of 1.</li>"
        f"<li>When guessing goes badly, α collapses and the draft is a tax: with γ = {gamma}, drafting breaks "
        f"even at α = {be[0.1]:.2f} when a draft call costs 10% of a target call, and at α = {be[0.3]:.2f} "
        "when it costs 30%. Below that it is slower than doing nothing.</li></ul>"
        "So it is a bet on how predictable your text is — to this draft model. Which kinds are the "
        "predictable kind? Measure them: the reading under the bars says whether the argument held.</div>")


REFLECTION = (
    "<div class='speclab-live' style='border-left:6px solid #2b7a4b'><b>To think about: two minds drew the "
    "path. Where did the deciding happen?</b><br>The fast guesser and the slow target, together, write exactly "
    "the words the target would have written alone. If a quick guess and a careful nod give the very same "
    "answer as the careful mind alone, where in all that was the choosing — in the leap, or only in the "
    "check?</div>")


class KindBars:
    """α per kind of text (and the student's prompt, hatched), with the value on each bar; built once."""

    def __init__(self):
        self.labels = [textkinds.LABELS[k] for k in (*textkinds.KINDS, YOURS)]
        self.source = ColumnDataSource(self._data([]))
        f = static_figure(height=290, sizing_mode="stretch_width", x_range=self.labels, y_range=(0, 1.15),
                          title="α: the chance the target keeps a draft model's guess, given it kept the ones "
                                "before (temperature 0)",
                          y_axis_label="α")
        f.vbar(x="label", top="alpha", source=self.source, width=0.7, fill_color="color", line_color=palette.INK,
               hatch_pattern="hatch", hatch_color="white", hatch_alpha=0.6)
        f.add_layout(LabelSet(x="label", y="alpha", text="text", source=self.source, y_offset=4,
                              text_align="center", text_font_size="16px", text_color=palette.INK))
        self.line = Span(location=0, dimension="width", line_color=palette.INK, line_dash="dashed", line_width=2,
                         visible=False)
        self.line_label = Label(x=0, y=0, x_offset=6, y_offset=4, text="", text_font_size="16px",
                                text_color=palette.INK, background_fill_color=palette.PAPER,
                                background_fill_alpha=0.85, visible=False)
        f.add_layout(self.line)
        f.add_layout(self.line_label)
        projector_type(f)
        self.figure = f

    @staticmethod
    def _data(results):
        return dict(label=[r.label for r in results], alpha=[r.alpha for r in results],
                    color=[palette.DRAFT if r.kind == YOURS else palette.TARGET for r in results],
                    hatch=["/" if r.kind == YOURS else " " for r in results],
                    text=[f"{r.alpha:.2f}" for r in results])

    def draw(self, results, be: float | None = None) -> None:
        """The bars, and the break-even α `be` as a dashed line (hidden while None or nan: then as
        built, so the figure is the same whatever line it showed before)."""
        self.source.data = self._data(results)
        shown = be is not None and not math.isnan(be)
        self.line.visible = self.line_label.visible = shown
        self.line.location = self.line_label.y = be if shown else 0
        self.line_label.text = f"break-even α = {be:.2f}: above it drafting pays here" if shown else ""


def verdict_html(kinds: list[textkinds.KindResult], be: float | None, yours=None, profile=None) -> str:
    """The reading of the bars (lab.experiments.textkinds.reading), the student's prompt measured
    (`yours`, an Outcome) and, on a busy cost `profile`, why its verdicts are unreliable."""
    text = textkinds.reading(kinds, be)
    if yours is not None:
        a, word = yours.alpha or 0.0, yours.verdict_word()
        text += f" Your prompt, measured: α = {a:.2f}, {yours.speedup:.2f}× plain decoding's speed on this machine"
        if be is not None and not math.isnan(be) and word != "level" and (a >= be) != (word == "faster"):
            side = "below" if word == "faster" else "above"     # the line says the other word: say why
            text += f", {word} though its α is {side} the line: " + against_break_even(yours)
        text += "."
    if profile is not None and profile.busy:
        text += " " + profile.why_busy()
    return f"<div class='speclab-live' role='status'><b>What the bars say.</b> {html.escape(text)}</div>"


def table_html(results: list[textkinds.KindResult]) -> str:
    """A row per kind (and the student's prompt, marked): α, tokens per call, guesses kept of those
    judged (α's count) and of all drafted, prompts."""
    rows = []
    for r in results:
        first = r.prompts[0].replace("\n", " ")
        example = first if len(first) <= 60 else first[:57] + "…"
        mark = " class='current'" if r.kind == YOURS else ""
        rows.append(f"<tr{mark}><td><b>{html.escape(r.label)}</b></td><td>{r.alpha:.2f}</td>"
                    f"<td>{r.tokens_per_call:.2f}</td><td>{r.accepted} of {r.judged} judged · {r.drafted} drafted</td>"
                    f"<td><code>{html.escape(example)}</code>"
                    f"{f' and {len(r.prompts) - 1} more' if len(r.prompts) > 1 else ''}</td></tr>")
    return ("<table class='speclab-table'><thead><tr><th>kind of text</th><th>α</th>"
            "<th>tokens per target call</th><th>guesses kept</th><th>prompts</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


class PredictableChapter(Chapter):
    number = 13
    slug = "predictable"
    part = "IV"
    presets = True
    kicker = "Beyond the lecture · a bet on your text"
    title = "How predictable is your text?"
    intro = ("Chapter 10 said drafting pays when α is high. But α is not the draft's alone: it depends on "
             "what is being written. Measure α for six kinds of text on the live models, and place your own "
             "prompt among them.")
    takeaway = ("Speculative decoding is a bet on how predictable your text is: the speed comes from the "
                "draft being right, never from the target fixing it.")
    tour_parts = ("run_button", "progress", "kinds_fig", "verdict")    # what shell/tour/steps.py shows
    question = "Which kind of text will the draft model guess best — the highest α?"

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.results: list[textkinds.KindResult] = []
        self.run_button = pn.widgets.Button(label="▶ Measure the six kinds", color="primary", width=240)
        on_click(self.run_button, self._on_run)
        self.progress = TimeLeft()     # its bar and time left, estimated from the kinds measured so far
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.verdict = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.bars = KindBars()
        self.yours = None          # the student's request measured (lab.speed.request.Outcome)
        self.profile = None        # the cost profile the break-even is priced with

    @classmethod
    def warmup(cls, student):
        """The six kinds at a new student's γ, so the page (and the tour's last steps) draw at once;
        then each preset with each drafter, so the preset bar of chapters 4, 8 and 10–13 says who
        wins on a preset's first press."""
        kinds = textkinds.kind_prompts(PER_KIND)
        jobs = [(f"chapter 13's {textkinds.LABELS[k].lower()}", textkinds.cached_kind,
                 (student.service, k, kinds[k], student.gamma, MAX_NEW_TOKENS), dict(variant="aligned"))
                for k in textkinds.KINDS]
        tokenizer = student.service.pair.tokenizer
        for preset in PRESETS:
            ids = encode_prompt(tokenizer, preset.prompt)
            jobs += [(f"the preset {preset.label!r} guessed by {dict(DRAFTER_NAMES)[d]}", student.service.outcome,
                      (student.request(ids, drafter=d),), {}) for d in MEASURED_DRAFTERS]
        return jobs

    @property
    def kinds_fig(self):
        """α per kind with the break-even line (the tour shows it)."""
        return self.bars.figure

    def break_even(self) -> float | None:
        """The break-even α of the draft model at the student's γ on this machine (None before a
        profile): the pair's profile as soon as it is measured, so the line is drawn with the kinds."""
        self.profile = self.profile or self.state.service.profiles.already_measured(self.variant)
        return None if self.profile is None else textkinds.break_even(self.profile, self.state.gamma)

    def make_predict(self):
        labels = [textkinds.LABELS[k] for k in textkinds.KINDS]

        def explain(truth):
            return textkinds.reading(self.kind_results)
        return PredictCard(self.state, 13, self.question, choices=labels,
                           answer=lambda: textkinds.most_predictable(self.kind_results).label,
                           explanation=explain, hint="Now press Measure the six kinds below to check.")

    @property
    def kind_results(self) -> list[textkinds.KindResult]:
        return [r for r in self.results if r.kind != YOURS]

    # --- running ---
    async def _on_run(self, event=None):
        await self.measure()

    def _request(self):
        return self.state.prompt, getattr(self, "variant", "aligned"), self.state.gamma

    async def measure(self) -> list[textkinds.KindResult] | None:
        """Each kind, then the student's prompt, one worker job each; the bars grow as they come."""
        if self.run_button.disabled:
            return None
        with button_disabled(self.run_button):
            while True:
                request = self._request()
                results = await self._measure(request)
                if results is not None or request == self._request():
                    return results

    async def _measure(self, request):
        service, kinds, gamma = self.state.service, textkinds.kind_prompts(PER_KIND), request[2]
        self.results, self.yours = [], None
        self.profile = service.profiles.already_measured(request[1])   # this draft variant's, never the last one's
        self._draw()
        total, started = len(textkinds.KINDS) + 1, time.monotonic()
        async with self.progress.running() as left:
            for i, kind in enumerate(textkinds.KINDS):
                what = f"{textkinds.LABELS[kind].lower()} ({len(kinds[kind])} prompts)"
                got = await self.run_model(textkinds.cached_kind, service, kind, kinds[kind], gamma, MAX_NEW_TOKENS,
                                           message=f"Measuring {what}: {i + 1} of {total}…")
                if request != self._request() or got is None:
                    return None
                self.results.append(got)
                left.set_estimate((time.monotonic() - started) * total / (i + 1))
                self._draw()
            ids = self.prompt_ids()     # the student's prompt: one sentence when it cannot be used
            outcome = None if ids is None else await self.run_model(
                service.outcome, self.request(ids, max_new_tokens=MAX_NEW_TOKENS), message=f"Measuring your prompt: {total} of {total}…")
            if request != self._request():
                return None
            if outcome is not None:
                self.results.append(textkinds.KindResult.of_trace(YOURS, request[0], outcome.spec))
                self.yours = outcome
            self.profile = outcome.profile if outcome is not None else \
                service.profiles.already_measured(request[1]) or await self.run_model(
                    service.profiles.of, message="Timing this pair's calls (once per server)…")
            self._draw()
        if self.predict is not None:
            self.predict.reveal()
        return self.results

    async def on_settings_changed(self, changed):
        """A new prompt, draft variant or γ: measure again if the bars were on screen (the kinds come from
        the cache)."""
        if not changed & {"prompt", "variant", "gamma"}:
            return
        shown = bool(self.results)
        self.results = []
        self._draw()
        if shown:
            await self.measure()

    # --- drawing ---
    def _draw(self):
        done = len(self.kind_results) == len(textkinds.KINDS)
        be = self.break_even() if done else None
        in_document(self.bars.draw, list(self.results), be)
        self.table.object = table_html(self.results) if self.results else ""
        self.verdict.object = verdict_html(self.kind_results, be, self.yours, self.profile) if done else ""

    def body(self):
        caption = pn.pane.Markdown(
            f"Each kind: its first {PER_KIND} held-out prompts (prompts kept apart from the ones the draft was "
            f"trained and tuned on), {MAX_NEW_TOKENS} new tokens each, the draft model guessing your γ "
            f"({self.state.gamma}) a round at temperature 0. α pools the kind's guesses: kept ÷ judged, where a "
            "guess is judged when the target keeps or rejects it (the guesses after a rejection are dropped "
            "unjudged), as chapter 4 defines it. Your prompt is your "
            "request with the draft model guessing, as chapters 10, 11 and 12 measure it.",
            sizing_mode="stretch_width", styles={"font-size": "1rem", "color": palette.MUTED})
        return pn.Column(
            pn.pane.HTML(argument_html(), sizing_mode="stretch_width", stylesheets=[TABLE_CSS]),
            pn.Row(self.run_button, pn.Column(self.busy, self.progress, sizing_mode="stretch_width"),
                   sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.bars.figure, sizing_mode="stretch_width"),
            self.verdict, self.table, caption,
            pn.pane.HTML(REFLECTION, sizing_mode="stretch_width", stylesheets=[TABLE_CSS], margin=(12, 5, 0, 5)),
            sizing_mode="stretch_width")
