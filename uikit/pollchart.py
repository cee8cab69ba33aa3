"""The class's answers to one question as a histogram: built once, then only its data changes.

    chart = PollChart(["faster", "slower"])          # or PollChart(["0", …, "20"], numeric=True)
    chart.show([12, 28], mine=1, truth=0)            # counts per bar; the student's bar and the answer
    PollChart(choices, compact=True)                 # the legend on one line (the projector)

Bars of a choice question are lettered A, B, … with the choices spelled out beneath; every bar
carries its count, the student's own bar is hatched and labelled "you", the correct one marked ✓
(so colour is never the only cue). `ClassAnswers` is a predict card's place for them: the histogram
beside the verdict once revealed; on the projector before the reveal only how many have answered.
Its words are the page's language (uikit.language); a choice question's categories are the poll's
English keys, shown translated.
"""
from __future__ import annotations

import html
import string

import panel as pn
from bokeh.models import ColumnDataSource, FixedTicker, Range1d

from uikit import palette
from uikit.figures import static_figure
from uikit.language import gettext as _, ngettext
from intercept.pacing import in_document
from uikit.styles import BOX_CSS

LABEL_EVERY = 5       # a number line longer than 11 bars is labelled at every fifth

CHART_CSS = """
.legend { font-size: 1rem; color: #1b1b1f; margin: 2px 0 0; padding-left: 1.4em; line-height: 1.35; }
.legend li { margin: 1px 0; }
.caption { font-size: 1rem; color: #1b1b1f; margin: 2px 0 0; }
"""


class PollChart(pn.viewable.Viewer):
    """Counts per answer as bars, with a text legend and caption that say the same in words."""

    def __init__(self, categories: list[str], numeric: bool = False, height: int = 190, width: int | None = None,
                 compact: bool = False, **params):
        super().__init__(**params)
        self.categories, self.numeric, self.compact = list(categories), numeric, compact
        self.short = self.categories if self.numeric else [string.ascii_uppercase[i] for i in
                                                           range(len(self.categories))]
        # a number question's bars stand on a number line labelled every LABEL_EVERY (0 … 20 at 16 px
        # would run together); a choice question's on its letters
        self.bars = list(range(len(self.short))) if self.numeric else self.short
        self.source = ColumnDataSource(self._data([0] * len(self.categories), None, None))
        sizing = {"width": width} if width else {"sizing_mode": "stretch_width"}
        x_range = Range1d(-0.6, len(self.short) - 0.4) if self.numeric else self.short
        fig = static_figure(x_range=x_range, height=height, min_border_left=30, **sizing)
        fig.vbar(x="bar", top="n", source=self.source, width=0.8, color="colour", hatch_pattern="hatch",
                 hatch_color="white", line_color=palette.INK)
        fig.text(x="bar", y="n", text="label", source=self.source, text_align="center", y_offset=-2,
                 text_baseline="bottom", text_font_size="16px", text_color=palette.INK)
        fig.y_range.start = 0
        fig.y_range.range_padding = 0.5
        fig.yaxis.visible = False
        fig.xaxis.major_label_text_font_size = "16px"
        if self.numeric:
            every = LABEL_EVERY if len(self.short) > 11 else 1
            ticks = list(range(0, len(self.short), every))
            fig.xaxis.ticker = FixedTicker(ticks=ticks, minor_ticks=[])
            fig.xaxis.major_label_overrides = {i: self.short[i] for i in ticks}
        fig.xgrid.visible = fig.ygrid.visible = False
        fig.outline_line_color = None
        self.figure = fig
        self.counts: tuple | None = None
        self.pane = pn.pane.Bokeh(fig, sizing_mode=fig.sizing_mode, margin=0)
        self.words = pn.pane.HTML("", stylesheets=[BOX_CSS, CHART_CSS], sizing_mode="stretch_width", margin=0)

    def _data(self, counts, mine, truth) -> dict:
        total = sum(counts) or 1
        labels, colours, hatches = [], [], []
        for i, n in enumerate(counts):
            tags = ([_("you")] if i == mine else []) + (["✓"] if i == truth else [])
            if n or tags:
                labels.append(f"{n}" + (f" ({round(100 * n / total)}%)" if n and not self.numeric else "")
                              + (f" · {' '.join(tags)}" if tags else ""))
            else:
                labels.append("")
            colours.append(palette.OVERLAP if i == truth else palette.TARGET)
            hatches.append("/" if i == mine else " ")
        return {"bar": self.bars, "n": list(counts), "label": labels, "colour": colours, "hatch": hatches}

    def show(self, counts, mine: int | None = None, truth: int | None = None, caption: str = "",
             mine_left_out: bool = False, with_legend: bool = True) -> None:
        """Draw these counts (one per category); `mine`/`truth` are bar indices or None;
        `mine_left_out`: the student's answer is kept but not counted in these bars; `with_legend=False`:
        the caption alone under the bars."""
        counts = tuple(counts)
        key = (counts, mine, truth)
        if key != self.counts:
            self.counts = key
            in_document(setattr, self.source, "data", self._data(counts, mine, truth))
        total = sum(counts)
        items = []
        for i, (short, long, n) in enumerate(zip(self.short, self.categories, counts)):
            if self.numeric and not n and i not in (mine, truth):
                continue
            yours = (_(" · <b>your answer</b> (not in these bars)") if mine_left_out
                     else _(" · <b>your answer</b>"))
            tags = (yours if i == mine else "") + (_(" · <b>✓ the answer</b>") if i == truth else "")
            name = html.escape(long) if self.numeric else f"<b>{short}</b> {html.escape(_(long))}"
            pct = f" ({round(100 * n / total)}%)" if total else ""
            items.append(f"<li>{name}: {n}{pct}{tags}</li>")
        if self.compact:    # one line (the projector: the step must fit the screen)
            legend = '<p class="caption">' + " · ".join(i[4:-5] for i in items) + "</p>" if items else ""
        else:
            legend = f'<ul class="legend">{"".join(items)}</ul>' if items else ""
        cap = f'<p class="caption">{html.escape(caption)}</p>' if caption else ""
        self.words.object = cap + (legend if with_legend else "")

    def __panel__(self):
        return pn.Column(self.pane, self.words, sizing_mode="stretch_width", margin=0, css_classes=["poll-chart"])


class ClassAnswers:
    """The class's histogram beside a card's verdict: `view` (hidden until shown), its chart built on
    first show (compact on the projector)."""

    def __init__(self, numeric: bool):
        self.numeric = numeric
        self.view = pn.Column(width=420, margin=(6, 0, 0, 12), visible=False, css_classes=["class-answers"])
        self.chart: PollChart | None = None

    def show(self, tally, mine: int | None, truth, live: bool, left_out: bool = False) -> None:
        """Draw `tally` with the student's bar `mine` (`left_out`: kept, not counted in the bars) and,
        when known, the correct answer `truth`. On the projector before the reveal the bars stay
        empty and the caption says how many have answered, never what."""
        categories = tally.question.categories
        if self.chart is None:      # built on first show, in place from then on (the tour sizes it once)
            self.chart = PollChart(categories, numeric=self.numeric, height=live_height(len(categories), self.numeric)
                                   if live else 170, compact=live)
            self.view.objects = [self.chart]
        if live and not tally.revealed:
            self.chart.show((0,) * len(categories), with_legend=False,
                            caption=_("The class is answering: {who}. The bars show once the lecturer reveals "
                                      "the class's answers.").format(who=summary(tally)))
            return
        truth_index = categories.index(str(truth)) if truth is not None and str(truth) in categories else None
        caption = (_("The class's answers (revealed): {who}.") if tally.revealed
                   else _("The class's answers (so far): {who}."))
        self.chart.show(tally.counts, mine=mine, truth=truth_index, caption=caption.format(who=summary(tally)),
                        mine_left_out=left_out)


def live_height(choices: int, numeric: bool) -> int:
    """The projector's chart height (px at scale 1): 120, and 40 more for each choice past four, so
    that beside a long list of choices the chart fills the height the choices take anyway (the
    tour's fit only grows a figure into room under the whole step). A number question's chart is
    the tallest thing on its card: it stays at 120."""
    return 120 if numeric else 120 + 40 * max(0, choices - 4)


def summary(tally) -> str:
    """Who has answered (shell.poll.store.Tally.summary's words) in the page's language: the browsers
    here that answered out of those here, the answers of browsers that have left, and how many
    answers the histogram leaves out."""
    if tally.connected == 0:
        text = _("No browser has a question page open now")
    elif tally.connected == 1:
        text = ngettext("{here} of 1 browser here has answered", "{here} of 1 browser here have answered",
                        tally.here).format(here=tally.here)
    else:
        text = ngettext("{here} of {connected} browsers here has answered",
                        "{here} of {connected} browsers here have answered",
                        tally.here).format(here=tally.here, connected=tally.connected)
    if tally.gone:
        text += ngettext(" · 1 answer from a browser that has left", " · {n} answers from browsers that have left",
                         tally.gone).format(n=tally.gone)
    if tally.left_out:
        text += _(" · {n} not in the histogram (it counts {limit} per network address)").format(
            n=tally.left_out, limit=tally.per_address)
    return text
