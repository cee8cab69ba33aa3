"""A tour step fills the projector: fixed sizes grow with the screen, figures grow into the free room.

The browser (assets/tour.js) reports two things, and `StageSizer` answers both on the tour's stage:

    scale   how much larger than 1280×720 the screen is: every fixed-size widget, pane and figure on
            the stage, and each figure's type, takes its size at 1280×720 times the scale
    room    after a step is drawn, the free height under its content and the free width beside it:
            the step's figures share it (figures stacked above each other split the height, figures
            of a fixed width split the width); negative room (a step that would scroll, down or
            sideways) shrinks them, and `restore` (what made them shrink has gone, a progress line
            say) gives them back their sizes before they grow again

What a step was given is kept per (step, scale), so coming back to a step draws it at its size at
once. The type grows through CSS (--speclab-scale, assets/tour.css); Bokeh draws a figure's type on
its canvas, so that is set here.

    sizer = StageSizer(stage)
    sizer.rescale(scale=1.5, step=19)
    sizer.fit(scale=1.5, step=19, room={"height": 310, "width": 900})
"""
from __future__ import annotations

import unicodedata

import panel as pn
from bokeh.models import Plot

from uikit.figures import figure_type_sizes, type_size
from intercept.pacing import in_document

SMALLEST = 0.6     # a figure never shrinks below this share of its scaled size


class StageSizer:
    """Sizes the objects on one tour stage (a Panel Column) for the screen the browser reports."""

    def __init__(self, stage: pn.Column):
        self.stage = stage
        self._base: dict[int, tuple] = {}           # id of a sized object -> (it, its sizes at scale 1)
        self._fitted: dict[tuple, dict] = {}        # (step, scale) -> {id(figure): (figure, sizes)}

    # --- the screen's scale ---
    def rescale(self, scale: float, step: int) -> None:
        """Give every fixed-size object on the stage its size at 1280×720 times `scale`: Panel
        widgets and panes directly, Bokeh figures (and their type) where the document lock is held;
        then the sizes this step was fitted to at this scale, if it has been shown before."""
        for obj in self.stage.select(lambda o: isinstance(o, pn.viewable.Layoutable)):
            # keyed by id, holding the object too, so an id is never reused for another object
            _, base = self._base.setdefault(id(obj), (obj, {"width": obj.width, "height": obj.height}))
            sizes = {n: round(v * scale) for n, v in base.items() if v and obj.sizing_mode in (None, "fixed")}
            if "width" in sizes and isinstance(obj, pn.widgets.Button):
                sizes["width"] = max(sizes["width"], _label_width(obj.label, scale))
            elif "width" in sizes and _is_slider(obj) and obj.name:       # its title "Name: value"
                value = f"{obj.value:.2f}" if isinstance(obj.value, float) else str(obj.value)
                sizes["width"] = max(sizes["width"], _title_width(f"{obj.name}: {value}", scale))
            if sizes:
                obj.param.update(**{n: v for n, v in sizes.items() if getattr(obj, n) != v})
        figures = self.figures()
        if figures:
            fitted = self._fitted.get((step, scale), {})
            in_document(self._rescale_figures, figures, scale, fitted)

    def _rescale_figures(self, figures, scale: float, fitted: dict) -> None:
        for fig in figures:
            _, base = self._base.setdefault(id(fig), (fig, figure_sizes(fig)))
            for (model, name), value in base.items():
                new = _scaled(value, scale)
                if model is fig and id(fig) in fitted and name in fitted[id(fig)][1]:
                    new = fitted[id(fig)][1][name]
                if getattr(model, name) != new:
                    setattr(model, name, new)

    # --- the free room ---
    def fit(self, scale: float, step: int, room: dict) -> None:
        """Share the free `room` ({"height": px, "width": px}, from the browser) among the step's
        figures, and remember their sizes for this step at this scale. A `restore` report (content
        that made the figures shrink has gone) gives them their sizes at this scale again first."""
        figures = self.figures()
        if not figures:
            return
        if room.get("restore"):
            self._fitted.pop((step, scale), None)
            in_document(self._rescale_figures, figures, scale, {})
            return
        stacks = max(stacked(self.stage), 1)
        fixed_width = [f for f in figures if f.width and f.sizing_mode in (None, "fixed")]
        dh = float(room.get("height", 0)) / stacks
        dw = float(room.get("width", 0)) / max(len(fixed_width), 1)
        plan = {}
        for fig in figures:
            base = self._base.get(id(fig), (fig, figure_sizes(fig)))[1]
            sizes = {}
            if (fig, "height") in base and fig.height:
                floor = round(base[(fig, "height")] * scale * SMALLEST)
                sizes["height"] = max(floor, round(fig.height + dh))
            if fig in fixed_width and (fig, "width") in base:
                floor = round(base[(fig, "width")] * scale * SMALLEST)
                # free width is taken only with free height; a step too wide always gives width back
                sizes["width"] = max(floor, round(fig.width + (dw if dh > 0 else min(dw, 0))))
            if sizes:
                plan[id(fig)] = (fig, sizes)
        if plan:
            self._fitted[(step, scale)] = {**self._fitted.get((step, scale), {}), **plan}
            in_document(_apply, plan)

    def figures(self) -> list[Plot]:
        """The Bokeh figures on the stage."""
        return [m for pane in self.stage.select(pn.pane.Bokeh) if pane.object is not None
                for m in pane.object.select({"type": Plot})]


def _label_width(label: str, scale: float) -> int:
    """A button's width that shows its whole label (DejaVu Sans at the buttons' 1.05rem of 17 px:
    about 0.6 em a Latin character, 1 em a Chinese one) plus its padding."""
    return round((ems(label, 0.6) * 17.85 + 40) * scale)


def _is_slider(obj) -> bool:
    """A slider widget (a title above a track: start, end and a value)."""
    return isinstance(obj, pn.widgets.Widget) and all(hasattr(obj, n) for n in ("start", "end", "value"))


def _title_width(title: str, scale: float) -> int:
    """A slider's width that shows its whole title (DejaVu Sans at Bokeh's 16 px: about 0.58 em a
    Latin character, 1 em a Chinese one) plus its margins."""
    return round((ems(title, 0.58) * 16 + 16) * scale)


def ems(text: str, latin: float) -> float:
    """How many em `text` takes, at `latin` em a Latin character: a CJK (wide) character takes a
    whole em, whatever the language puts on a button or a slider's title."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else latin for c in text)


def _apply(plan: dict) -> None:
    for fig, sizes in plan.values():
        for name, value in sizes.items():
            if getattr(fig, name) != value:
                setattr(fig, name, value)


def stacked(obj) -> int:
    """How many figures sit above each other in `obj` (a row counts its tallest stack): the free
    height's share each gets (`StageSizer.fit`; the export's player shares it the same way)."""
    if isinstance(obj, pn.pane.Bokeh):
        return 1 if obj.object is not None else 0
    if isinstance(obj, pn.Row):
        return max((stacked(o) for o in obj), default=0)
    if isinstance(obj, pn.layout.ListLike):
        return sum(stacked(o) for o in obj)
    return 0


def pin_width(fig: Plot) -> None:
    """A figure that widens with its page between a least and a greatest width (chapter 6's on a
    projector) is drawn on a tour stage at its least width, fixed: the sizer grows it with the screen
    and shares the free width among the stage's fixed-width figures, as for any fixed figure."""
    if fig.sizing_mode == "stretch_width" and fig.min_width:
        fig.update(sizing_mode="fixed", width=fig.min_width, max_width=None)


def figure_sizes(fig: Plot) -> dict:
    """(model, property) -> value at scale 1 for a figure's fixed width/height and its type sizes
    (what `StageSizer` scales; the export's fit plan, too)."""
    out = {}
    if fig.height and fig.sizing_mode in (None, "fixed", "stretch_width"):
        out[(fig, "height")] = fig.height
    if fig.width and fig.sizing_mode in (None, "fixed", "stretch_height"):
        out[(fig, "width")] = fig.width
    out.update(figure_type_sizes(fig))
    return out


def _scaled(value, k: float):
    return type_size(value, k) if isinstance(value, str) else round(value * k)
