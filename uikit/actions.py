"""A page's buttons, each marked by what it does.

    self.draw_button = action(_("Draw 1000"), "draw-many", color="default", width=120)

is a Panel Button whose CSS class is `act-draw-many`: the name the browser tests find it by
(`.act-draw-many button`, through Bokeh's shadow roots), whatever the language of its label."""
from __future__ import annotations

import panel as pn


def action(label: str, hook: str, **params) -> pn.widgets.Button:
    """A button labelled `label` and marked `act-<hook>` (besides any `css_classes` given)."""
    marks = [f"act-{hook}", *params.pop("css_classes", [])]
    return pn.widgets.Button(label=label, css_classes=marks, **params)
