"""Sliders whose effect is a closed-form formula, redrawn by the browser: a drag sends nothing.

A page's redraw is one Bokeh `CustomJS` whose code is assets/analytic.js (the formulas of lab/, the
same functions as Python's) followed by the page's own drawing code (assets/<page>.js). Each slider
calls it on every move and keeps its moves in the browser: its Bokeh model is not synced
(`syncable=False`), so neither a drag nor the redraw it causes costs a websocket message or a turn of
the event loop the class shares. When the student lets go (Bokeh's `value_throttled`: the mouse up,
or a key press) the slider sends its value once; Python's parameter follows, and whatever reads it
(the predict card's reveal, Use my models, the student's γ) sees the value the page shows.

    redraw = browser_redraw("ch10_breakeven", curve=self.figs.curve, ...)
    alpha = browser_slider(self.param.alpha, label="α")
    redraw_on_move(redraw, dict(alpha=alpha, gamma=gamma, c=c), dict(readout=self.readout))
"""
from __future__ import annotations

from functools import cache

import panel as pn
import param
from bokeh.models import CustomJS

from uikit.styles import ASSETS

# On a move: the first time, listen for the slider being let go (Bokeh's value_throttled, unset
# until then: the mouse up, or a key press) to send its value to the server once, and stop syncing
# again after that message; then redraw with every slider's value and the panes the redraw writes
# into, found on the page by their class (PANE_CLASS): a pane in a section built later (uikit.lazy)
# is found once it is there, and one a page does not show (a tour step) is left out. A first key
# press sets value_throttled before this first runs: its value is sent from here.
ON_MOVE = """
const s = cb_obj
if (s._speclab_commit === undefined) {
  const released = () => !s.properties.value_throttled.is_unset && s.value_throttled === s.value
  let sent
  s._speclab_commit = () => {
    if (s.value === sent) return
    sent = s.value
    s.setv({syncable: true, value: s.value}, {check_eq: false})
    queueMicrotask(() => { s.syncable = false })
  }
  s.connect(s.properties.value_throttled.change, s._speclab_commit)
  if (released()) s._speclab_commit()
}
const panes = {}
for (const m of s.document.all_models)
  for (const c of m.css_classes ?? [])
    if (c.startsWith(prefix)) panes[c.slice(prefix.length)] = m
redraw.execute(s, Object.assign({%s}, panes))
"""
PANE_CLASS = "speclab-{redraw}-{name}"   # the class that marks a pane a redraw writes into


@cache
def js_code(name: str) -> str:
    """The text of assets/<name>.js."""
    return (ASSETS / f"{name}.js").read_text()


def browser_redraw(page: str, **args) -> CustomJS:
    """One page's redraw: the formulas of assets/analytic.js, then assets/<page>.js, with `args`
    (Bokeh models and plain values); the sliders pass their values and panes as `cb_data`."""
    return CustomJS(code=js_code("analytic") + "\n" + js_code(page), args=args)


class _Unsynced:
    """A Panel slider whose Bokeh model is created and kept unsynced: the browser keeps its moves."""

    def _process_param_change(self, params):
        params = super()._process_param_change(params)
        params["syncable"] = False
        return params


class FloatSlider(_Unsynced, pn.widgets.FloatSlider):
    """A float slider whose drag stays in the browser (browser_slider)."""


class IntSlider(_Unsynced, pn.widgets.IntSlider):
    """An integer slider whose drag stays in the browser (browser_slider)."""


def browser_slider(parameter: param.Parameter, **kwargs) -> pn.widgets.Widget:
    """A slider for a chapter's `parameter` whose moves stay in the browser: Python's parameter
    follows when the student lets go (wire its redraw with `redraw_on_move`)."""
    kind = IntSlider if isinstance(parameter, param.Integer) else FloatSlider
    slider = kind.from_param(parameter, **kwargs)
    # Panel holds every change from the browser 50 ms (its private `Syncable._debounce`) to gather a
    # drag's moves; a release is one change, so it reaches Python at once.
    slider._debounce = 0
    return slider


def redraw_on_move(redraw: CustomJS, sliders: dict[str, pn.widgets.Widget], panes: dict | None = None) -> None:
    """Every slider of `sliders` (cb_data name -> slider) runs `redraw` on every move with all their
    values and `panes` (cb_data name -> Panel pane whose model the redraw writes into; each marked
    with PANE_CLASS, where the move finds it on the page)."""
    prefix = PANE_CLASS.format(redraw=redraw.id, name="")
    for name, pane in (panes or {}).items():
        mark = prefix + name
        if mark not in pane.css_classes:
            pane.css_classes = [*pane.css_classes, mark]
    values = ", ".join(f"{name}: {name}.value" for name in sliders)
    code = ON_MOVE % values
    for slider in sliders.values():
        slider.jscallback(args=dict(sliders, redraw=redraw, prefix=prefix), value=code)
