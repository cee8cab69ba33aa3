"""Chapter 5 — one target pass gives p at every drafted position, plus one more.

A real round of the engine (a `RoundTrace` with its p and q rows) is drawn as the drafted tokens;
clicking a position shows q and p there side by side, and the context the check assumed. The chart
names its tokens in quotes at 16 px, so "," and "." are told apart on a projector; the size of the
target's answer is said in words (γ + 1 rows, one probability per vocabulary token), not as a shape.
Chapters 8 and 9 step through the same rounds (chapters/rounds.py).
"""
from __future__ import annotations

import html
import logging

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from chapters.rounds import MAX_NEW_TOKENS, RoundChapter, seed_note, settings_note  # noqa: F401  MAX_NEW_TOKENS: tests/ui
from lab.experiments.display import top_k_union
from lab.core.trace import RoundTrace
from uikit import palette
from intercept.clicks import on_click
from uikit.figures import paired_bars, static_figure
from intercept.pacing import in_document
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, CHIP_CSS, TABLE_CSS
from uikit.tokens import Chip, TokenStrip, legend, pieces_note, show_text, unique_labels

log = logging.getLogger(__name__)

SHOW = 6    # top candidates of each model per position
LABEL_SIZE = "16px"   # the chart's token names: "," and "." must differ at the back of a room


def quoted(labels: list[str]) -> list[str]:
    """Token names for the chart, in quotes so that punctuation and spaces show."""
    return [f"“{label}”" for label in labels]


def pass_size_words(rows: int, vocabulary: int) -> str:
    """What one target pass returns, in words (rows × vocabulary)."""
    return (f"{rows} distributions p, one per position, each giving a probability to every one of the "
            f"{vocabulary:,} tokens in the vocabulary")


def prefix_text(tokenizer, round_trace: RoundTrace) -> str:
    return tokenizer.decode(round_trace.prefix_ids)


def _sub(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def pass_table_html(r: RoundTrace) -> str:
    """One row per position of the target's pass: the context it assumed, the guess there, q and p."""
    rows = []
    for d in r.guesses:
        context = "prefix" + "".join(f" + x{_sub(j + 1)}" for j in range(d.index))
        rows.append(f"<tr><td>{d.index + 1}</td><td>{html.escape(context)}</td>"
                    f"<td>{html.escape(show_text(d.text))}</td><td>{d.q:.3f}</td><td>{d.p:.3f}</td></tr>")
    context = "prefix" + "".join(f" + x{_sub(j + 1)}" for j in range(r.gamma))
    rows.append(f"<tr><td>{r.gamma + 1}</td><td>{html.escape(context)}</td><td>(next token)</td>"
                "<td>—</td><td>the whole row p</td></tr>")
    return ("<table class='speclab-table'><thead><tr><th>position i</th><th>context the target "
            "assumed</th><th>draft guess x<sub>i</sub></th><th>q(x<sub>i</sub>)</th>"
            f"<th>p(x<sub>i</sub>)</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def assumed_html(r: RoundTrace, i: int) -> str:
    """What the check at position i (0-based; γ is the extra one) assumed, and whether the round
    kept every guess before it (the check is usable) or rejected one (it is thrown away)."""
    chips = "".join(Chip(d.text, "draft", "").html() for d in r.guesses[:i]) or "<i>no guesses: just the prefix</i>"
    what = (f"the target's p for guess {i + 1}, <b>{html.escape(show_text(r.guesses[i].text))}</b>"
            if i < r.gamma else "the target's p for the token after all guesses")
    verdict = ""
    rej = r.rejected_index
    if rej is not None and rej < i:
        verdict = (f"<p class='verdict wrong'>In this round guess {rej + 1} "
                   f"(<b>{html.escape(show_text(r.guesses[rej].text))}</b>) was rejected, so this check "
                   "was made for a context that never happens: it is thrown away.</p>")
    elif i > 0:
        verdict = (f"<p class='verdict right'>Guesses 1…{i} were all kept in this round, so this check "
                   "is usable.</p>")
    assumed = f"assuming guesses 1…{i} are right" if i > 1 else ("assuming guess 1 is right" if i == 1
                                                                  else "from the prefix alone")
    return (f"<div class='speclab-formula'>Position {i + 1}: {what} was computed {assumed}:</div>"
            f"<div class='chips'>{chips}</div>{verdict}")


class OnePassChapter(RoundChapter):
    number = 5
    slug = "one-pass"
    part = "III"
    kicker = "Question 1 · one pass"
    title = "One pass gives the target’s view at every position."
    intro = ("Call the number of drafted tokens γ. The draft samples each of them from its own "
             "distribution q. One target pass then returns the target’s distribution p at all γ "
             "positions — plus one more, for the token after them. Click a position to compare the "
             "two models.")
    takeaway = "γ cheap draft calls, then one target pass that returns γ + 1 distributions."
    tour_parts = ("next_button", "round_note", "strip", "bar_fig", "assumed")    # what shell/tour/steps.py shows
    question = ("The check at position 3 was computed assuming guesses 1 and 2 are right. Guess 2 turns "
                "out to be wrong. Is the check at position 3 still usable?")

    position = param.Integer(default=0, doc="The selected position (0-based; γ is the extra one).")

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.next_button = pn.widgets.Button(label="Draft a round", color="primary", width=160)
        on_click(self.next_button, self._on_next_round)
        self.strip = TokenStrip(clickable=True, empty="Press “Draft a round”.")
        self.strip.param.watch(self._on_select, "selected")
        self.round_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.assumed = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, CHIP_CSS, BOX_CSS])
        self.pass_table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self._build_figure()

    # ---- predict -------------------------------------------------------------------------------------
    def make_predict(self):
        self._choices = ["Yes — the target already computed it, so we can use it",
                         "No — it was computed for a context that contains the wrong guess 2",
                         "Only if guess 3 happens to be right"]
        return PredictCard(
            self.state, 5, self.question, choices=self._choices, answer=self._choices[1],
            explanation=("Position 3's p is the target's view after guesses 1 and 2. Once guess 2 is "
                         "rejected, that context never happens, so p at 3 (and everything after) is "
                         "thrown away — click a position after a rejection below to see it."),
            hint="Now click the positions of a round below.")

    # ---- data ----------------------------------------------------------------------------------------
    def restart(self) -> None:
        """Draw the current round with its first position selected."""
        self.next_button.label = "Next round"
        in_document(self._draw_round)     # raw Bokeh models: changed where the document lock is held

    def _on_select(self, event):
        if event.new is not None and self.round is not None:
            in_document(self.select, event.new - 1)          # chip 0 is the text so far

    # ---- views ---------------------------------------------------------------------------------------
    def _draw_round(self):
        r = self.round
        tok = self.state.service.pair.tokenizer
        chips = [Chip(prefix_text(tok, r), "prompt", "the text so far (prompt and earlier rounds)")]
        for d in r.guesses:
            chips.append(Chip(d.text, "draft", f"draft guess {d.index + 1}: q = {d.q:.3f} — click for p and q"))
        chips.append(Chip(f"p{_sub(r.gamma + 1)}", "target",
                          f"position {r.gamma + 1}: the target's p for the token after all guesses"))
        self.strip.param.update(chips=chips, selected=None)
        n = len(self.generation.rounds)
        self.round_note.object = (
            f"<p class='speclab-formula'>Round {r.index + 1} of {n}: γ = {r.gamma} draft calls "
            f"(each x ~ q), then <b>one</b> target call over {r.gamma + 1} positions → "
            f"{pass_size_words(*r.p_rows.shape)}. {html.escape(settings_note(self.settings, self.state))}"
            f"{html.escape(seed_note(self.generation, self.state))} "
            f"{html.escape(pieces_note([d.text for d in r.guesses], prefix_text(tok, r)))}</p>")
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
        self.bar_fig.title.text = (f"Position {i + 1}: draft q and target p over the top candidates"
                                   if q_row is not None else
                                   f"Position {i + 1} (one more): only the target's p — there is no guess here")
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
                          y_axis_label="probability", title="")
        paired_bars(f, self.bar_src, ("q", palette.DRAFT, "draft q"), ("p", palette.TARGET, "target p"))
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
            legend(["prompt", "draft", "target"], {"prompt": "text so far", "draft": "a draft guess x ~ q",
                                                    "target": "the extra position: p only"}),
            self.strip,
            pn.Row(pn.pane.Bokeh(self.bar_fig, sizing_mode="stretch_width"),
                   pn.Column(self.assumed, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            self.pass_table,
            sizing_mode="stretch_width")
