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
from lab.experiments import textkinds
from lab.experiments.presets import MEASURED_DRAFTERS, PRESETS
from lab.prompts import encode_prompt
from lab.core.request import REQUEST_TOKENS
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.figures import projector_type, static_figure
from intercept.pacing import in_document
from uikit.panels import button_disabled
from uikit.predict import PredictCard
from uikit.presets import DRAFTER_NAMES
from uikit.progress import TimeLeft
from uikit.styles import TABLE_CSS
from uikit.verdicts import against_break_even, why_busy

from chapters.ch13_predictable.words import (GAMMA, KIND_NAMES, YOURS, argument_html, kind_name, reading,  # noqa: F401
                                          reflection_html)
from lab.i18n import N_
from uikit.language import Translated, gettext as _, ngettext, number

PER_KIND = 2            # held-out prompts per kind
KEY_Y = 1.14            # the break-even key's height on the α axis, above every bar and its value
MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)


class KindBars:
    """α per kind of text (and the student's prompt, hatched), with the value on each bar; built once."""

    def __init__(self):
        self.labels = [kind_name(k) for k in (*textkinds.KINDS, YOURS)]
        self.source = ColumnDataSource(self._data([]))
        f = static_figure(height=290, sizing_mode="stretch_width", x_range=self.labels, y_range=(0, 1.32),
                          title=_("α: the chance the target keeps a draft model's guess, given it kept the ones "
                                  "before (temperature 0)"),
                          y_axis_label="α")
        f.vbar(x="label", top="alpha", source=self.source, width=0.7, fill_color="color", line_color=palette.INK,
               hatch_pattern="hatch", hatch_color="white", hatch_alpha=0.6)
        f.add_layout(LabelSet(x="label", y="alpha", text="text", source=self.source, y_offset=4,
                              text_align="center", text_font_size="16px", text_color=palette.INK))
        self.line = Span(location=0, dimension="width", line_color=palette.INK, line_dash="dashed", line_width=2,
                         visible=False)
        # the line's key sits in the headroom over the bars (α ≤ 1 and its value), never over a bar
        self.line_label = Label(x=0, y=KEY_Y, x_offset=6, text="", text_font_size="16px",
                                text_color=palette.INK, background_fill_color=palette.PAPER,
                                background_fill_alpha=0.85, visible=False)
        f.add_layout(self.line)
        f.add_layout(self.line_label)
        f.yaxis.ticker = [0, 0.2, 0.4, 0.6, 0.8, 1]      # α's own range: the headroom above 1 holds the key
        projector_type(f)
        self.figure = f

    @staticmethod
    def _data(results):
        return dict(label=[kind_name(r.kind) for r in results], alpha=[r.alpha for r in results],
                    color=[palette.DRAFT if r.kind == YOURS else palette.TARGET for r in results],
                    hatch=["/" if r.kind == YOURS else " " for r in results],
                    text=[number(r.alpha, 2) for r in results])

    def draw(self, results, be: float | None = None, gamma: int = 0, c: float = 0.0) -> None:
        """The bars, and the break-even α `be` (of γ = `gamma` guesses at cost `c`) as a dashed line
        with its key over the bars (hidden while None or nan: then as built, so the figure is the
        same whatever line it showed before)."""
        self.source.data = self._data(results)
        shown = be is not None and not math.isnan(be)
        self.line.visible = self.line_label.visible = shown
        self.line.location = be if shown else 0
        self.line_label.text = _("- - - break-even α = {be} (γ = {gamma}, c = {c}): above it drafting pays "
                                 "here").format(be=number(be, 2), gamma=gamma, c=number(c, 2)) if shown else ""


def verdict_html(kinds: list[textkinds.KindResult], be: float | None, yours=None, profile=None) -> str:
    """The reading of the bars (`reading`), the student's prompt measured (`yours`, an Outcome) and, on
    a busy cost `profile`, why its verdicts are unreliable."""
    text = reading(kinds, be)
    if yours is not None:
        a, word = yours.alpha or 0.0, yours.verdict_word()
        said = dict(alpha=number(a, 2), speedup=number(yours.speedup, 2))
        if be is not None and not math.isnan(be) and word != "level" and (a >= be) != (word == "faster"):
            # the line says the other word: say why, from the prompt's own rounds
            said["reasons"] = against_break_even(yours)
            text += " " + (_("Your prompt, measured: α = {alpha}, {speedup}× plain decoding's speed on this machine, "
                             "faster though its α is below the line: {reasons}.") if word == "faster" else
                           _("Your prompt, measured: α = {alpha}, {speedup}× plain decoding's speed on this machine, "
                             "slower though its α is above the line: {reasons}.")).format(**said)
        else:
            text += " " + _("Your prompt, measured: α = {alpha}, {speedup}× plain decoding's speed on this "
                            "machine.").format(**said)
    if profile is not None and profile.busy:
        text += " " + why_busy(profile)
    head = html.escape(_("What the bars say."))
    return f"<div class='speclab-live' role='status'><b>{head}</b> {html.escape(text)}</div>"


def table_html(results: list[textkinds.KindResult]) -> str:
    """A row per kind (and the student's prompt, marked): α, tokens per call, guesses kept of those
    judged (α's count) and of all drafted, prompts."""
    rows = []
    for r in results:
        first = r.prompts[0].replace("\n", " ")
        example = first if len(first) <= 60 else first[:57] + "…"
        mark = f"data-kind='{html.escape(r.kind, quote=True)}'" + (" class='current'" if r.kind == YOURS else "")
        kept = _("{kept} of {judged} judged · {drafted} drafted").format(kept=r.accepted, judged=r.judged,
                                                                          drafted=r.drafted)
        more = _(" and {n} more").format(n=len(r.prompts) - 1) if len(r.prompts) > 1 else ""
        rows.append(f"<tr {mark}><td><b>{html.escape(kind_name(r.kind))}</b></td><td>{number(r.alpha, 2)}</td>"
                    f"<td>{number(r.tokens_per_call, 2)}</td><td>{kept}</td>"
                    f"<td><code>{html.escape(example)}</code>{html.escape(more)}</td></tr>")
    head = "".join(f"<th>{html.escape(h)}</th>" for h in (
        _("kind of text"), "α", _("tokens per target call"), _("guesses kept"), _("prompts")))
    return (f"<table class='speclab-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


class PredictableChapter(Chapter):
    number = 13
    slug = "predictable"
    part = "IV"
    presets = True
    kicker = Translated("Beyond the lecture · a bet on your text")
    title = Translated("How predictable is your text?")
    intro = Translated("Chapter 10 said drafting pays when α is high. But α is not the draft's alone: it depends on "
                       "what is being written. Measure α for six kinds of text on the live models, and place your "
                       "own prompt among them.")
    takeaway = Translated("Speculative decoding is a bet on how predictable your text is: the speed comes from the "
                          "draft being right, never from the target fixing it.")
    tour_parts = ("run_button", "progress", "kinds_fig", "verdict")    # what shell/tour/steps.py shows
    question = Translated("Which kind of text will the draft model guess best — the highest α?")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.results: list[textkinds.KindResult] = []
        self.run_button = action(_("▶ Measure the six kinds"), "measure-kinds", color="primary", width=240)
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
        jobs = [(f"chapter 13's {KIND_NAMES[k].lower()}", textkinds.cached_kind,
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
        keys = [KIND_NAMES[k] for k in textkinds.KINDS]      # the class poll's keys: English, shown translated

        def explain(truth):
            return reading(self.kind_results)
        return PredictCard(self.state, 13, self.question, choices=keys,
                           answer=lambda: KIND_NAMES[textkinds.most_predictable(self.kind_results).kind],
                           explanation=explain, hint=_("Now press Measure the six kinds below to check."))

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
                message = ngettext("Measuring {kind} ({n} prompt): {i} of {total}…",
                                   "Measuring {kind} ({n} prompts): {i} of {total}…", len(kinds[kind])).format(
                    kind=kind_name(kind), n=len(kinds[kind]), i=i + 1, total=total)
                got = await self.run_model(textkinds.cached_kind, service, kind, kinds[kind], gamma, MAX_NEW_TOKENS,
                                           message=message)
                if request != self._request() or got is None:
                    return None
                self.results.append(got)
                left.set_estimate((time.monotonic() - started) * total / (i + 1))
                self._draw()
            ids = self.prompt_ids()     # the student's prompt: one sentence when it cannot be used
            outcome = None if ids is None else await self.run_model(
                service.outcome, self.request(ids, max_new_tokens=MAX_NEW_TOKENS), message=_("Measuring your prompt: {i} of {total}…").format(i=total, total=total))
            if request != self._request():
                return None
            if outcome is not None:
                self.results.append(textkinds.KindResult.of_trace(YOURS, request[0], outcome.spec))
                self.yours = outcome
            self.profile = outcome.profile if outcome is not None else \
                service.profiles.already_measured(request[1]) or await self.run_model(
                    service.profiles.of, message=N_("Timing this pair's calls (once per server)…"))
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
        in_document(self.bars.draw, list(self.results), be, self.state.gamma,
                    self.profile.c if self.profile is not None else 0.0)
        self.table.object = table_html(self.results) if self.results else ""
        self.verdict.object = verdict_html(self.kind_results, be, self.yours, self.profile) if done else ""

    def body(self):
        caption = pn.pane.Markdown(
            _("Each kind: its first {per_kind} held-out prompts (prompts kept apart from the ones the draft was "
              "trained and tuned on), {tokens} new tokens each, the draft model guessing your γ ({gamma}) a round "
              "at temperature 0. α pools the kind's guesses: kept ÷ judged, where a guess is judged when the target "
              "keeps or rejects it (the guesses after a rejection are dropped unjudged), as chapter 4 defines it. "
              "Your prompt is your request with the draft model guessing, as chapters 10, 11 and 12 measure "
              "it.").format(per_kind=PER_KIND, tokens=MAX_NEW_TOKENS, gamma=self.state.gamma),
            sizing_mode="stretch_width", styles={"font-size": "1rem", "color": palette.MUTED})
        return pn.Column(
            pn.pane.HTML(argument_html(), sizing_mode="stretch_width", stylesheets=[TABLE_CSS]),
            pn.Row(self.run_button, pn.Column(self.busy, self.progress, sizing_mode="stretch_width"),
                   sizing_mode="stretch_width"),
            pn.pane.Bokeh(self.bars.figure, sizing_mode="stretch_width"),
            self.verdict, self.table, caption,
            pn.pane.HTML(reflection_html(), sizing_mode="stretch_width", stylesheets=[TABLE_CSS], margin=(12, 5, 0, 5)),
            sizing_mode="stretch_width")
