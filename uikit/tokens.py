"""Token chips: a token's text made visible, one chip per token, strips of chips, lanes and legends.

Model text is untrusted: it is always HTML-escaped before it reaches a pane, and buttons show it as
plain text. Every chip carries its state's colour, icon and underline (colour is never the only cue).

    strip = TokenStrip(chips=[Chip(" cat", "easy"), Chip(" sat", "hard")], clickable=True)
    strip.param.watch(lambda e: show(e.new), "selected")
    lane("Big model", "one call per word", strip, count); legend(["kept", "fixed", "bonus"])
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import panel as pn
import param

from uikit import palette
from intercept.clicks import on_click
from uikit.language import gettext as _
from uikit.styles import CHIP_CSS


def show_text(text: str) -> str:
    """A token's text made visible: spaces at the ends kept, newlines and tabs as symbols."""
    shown = text.replace("\n", "⏎").replace("\t", "⇥")
    return shown if shown.strip() else shown.replace(" ", "␣") or "∅"


@dataclass
class Chip:
    """One token on screen: its text (untrusted model text) and its state (a palette key)."""
    text: str
    state: str
    title: str = ""          # tooltip, plain text

    def html(self, selected: bool = False) -> str:
        icon = palette.icon(self.state)
        title = html.escape(self.title or _("{state}: {token}").format(state=palette.label(self.state),
                                                                        token=repr(self.text)), quote=True)
        cls = f"chip chip-{self.state}" + (" selected" if selected else "")
        ic = f'<span class="ic" aria-hidden="true">{icon}</span>' if icon else ""
        return (f'<span class="{cls}" title="{title}" role="listitem">{ic}'
                f'<span class="tx">{html.escape(show_text(self.text))}</span>'
                f'<span class="sr-only" style="position:absolute;left:-9999px">'
                f' ({html.escape(palette.label(self.state))})</span></span>')


def chips_html(chips: list[Chip], selected: int | None = None, empty: str = "") -> str:
    if not chips:
        return f'<div class="strip-empty">{html.escape(empty)}</div>' if empty else '<div class="chips"></div>'
    body = "".join(c.html(i == selected) for i, c in enumerate(chips))
    return f'<div class="chips" role="list">{body}</div>'


class TokenStrip(pn.viewable.Viewer):
    """A row of token chips, each with its state's colour, icon and underline.

    With `clickable=True` each chip is a button and clicking one sets `selected` to its index.
    """
    chips = param.List(default=[], item_type=Chip, doc="The tokens to show, in order.")
    clickable = param.Boolean(default=False)
    selected = param.Integer(default=None, allow_None=True, doc="Index of the clicked chip.")
    empty = param.String(default="", doc="What to say while there are no tokens.")

    def __init__(self, **params):
        super().__init__(**params)
        self._html = pn.pane.HTML(sizing_mode="stretch_width", stylesheets=[CHIP_CSS], margin=(4, 0))
        self._buttons = None      # a FlexBox of chip buttons, made when the strip first needs them
        self._view = pn.Column(self._html, sizing_mode="stretch_width", margin=0)
        self._render()
        self.param.watch(lambda e: self._render(), ["chips", "clickable", "empty"])
        self.param.watch(lambda e: self._mark_selected(), "selected")

    @property
    def html(self) -> str:
        """The markup of the strip when its chips are not buttons (what a screen reader reads then)."""
        return self._html.object

    @property
    def buttons(self) -> list[pn.widgets.Button]:
        """The chip buttons a clickable strip shows (none otherwise), in the chips' order."""
        return list(self._buttons.objects) if self._buttons is not None and self._buttons.visible else []

    def _render(self):
        if not self.clickable or not self.chips:
            self._html.object = chips_html(self.chips, self.selected, self.empty)
            self._html.visible = True
            if self._buttons is not None:
                self._buttons.visible = False
            return
        buttons = []
        for i, chip in enumerate(self.chips):
            icon = palette.icon(chip.state)
            b = pn.widgets.Button(label=f"{icon} {show_text(chip.text)}".strip(), margin=0,
                                  css_classes=[f"chip-{chip.state}"] + (["selected"] if i == self.selected else []),
                                  stylesheets=[CHIP_CSS],
                                  description=chip.title or _("{state} — click for candidates").format(
                                      state=palette.label(chip.state)))
            on_click(b, lambda e, i=i: setattr(self, "selected", i))
            buttons.append(b)
        if self._buttons is None:   # a FlexBox costs a page ~10 ms to build: only strips that click get one
            self._buttons = pn.FlexBox(sizing_mode="stretch_width", gap="6px", margin=(4, 0))
            self._view.append(self._buttons)
        self._buttons.objects = buttons
        self._html.visible, self._buttons.visible = False, True

    def _mark_selected(self):
        if not self.clickable or self._buttons is None:
            self._html.object = chips_html(self.chips, self.selected, self.empty)
            return
        for i, b in enumerate(self._buttons.objects):
            state_class = [c for c in b.css_classes if c.startswith("chip-")]
            b.css_classes = state_class + (["selected"] if i == self.selected else [])

    def __panel__(self):
        return self._view


def unique_labels(texts: list[str]) -> list[str]:
    """Bokeh factors must be unique; two tokens that look alike get a counter."""
    seen: dict[str, int] = {}
    out = []
    for t in texts:
        label = show_text(t)
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                "nineteen", "twenty")


def word_piece(texts: list[str], before: str = "", sequence: bool = True) -> str | None:
    """The first of `texts` (tokens' texts) that is a piece of a word: letters glued to a letter
    before it (the text `before` it, or in a `sequence` the token before), or in a sequence followed
    by a token that glues letters to it; None when there is none.

    >>> word_piece([" cou", "ch", " and"], "on the")
    ' cou'
    >>> word_piece([" the", " mat"], "on"), word_piece(["ttoman", " sofa"], "the o", sequence=False)
    (None, 'ttoman')
    """
    prev = before
    for i, text in enumerate(texts):
        following = texts[i + 1] if sequence and i + 1 < len(texts) else ""
        if text.strip().isalpha() and ((text[:1].isalpha() and prev[-1:].isalpha()) or following[:1].isalpha()):
            return text
        if sequence:
            prev = text
    return None


def tok_html(text: str) -> str:
    """A token the model wrote, inside a sentence or a table cell: as shown (show_text) and marked as
    the model's text (`tok`), never translated."""
    return f'<span class="tok">{html.escape(show_text(text))}</span>'


def pieces_html(texts: list[str], before: str = "", sequence: bool = True) -> str:
    """One sentence on what a chip is (HTML), with a piece of a word from `texts` as the example when
    there is one (word_piece), marked as the model's text (`tok`): the models write tokens, not words."""
    piece = word_piece(texts, before, sequence)
    if piece is None:
        return html.escape(_("Each token is a word or a piece of one (a leading space belongs to the token)."))
    return html.escape(_("Each token is a word or a piece of one: “{piece}” here is part of a word, and a leading "
                         "space belongs to the token.")).format(
        piece=tok_html(piece))


def in_words(n: int) -> str:
    """A count as a sentence says it: "six" (twenty and below), "21" above."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def plural(n: int, noun: str) -> str:
    """`noun` for one, `noun`s otherwise: "1 browser", "40 browsers"."""
    return noun if n == 1 else f"{noun}s"


def count_html(n: int, label: str) -> str:
    """A big number and its unit, on one line (the lanes' counters)."""
    return (f'<div class="count" style="display:flex;gap:8px;align-items:baseline;white-space:nowrap;'
            f'font-size:1.1rem;color:#1b1b1f"><b style="font-size:1.7rem;color:#1f4e9e">{n}</b>'
            f'<span>{html.escape(label)}</span></div>')


def lane(name: str, note: str, strip, count=None, colour: str = "#1b1b1f", width: int = 200) -> pn.Row:
    """One labelled lane: name, a short note and an optional counter on the left, the strip on the right."""
    head = pn.pane.HTML(f'<div style="font-size:1.15rem;font-weight:700;color:{colour}">{html.escape(name)}</div>'
                        f'<div style="color:#44474d;font-size:1rem">{html.escape(note)}</div>', width=width - 14,
                        margin=(4, 4, 0, 5))
    left = pn.Column(head, count, width=width, margin=0) if count is not None else head
    return pn.Row(left, strip, sizing_mode="stretch_width", margin=(6, 0))


def legend(states: list[str], labels: dict[str, str] | None = None) -> pn.pane.HTML:
    """A legend: a sample chip (colour + icon + underline) and the label of each state."""
    labels = labels or {}
    items = "".join(
        f'<span class="item"><span class="chip chip-{s}"><span class="ic" aria-hidden="true">'
        f'{palette.icon(s)}</span><span class="tx">Aa</span></span>'
        f'{html.escape(labels.get(s, palette.label(s)))}</span>' for s in states)
    return pn.pane.HTML(f'<div class="legend">{items}</div>', stylesheets=[CHIP_CSS],
                        sizing_mode="stretch_width", margin=(6, 0))
