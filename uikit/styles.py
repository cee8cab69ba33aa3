"""The stylesheets of the lab's components, read once from assets/.

Bokeh widgets and panes live in shadow roots, so page CSS cannot reach them: each component passes
the sheets it needs (`stylesheets=[styles.BOX_CSS]`). The chip colours come from the palette, the
one place for colours.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

from uikit import palette

ASSETS = Path(__file__).resolve().parents[1] / "assets"


@cache
def sheet(name: str) -> str:
    """The text of assets/<name>.css."""
    return (ASSETS / f"{name}.css").read_text()


def chip_rules() -> str:
    """One rule per token state: its colour and its underline (the second cue)."""
    rules = []
    for state, (col, _icon, _label) in palette.TOKEN_STATES.items():
        deco = palette.UNDERLINE.get(state, "none")
        rules.append(f".chip-{state}, :host(.chip-{state}) .bk-btn {{ background: {col} !important;"
                     f" border-color: {col} !important; color: #fff !important; text-decoration: {deco}; }}")
    return "\n".join(rules)


CHIP_CSS = sheet("chips") + chip_rules()
BOX_CSS = sheet("boxes")            # takeaway, predict card, verdicts, working line, errors, badge
TABLE_CSS = sheet("tables")         # tables and formula read-outs of Part III
CHOICE_CSS = sheet("choices")       # the predict card's choice buttons
HEADER_CSS = sheet("chapter-header")
SHELL_CSS = sheet("shell")
