"""Chapter 5 — one target pass gives p at every drafted position, plus one more.

A real round of the engine (a `RoundTrace` with its p and q rows) is drawn as the drafted tokens;
clicking a position shows q and p there side by side, and the context the check assumed. The chart
names its tokens in quotes at 16 px, so "," and "." are told apart on a projector; the size of the
target's answer is said in words (γ + 1 rows, one probability per vocabulary token), not as a shape.
Chapters 8 and 9 step through the same rounds (chapters/rounds.py). Its words are the page's
language (uikit.language), rounds.py's sampling and seed notes said again here as messages; the
tokens as the models wrote them.
"""
from __future__ import annotations

import html
import logging

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from chapters.rounds import MAX_NEW_TOKENS, RoundChapter  # noqa: F401  MAX_NEW_TOKENS: tests/ui
from lab.experiments.display import top_k_union
from lab.core.trace import RoundTrace
from uikit import palette
from intercept.clicks import on_click
from uikit.actions import action
from uikit.figures import paired_bars, static_figure
from intercept.pacing import in_document
from lab.i18n import N_
from uikit.language import Translated, gettext as _
from uikit.panels import sampling_words
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, CHIP_CSS, TABLE_CSS
from uikit.tokens import Chip, TokenStrip, legend, pieces_html, show_text, tok_html, unique_labels

log = logging.getLogger(__name__)

SHOW = 6    # top candidates of each model per position
LABEL_SIZE = "16px"   # the chart's token names: "," and "." must differ at the back of a room


# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker): marked
# here for the catalog (tests/i18n checks it is the bridge's)
KICKER = (N_("How can one call check many tokens?"),)
# The question's choices: the class poll's keys, in English here, in the catalog for the card to show
CHOICES = (N_("Yes — the target already computed it, so we can use it"),
           N_("No — it was computed for a context that contains the wrong guess 2"),
           N_("Only if guess 3 happens to be right"))


def quoted(labels: list[str]) -> list[str]:
    """Token names for the chart, in quotes so that punctuation and spaces show."""
    return [f"“{label}”" for label in labels]


def pass_size_words(rows: int, vocabulary: int) -> str:
    """What one target pass returns, in words (rows × vocabulary)."""
    return _("{rows} distributions p, one per position, each giving a probability to every one of the "
             "{vocabulary} tokens in the vocabulary").format(rows=rows, vocabulary=f"{vocabulary:,}")


def settings_note(settings, state) -> str:
    """chapters.rounds.settings_note in the page's language: what this page samples with."""
    if state.settings.greedy and not settings.greedy:
        return _("Sampling: {settings} on this page — your session is greedy, which would make every p and q "
                 "one-hot (chapter 9's temperature slider goes down to greedy).").format(
            settings=sampling_words(settings))
    return _("Sampling: {settings}.").format(settings=sampling_words(settings))


def seed_note(generation, state) -> str:
    """chapters.rounds.seed_note in the page's language: the rounds shown are not at the student's seed."""
    if generation.seed == state.seed:
        return ""
    return " " + _("Seed {seed}, not your {yours}: the first from yours whose text reaches a round that keeps some "
                   "guesses and corrects one, with no rare draw on the way.").format(seed=generation.seed,
                                                                                    yours=state.seed)


def prefix_text(tokenizer, round_trace: RoundTrace) -> str:
    return tokenizer.decode(round_trace.prefix_ids)


def _sub(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def pass_table_html(r: RoundTrace) -> str:
    """One row per position of the target's pass: the context it assumed, the guess there, q and p."""
    rows = []
    for d in r.guesses:
        context = _("prefix") + "".join(f" + x{_sub(j + 1)}" for j in range(d.index))
        rows.append(f"<tr><td>{d.index + 1}</td><td>{html.escape(context)}</td>"
                    f"<td>{tok_html(d.text)}</td><td>{d.q:.3f}</td><td>{d.p:.3f}</td></tr>")
    context = _("prefix") + "".join(f" + x{_sub(j + 1)}" for j in range(r.gamma))
    nxt, whole = html.escape(_("(next token)")), html.escape(_("the whole row p"))
    rows.append(f"<tr><td>{r.gamma + 1}</td><td>{html.escape(context)}</td><td>{nxt}</td><td>—</td><td>{whole}</td></tr>")
    head = (_("position i"), _("context the target assumed"), _("draft guess x<sub>i</sub>"))
    return ("<table class='speclab-table'><thead><tr>" + "".join(f"<th>{h}</th>" for h in head)
            + f"<th>q(x<sub>i</sub>)</th><th>p(x<sub>i</sub>)</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def assumed_html(r: RoundTrace, i: int) -> str:
    """What the check at position i (0-based; γ is the extra one) assumed, and whether the round
    kept every guess before it (the check is usable) or rejected one (it is thrown away)."""
    chips = ("".join(Chip(d.text, "draft", "").html() for d in r.guesses[:i])
             or "<i>" + html.escape(_("no guesses: just the prefix")) + "</i>")
    verdict = ""
    rej = r.rejected_index
    if rej is not None and rej < i:
        verdict = "<p class='verdict wrong'>" + _(
            "In this round guess {n} (<b>{guess}</b>) was rejected, so this check was made for a context that never "
            "happens: it is thrown away.").format(n=rej + 1, guess=tok_html(r.guesses[rej].text)) + "</p>"
    elif i > 0:
        verdict = "<p class='verdict right'>" + _(
            "Guesses 1…{n} were all kept in this round, so this check is usable.").format(n=i) + "</p>"
    if i < r.gamma:
        guess = tok_html(r.guesses[i].text)
        said = (_("Position {n}: the target's p for guess {n}, <b>{guess}</b> was computed assuming guesses 1…{k} "
                  "are right:") if i > 1 else
                _("Position {n}: the target's p for guess {n}, <b>{guess}</b> was computed assuming guess 1 is "
                  "right:") if i == 1 else
                _("Position {n}: the target's p for guess {n}, <b>{guess}</b> was computed from the prefix "
                  "alone:")).format(n=i + 1, k=i, guess=guess)
    else:
        said = (_("Position {n}: the target's p for the token after all guesses was computed assuming guesses "
                  "1…{k} are right:") if i > 1 else
                _("Position {n}: the target's p for the token after all guesses was computed assuming guess 1 is "
                  "right:") if i == 1 else
                _("Position {n}: the target's p for the token after all guesses was computed from the prefix "
                  "alone:")).format(n=i + 1, k=i)
    return f"<div class='speclab-formula'>{said}</div><div class='chips'>{chips}</div>{verdict}"


class OnePassChapter(RoundChapter):
    number = 5
    slug = "one-pass"
    part = "III"
    kicker = Translated("Question 1 · one pass")
    title = Translated("One pass gives the target’s view at every position.")
    intro = Translated("Call the number of drafted tokens γ. The draft samples each of them from its own "
                       "distribution q. One target pass then returns the target’s distribution p at all γ "
                       "positions — plus one more, for the token after them. Click a position to compare the "
                       "two models.")
    takeaway = Translated("γ cheap draft calls, then one target pass that returns γ + 1 distributions.")
    tour_parts = ("next_button", "round_note", "strip", "bar_fig", "assumed")    # what shell/tour/steps.py shows
    question = Translated("The check at position 3 was computed assuming guesses 1 and 2 are right. Guess 2 turns "
                          "out to be wrong. Is the check at position 3 still usable?")

    position = param.Integer(default=0, doc="The selected position (0-based; γ is the extra one).")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.next_button = action(_("Draft a round"), "draft-round", color="primary", width=160)
        on_click(self.next_button, self._on_next_round)
        self.strip = TokenStrip(clickable=True, empty=_("Press “Draft a round”."))
        self.strip.param.watch(self._on_select, "selected")
        self.round_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.assumed = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, CHIP_CSS, BOX_CSS])
        self.pass_table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self._build_figure()

    # ---- predict -------------------------------------------------------------------------------------
    def make_predict(self):
        self._choices = list(CHOICES)      # the class poll's keys: English, shown translated by the card
        return PredictCard(
            self.state, 5, self.question, choices=self._choices, answer=self._choices[1],
            explanation=_("Position 3's p is the target's view after guesses 1 and 2. Once guess 2 is rejected, "
                          "that context never happens, so p at 3 (and everything after) is thrown away — click a "
                          "position after a rejection below to see it."),
            hint=_("Now click the positions of a round below."))

    # ---- data ----------------------------------------------------------------------------------------
    def restart(self) -> None:
        """Draw the current round with its first position selected."""
        self.next_button.label = _("Next round")
        in_document(self._draw_round)     # raw Bokeh models: changed where the document lock is held

    def _on_select(self, event):
        if event.new is not None and self.round is not None:
            in_document(self.select, event.new - 1)          # chip 0 is the text so far

    # ---- views ---------------------------------------------------------------------------------------
    def _draw_round(self):
        r = self.round
        tok = self.state.service.pair.tokenizer
        chips = [Chip(prefix_text(tok, r), "prompt", _("the text so far (prompt and earlier rounds)"))]
        for d in r.guesses:
            chips.append(Chip(d.text, "draft", _("draft guess {n}: q = {q} — click for p and q").format(
                n=d.index + 1, q=f"{d.q:.3f}")))
        chips.append(Chip(f"p{_sub(r.gamma + 1)}", "target", _(
            "position {n}: the target's p for the token after all guesses").format(n=r.gamma + 1)))
        self.strip.param.update(chips=chips, selected=None)
        n = len(self.generation.rounds)
        head = _("Round {n} of {rounds}: γ = {gamma} draft calls (each x ~ q), then <b>one</b> target call over "
                 "{positions} positions → {size}.").format(n=r.index + 1, rounds=n, gamma=r.gamma,
                                                           positions=r.gamma + 1, size=pass_size_words(*r.p_rows.shape))
        self.round_note.object = (
            f"<p class='speclab-formula'>{head} {html.escape(settings_note(self.settings, self.state))}"
            f"{html.escape(seed_note(self.generation, self.state))} "
            f"{pieces_html([d.text for d in r.guesses], prefix_text(tok, r))}</p>")
        self.pass_table.object = pass_table_html(r)
        self.select(0 if r.gamma else r.gamma)

    def select(self, i: int) -> None:
        """Show q and p at position i (0-based; i == γ is the extra position with p only)."""
        r = self.round
        i = max(0, min(i, r.gamma))
        self.position = i
        tok = self.state.service.pair.tokenizer
        p_row = r.p_rows[i]
        q_row = r.q_rows[i] if i < r.gamma else None
        ids = top_k_union(p_row, q_row, SHOW)
        labels = quoted(unique_labels([tok.decode([t]) for t in ids]))
        self._own_range().factors = labels
        self.bar_src.data = dict(token=labels, p=p_row[ids].tolist(),
                                 q=(q_row[ids] if q_row is not None else np.zeros(len(ids))).tolist())
        top = max(float(p_row[ids].max()), float(q_row[ids].max()) if q_row is not None else 0)
        self.bar_fig.y_range.end = max(0.1, top * 1.2)
        self.bar_fig.title.text = (_("Position {n}: draft q and target p over the top candidates") if q_row is not None
                                   else _("Position {n} (one more): only the target's p — there is no guess "
                                          "here")).format(n=i + 1)
        self.strip.selected = i + 1      # chip 0 is the text so far
        self.assumed.object = assumed_html(r, i)
        if self.predict is not None and i >= 1:
            self.predict.reveal()

    def _own_range(self):
        """The chart's categorical range, the one its bars are dodged on (built with the figure).
        Should the figure hold another range (a browser's change that went wrong can replace it), it
        is named in the log and the chart gets its own range back."""
        if self.bar_fig.x_range is not self.bar_range:
            other = self.bar_fig.x_range
            log.warning("chapter 5: the bar chart's x range was a %s (%s), not its own FactorRange; restored",
                        type(other).__name__, getattr(other, "id", "?"))
            self.bar_fig.x_range = self.bar_range
        return self.bar_range

    def _build_figure(self):
        self.bar_src = ColumnDataSource(dict(token=[], p=[], q=[]))
        f = static_figure(height=300, sizing_mode="stretch_width", x_range=[], y_range=(0, 1),
                          y_axis_label=_("probability"), title="")
        paired_bars(f, self.bar_src, ("q", palette.DRAFT, _("draft q")), ("p", palette.TARGET, _("target p")))
        f.legend.orientation = "horizontal"      # above the plot, where no bar can be under it
        f.add_layout(f.legend[0], "above")
        f.xaxis.major_label_orientation = 0.5
        f.xaxis.major_label_text_font_size = LABEL_SIZE
        f.yaxis.major_label_text_font_size = LABEL_SIZE
        self.bar_fig, self.bar_range = f, f.x_range

    # ---- page ----------------------------------------------------------------------------------------
    def body(self):
        return pn.Column(
            pn.Row(self.next_button, self.busy),
            self.round_note,
            legend(["prompt", "draft", "target"], {"prompt": _("text so far"), "draft": _("a draft guess x ~ q"),
                                                    "target": _("the extra position: p only")}),
            self.strip,
            pn.Row(pn.pane.Bokeh(self.bar_fig, sizing_mode="stretch_width"),
                   pn.Column(self.assumed, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            self.pass_table,
            sizing_mode="stretch_width")
