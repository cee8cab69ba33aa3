"""Chapter 12 — cheaper guesses: prompt lookup, hybrid drafts, adaptive γ and a confidence stop,
measured side by side on the student's prompt.

"Measure all six" asks for the outcome of the student's request drafted each way of lab.experiments.cheaper
(lab.speed.request: one model-worker job per drafting, so the table fills row by row); the draft model's
row is the request chapters 4, 10 and 11 show, and a class asking for the same prompt and settings
shares the measurements. The predict question is about the edit preset
(lab.experiments.presets), and its verdict shows once the student has measured that prompt.
"""
from __future__ import annotations

import html

import panel as pn
from bokeh.models import ColumnDataSource, LabelSet, Span

from chapters.base import Chapter
from lab.experiments import cheaper
from lab.experiments.presets import preset_by_key
from lab.core.request import REQUEST_TOKENS
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.figures import projector_type, static_figure
from intercept.pacing import in_document
from uikit.panels import button_disabled, sampling_words
from uikit.predict import PredictCard
from lab.core.drafting import DEFAULT_CONFIDENCE
from lab.i18n import N_
from uikit import verdicts
from uikit.language import Translated, gettext as _, number, percent
from uikit.readouts import VERDICT_CSS, busy_html, retimed_html
from uikit.styles import TABLE_CSS

MAX_NEW_TOKENS = REQUEST_TOKENS      # every live page's request length (lab.speed.request)
# The predict question's choices: who guesses (the drafter), as lab.experiments.cheaper keys; the
# English names are the class poll's keys, shown in the page's language.
DRAFTER_NAMES = {"model": N_("The draft model"), "lookup": N_("Prompt lookup (copy from the text)"),
                 "hybrid": N_("Hybrid (lookup, else the draft model)")}
# Each drafting of lab.experiments.cheaper.DRAFTINGS: its name and how it guesses
DRAFTING_WORDS = {
    "model": (N_("Draft model"), N_("The lecture’s draft: a small model guesses γ tokens, one call each.")),
    "lookup": (N_("Prompt lookup"), N_("No model at all: copy the tokens that followed the text’s final words (up "
                                       "to 3 of them) where they occurred before, in microseconds.")),
    "hybrid": (N_("Hybrid"), N_("Prompt lookup when the text repeats itself, the draft model otherwise.")),
    "adaptive": (N_("Adaptive γ"), N_("The draft model, with transformers’ schedule: γ + 2 after a round that kept "
                                      "every guess, γ − 1 after a miss.")),
    "confident": (N_("Confidence stop"), N_("The draft model stops guessing after a token it gave less than "
                                            "{share}.")),
    "auto": (N_("Hybrid, auto γ"), N_("This lab’s default: copy or draft, whichever source pays more, only as many "
                                      "tokens (up to 12) as its recent hit rate pays for on this machine, and a plain "
                                      "step (no guess) where neither pays.")),
}


def drafting_name(key: str) -> str:
    """A drafting's name in the page's language."""
    return _(DRAFTING_WORDS[key][0])


def drafting_how(key: str) -> str:
    """How a drafting guesses, in one sentence in the page's language."""
    return _(DRAFTING_WORDS[key][1]).format(share=percent(DEFAULT_CONFIDENCE))


def rows_html(rows: list[cheaper.Row], plain_calls: int | None, greedy: bool) -> str:
    """The side-by-side table: plain decoding, then each drafting measured so far."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in (
        _("drafting"), "α", _("tokens per target call"), "c", _("speed-up"), _("same text as plain decoding?")))
    reference = (_("the reference ({calls} target calls)").format(calls=plain_calls) if plain_calls
                 else _("the reference"))
    one = number(1, 2)
    plain = html.escape(_("Plain decoding (the target alone)"))
    body = [f"<tr><td>{plain}</td><td>–</td><td>{one}</td><td>–</td>"
            f"<td>{one}×</td><td>{html.escape(reference)}</td></tr>"]
    for r in rows:
        o = r.outcome
        alpha = "–" if o.alpha is None else number(o.alpha, 2)
        same = (_("sampling: same distribution, other draws") if o.exact is None
                else _("✓ yes, token for token") if o.exact else _("✗ no"))
        fallback = (f"<br><small class='fallback'>{html.escape(verdicts.drafting(o))}</small>"
                    if r.drafting.key == "auto" else "")
        calls = _("{tokens} (<span class='target-calls'>{calls}</span> calls)").format(
            tokens=number(o.tokens_per_call, 2), calls=o.target_calls)
        body.append(f"<tr data-drafting='{r.drafting.key}'><td><b>{html.escape(drafting_name(r.drafting.key))}</b>"
                    f"{fallback}</td><td>{alpha}</td><td>{calls}</td><td>{number(o.c, 3)}</td>"
                    f"<td><b class='speedup'>{number(o.speedup, 2)}×</b></td><td>{html.escape(same)}</td></tr>")
    note = "" if greedy else "<p>" + html.escape(_("At temperature > 0 each drafting draws other random numbers, so "
                                                   "the texts differ; each still follows the target's distribution "
                                                   "exactly.")) + "</p>"
    return (f"<table class='speclab-table'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"{note}")


def how_html() -> str:
    items = "".join(f"<li><b>{html.escape(drafting_name(d.key))}</b> — {html.escape(drafting_how(d.key))}</li>"
                    for d in cheaper.DRAFTINGS)
    return f"<div class='speclab-live'><ul style='margin:4px 0'>{items}</ul></div>"


class SpeedupBars:
    """Measured speed-up per drafting (bars), with the break-even line at 1×; built once."""

    def __init__(self):
        labels = [drafting_name(d.key) for d in cheaper.DRAFTINGS]
        self.source = ColumnDataSource(self._data([]))
        f = static_figure(height=300, sizing_mode="stretch_width", y_range=labels[::-1], x_range=(0, 2),
                          title=_("Decode speed-up over plain decoding, calls priced as measured (right of the "
                                  "dashed line: faster)"),
                          x_axis_label=_("speed-up ×"))
        f.hbar(y="label", right="speedup", source=self.source, height=0.7, fill_color="color",
               line_color=palette.INK, hatch_pattern="hatch", hatch_color="white", hatch_alpha=0.6)
        f.add_layout(Span(location=1, dimension="height", line_dash="dashed", line_color=palette.INK, line_width=2))
        # each bar's value after the 1× line and on a white ground: a speed-up near 1× is not crossed by it
        f.add_layout(LabelSet(x="speedup", y="label", text="text", source=self.source, x_offset=6,
                              y_offset=-9, text_font_size="16px", text_color=palette.INK,
                              background_fill_color=palette.PAPER, background_fill_alpha=0.9))
        projector_type(f)
        self.figure = f

    @staticmethod
    def _data(rows):
        return dict(label=[drafting_name(r.drafting.key) for r in rows], speedup=[r.outcome.speedup for r in rows],
                    color=[palette.TARGET if r.outcome.speedup >= 1 else palette.EAGER for r in rows],
                    hatch=[" " if r.outcome.speedup >= 1 else "/" for r in rows],
                    text=[number(r.outcome.speedup, 2) + "×" for r in rows])

    def draw(self, rows: list[cheaper.Row]) -> None:
        self.source.data = self._data(rows)
        self.figure.x_range.end = max([2.0] + [r.outcome.speedup * 1.25 for r in rows])


class CheaperGuessesChapter(Chapter):
    number = 12
    slug = "cheaper-guesses"
    part = "IV"
    presets = True
    kicker = Translated("Beyond the lecture · other ways to guess")
    title = Translated("Cheaper guesses.")
    intro = Translated("A guess need not come from a model. It can be **copied from the text itself** (prompt "
                       "lookup), the two can be **mixed** (a hybrid), and the number of guesses can **adapt**: grow "
                       "after a round that kept them all, shrink after a miss, or stop when the draft is unsure. The "
                       "accept rule never changes, so every one of them writes the target's text; only the speed "
                       "differs. Press **Measure all six** to decode your prompt each way.")
    takeaway = Translated("Who guesses and how many only changes the speed, never the text: the best guesser is the "
                          "one that is right most cheaply on your kind of text.")
    tour_parts = ("run_button", "table")    # what shell/tour/steps.py shows
    question = Translated("On an edit prompt — copy a text with one change — which guesser needs the fewest target "
                          "calls for the same text?")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.rows: list[cheaper.Row] = []
        self.plain = None               # the plain run (GenerationTrace) the rows are compared with
        self.edit_rows: list[cheaper.Row] = []   # the last complete measurement of the edit prompt
        self.run_button = action(_("▶ Measure all six"), "measure-all", color="primary", width=200)
        on_click(self.run_button, self._on_run)
        self.prompt_line = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, VERDICT_CSS])
        self.summary = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, VERDICT_CSS])
        self.bars = SpeedupBars()
        self._draw()

    def make_predict(self):
        def explain(truth):
            calls = _(", ").join(
                _("{who} {calls}").format(who=drafting_name(k), calls=row.outcome.target_calls)
                for k in DRAFTER_NAMES if (row := self._row(self.edit_rows, k)) is not None)
            why = (_("Most of an edit is a copy of the text above it, so copying guesses long runs the target keeps, "
                     "and a copy costs no model call at all.") if truth != DRAFTER_NAMES["model"] else
                   _("Here the draft model's guesses were kept more often than the copies: copying only helps where "
                     "the text repeats itself word for word."))
            return _("Target calls for the same {tokens} tokens: {calls}. {why}").format(
                tokens=self.edit_rows[0].new_tokens, calls=calls, why=why)
        return PredictCard(self.state, 12, self.question, choices=list(DRAFTER_NAMES.values()),
                           answer=lambda: DRAFTER_NAMES[cheaper.winner(self.edit_rows).drafting.key],
                           explanation=explain,
                           hint=_("Press “Edit a record” above, then Measure all six, to check."))

    @staticmethod
    def _row(rows, key):
        return next((r for r in rows if r.drafting.key == key), None)

    # --- running ---
    async def _on_run(self, event=None):
        await self.measure()

    def _request(self):
        s = self.state
        return (s.prompt, s.settings, s.gamma, s.seed, getattr(self, "variant", "aligned"))

    async def measure(self) -> list[cheaper.Row] | None:
        """Plain decoding once, then each drafting (one worker job each); the table fills as they come.
        A prompt or setting changed meanwhile is measured next."""
        if self.run_button.disabled:
            return None
        with button_disabled(self.run_button):
            while True:
                ids, request = self.prompt_ids(), self._request()
                if ids is None:
                    return None
                rows = await self._measure(ids, request)
                if rows is not None or request == self._request():
                    return rows

    async def _measure(self, ids, request):
        self.rows, self.plain = [], None
        self._draw()
        base, total = self.request(ids, max_new_tokens=MAX_NEW_TOKENS), len(cheaper.DRAFTINGS)
        for i, d in enumerate(cheaper.DRAFTINGS):
            outcome = await self.run_model(self.state.service.outcome, d.request(base),
                                           message=_("Measuring {drafting} ({i} of {total})…").format(
                                               drafting=drafting_name(d.key), i=i + 1, total=total))
            if outcome is None or request != self._request():     # failed, or the student changed the prompt
                return None
            self.plain = outcome.plain
            self.rows.append(cheaper.Row(d, outcome))
            self._draw()
        if request[0] == preset_by_key("edit").prompt:
            self.edit_rows = list(self.rows)
            if self.predict is not None:
                self.predict.reveal()
        return self.rows

    async def on_settings_changed(self, changed):
        """The table was for the old prompt or settings: measure again if it was on screen."""
        shown = bool(self.rows)
        self.rows, self.plain = [], None
        self._draw()
        if shown:
            await self.measure()

    # --- drawing ---
    def _draw(self):
        s = self.state
        text = s.prompt if len(s.prompt) <= 160 else s.prompt[:157] + "…"
        line = _("Your prompt: {prompt}<br>{settings} · γ = {gamma} for every drafting (the adaptive one starts "
                 "there; auto γ goes up to 12) · {tokens} new tokens").format(
            prompt=f"<code>{html.escape(text)}</code>", settings=html.escape(sampling_words(s.settings)), gamma=s.gamma,
            tokens=MAX_NEW_TOKENS)
        self.prompt_line.object = f"<div class='speclab-formula'>{line}</div>"
        greedy = s.settings.greedy
        busy = busy_html(self.rows[0].outcome.profile) if self.rows else ""    # the warning beside the prices
        self.table.object = busy + rows_html(self.rows, self.plain.target_calls if self.plain else None, greedy) \
            if self.plain else ""
        in_document(self.bars.draw, list(self.rows))
        self.summary.object = self._summary_html()

    def _summary_html(self) -> str:
        if len(self.rows) < len(cheaper.DRAFTINGS):
            return ""
        best = max(self.rows, key=lambda r: r.outcome.speedup)
        fewest = cheaper.winner(self.rows, tuple(d.key for d in cheaper.DRAFTINGS))
        exact = [r.outcome.exact for r in self.rows]
        same = (_("Every drafting wrote exactly plain decoding's text.") if all(e is True for e in exact)
                else "" if any(e is None for e in exact) else _("Some drafting changed the text!"))
        said = dict(name=f"<b>{html.escape(drafting_name(best.drafting.key))}</b>",
                    verdict=html.escape(verdicts.verdict(best.outcome)))
        fastest = (_("Fastest: {name}. {verdict}") if best.outcome.speedup >= 1 else
                   _("None was faster than plain decoding here; the best, {name}: {verdict}")).format(**said)
        fewest_line = _("Fewest target calls: {name} ({calls} for {tokens} tokens).").format(
            name=f"<b>{html.escape(drafting_name(fewest.drafting.key))}</b>", calls=fewest.outcome.target_calls,
            tokens=fewest.new_tokens)
        text = _("The text: {text}").format(text=f"<code>{html.escape(self.plain.text)}</code>")
        return (f"<div class='speclab-live'>{fewest_line} {fastest} {same}<br>{text}"
                + retimed_html(best.outcome) + busy_html(best.outcome.profile)
                + "</div>")

    def body(self):
        return pn.Column(
            pn.pane.HTML(how_html(), sizing_mode="stretch_width", stylesheets=[TABLE_CSS]),
            self.prompt_line,
            pn.Row(self.run_button, self.busy, sizing_mode="stretch_width"),
            self.table,
            pn.pane.Bokeh(self.bars.figure, sizing_mode="stretch_width"),
            self.summary,
            pn.pane.Markdown(
                _("α is chapter 4's acceptance rate, kept ÷ (kept + rejected) guesses (those dropped after a rejection "
                  "are never checked and do not count); c is a guess's cost in one-position target calls (a copy's is "
                  "about 0); the speed-up is plain decoding's decode time ÷ this drafting's, every call priced by this "
                  "pair's measured cost profile — a verify pass over k positions as timed on this machine — as chapter "
                  "11 draws one request. Prompt lookup's guesses are one-hot (q = 1 on the copied token), so a guess "
                  "is kept with probability p(x) and the output stays exact."),
                sizing_mode="stretch_width", styles={"font-size": "1rem", "color": palette.MUTED}),
            sizing_mode="stretch_width")
