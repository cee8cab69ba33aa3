"""Bokeh figures for the lab's pages: no tools, and type legible on a projector.

    fig = static_figure(height=300, sizing_mode="stretch_width", title="…")
    finish_figures(view)          # every figure in a Panel view: type raised to PAGE_TYPE, and its
                                  # glyphs' unused copies left to the browser
"""
from __future__ import annotations

import re
from functools import partial

import panel as pn
from bokeh.models import (AllIndices, AllLabels, BasicTicker, BasicTickFormatter, CategoricalTicker,
                          CategoricalTickFormatter, ColumnDataSource, CustomJSTickFormatter, GlyphRenderer,
                          UnionRenderers)
from bokeh.plotting import figure
from bokeh.transform import dodge

from lab import i18n
from uikit import palette
from uikit.language import gettext as _, page_language


def static_figure(**kwargs):
    """A Bokeh figure for the lab's pages: no toolbar and no tools. Hidden pan/zoom tools only let a
    student drag a plot away with no visible reset, and each costs the page models to build.
    A figure the browser redraws (uikit.browser) passes `syncable=False`: its size as laid out in the
    browser (which a redraw may change) is then not sent to the server, which never reads it."""
    return figure(toolbar_location=None, tools="", **kwargs)


def page_sources():
    """A maker of a page's data sources, `source(**columns)`, all sharing one selection policy: the
    lab's figures select nothing, and each policy saved is a model less to build and send (sources a
    figure draws share theirs in finish_figures; these serve sources made before their figures)."""
    policy = UnionRenderers()

    def source(**columns) -> ColumnDataSource:
        return ColumnDataSource(data=columns, selection_policy=policy)
    return source


_TYPE_SIZE = re.compile(r"^([0-9.]+)(px|pt)$")
MIN_TYPE = {"px": 14.0, "pt": 10.5}   # a tour figure's smallest type at 1280×720 (×1.5 on a 1920 projector)
# A chapter page's smallest figure type, at every screen size: a page does not know the screen it is
# on (the tour does, shell/tour/fit.py), and a lecturer projects chapter pages too, where figure text
# must be 16 px or more at 1920×1080 (CHAPTERS.md, In the lecture hall).
PAGE_TYPE = {"px": 16.0, "pt": 12.0}


def figure_type_sizes(fig) -> dict:
    """(model, property) -> size, for every fixed type size ("12px", "9pt") in a Bokeh figure: its
    title, axes, legends and labels (the figure's side and centre panels) and the text its glyphs
    draw (`fig.text` labels on bars and lanes), so all of them grow together on a projector."""
    out = {}
    glyphs = [getattr(r, "glyph", None) for r in getattr(fig, "renderers", [])]
    for model in (fig.title, *fig.above, *fig.below, *fig.left, *fig.right, *fig.center, *glyphs):
        if model is None or isinstance(model, str):
            continue
        for name in model.properties():
            if name.endswith("text_font_size"):
                value = getattr(model, name)
                value = getattr(value, "value", value)     # a glyph's size is a Value
                if isinstance(value, str) and _TYPE_SIZE.match(value):
                    out[(model, name)] = value
    return out


def type_size(value: str, k: float = 1.0, floor: dict = MIN_TYPE) -> str:
    """A type size raised to `floor` (MIN_TYPE: the tour's, at 1280×720), then scaled by k."""
    number, unit = _TYPE_SIZE.match(value).groups()
    return f"{max(float(number), floor[unit]) * k:.1f}{unit}"


def projector_type(fig, size: str = "16px") -> None:
    """A figure's title, axis labels and tick labels at `size`, legible from the back of a lecture
    hall (for figures whose labels carry the page, as chapters 12 and 13's bars)."""
    fig.title.text_font_size = size
    for axis in (*fig.xaxis, *fig.yaxis):
        axis.axis_label_text_font_size = axis.major_label_text_font_size = size


def finish_figures(view, floor: dict = PAGE_TYPE, shared: dict | None = None) -> None:
    """Every Bokeh figure in a Panel view made ready for a page, in one pass: its type (legends,
    axes, labels) raised to `floor` (PAGE_TYPE), and its renderers' nonselection and muted glyphs left to the
    browser ("auto"). Bokeh's glyph methods build both copies of each glyph on the server; the lab's
    figures have no selection tools and no legends that mute, so the copies only add models for every
    page to build, send and walk (chapter 10: 16 of its ~190). A section of the view built later
    (uikit.lazy.Lazy) finishes its figures the same way, sharing the page's stateless models."""
    shared = {} if shared is None else shared
    for section in view.select(lambda obj: getattr(type(obj), "builds_later", False)):   # uikit.lazy.Lazy
        section.finish = partial(finish_figures, floor=floor, shared=shared)
    for pane in view.select(pn.pane.Bokeh):
        if pane.object is None:
            continue
        for (model, name), value in figure_type_sizes(pane.object).items():
            setattr(model, name, type_size(value, floor=floor))
        for renderer in getattr(pane.object, "renderers", ()):
            if isinstance(renderer, GlyphRenderer):
                renderer.update(nonselection_glyph="auto", muted_glyph="auto")
        share_stateless(pane.object, shared)


# Models that hold no state of their own in the browser: one of each (with the same settings) serves
# every figure of a page, and each copy saved is a model less to build, send and walk.
STATELESS = (BasicTicker, BasicTickFormatter, CategoricalTicker, CategoricalTickFormatter, AllLabels)


# A number axis's tick as the page's language writes it: the shortest decimal of the tick (no float
# noise such as 0.30000000000000004), its decimal point swapped for the language's sign
DECIMAL_TICKS = "return String(Number(tick.toPrecision(12))).replace('.', decimal)"


def decimal_formatter() -> CustomJSTickFormatter | None:
    """A number formatter (an axis's ticks, a slider's value) writing the page's decimal sign, or None
    where the page writes a decimal point, as Bokeh does."""
    decimal = i18n.number_format(page_language()).get("decimal", ".")
    return None if decimal == "." else CustomJSTickFormatter(args={"decimal": decimal}, code=DECIMAL_TICKS)


def _key(model) -> tuple:
    return type(model), tuple(sorted((k, repr(v)) for k, v in model.properties_with_values(include_defaults=False)
                                     .items() if k != "id"))


def share_stateless(fig, shared: dict) -> None:
    """Replace `fig`'s tickers, tick formatters and label policies, its sources' selection policies
    and its views' filters by the page's one copy of each (`shared`: settings -> model)."""
    def one(model):
        return shared.setdefault(_key(model), model)
    if not hasattr(fig, "renderers"):
        return
    comma = decimal_formatter()
    for axis in (*fig.xaxis, *fig.yaxis):
        formatter = axis.formatter
        if comma is not None and type(formatter) is BasicTickFormatter:     # the page writes "0,5", not "0.5"
            formatter = comma
        axis.update(ticker=one(axis.ticker), formatter=one(formatter),
                    major_label_policy=one(axis.major_label_policy))
    for grid in fig.grid:
        if not isinstance(grid.ticker, (str, type(None))):
            grid.ticker = one(grid.ticker)
    for renderer in fig.renderers:
        if isinstance(renderer, GlyphRenderer):
            source = renderer.data_source
            if isinstance(getattr(source, "selection_policy", None), UnionRenderers):
                source.selection_policy = one(source.selection_policy)
            if isinstance(renderer.view.filter, AllIndices):
                renderer.view.filter = one(renderer.view.filter)


def region_bars(fig, regions_source, lines_source, labels: tuple[str, str, str], width: float = 0.7,
                half: float = 0.38) -> None:
    """Per token, stacked bars of `lab.experiments.display.regions` (both agree · draft too eager · draft too
    shy, each with its colour and hatch), and p as a solid line, q as a dashed one across each bar.
    Both sources have a "token" column; the first holds agree/eager/shy, the second p and q."""
    fig.vbar_stack(["agree", "eager", "shy"], x="token", source=regions_source, width=width,
                   color=[palette.OVERLAP, palette.EAGER, palette.RESIDUAL],
                   hatch_pattern=[" ", "/", "."], hatch_color="white", legend_label=list(labels))
    for column, colour, dash, label in (("p", palette.TARGET, "solid", _("target p (solid line)")),
                                        ("q", palette.DRAFT, "dashed", _("draft q (dashed line)"))):
        fig.segment(x0=dodge("token", -half, range=fig.x_range), x1=dodge("token", half, range=fig.x_range),
                    y0=column, y1=column, source=lines_source, line_width=3, color=colour, line_dash=dash,
                    legend_label=label)


def paired_bars(fig, source, left: tuple[str, str, str], right: tuple[str, str, str]) -> None:
    """Two bars per token side by side, each (column, colour, legend label); the left one hatched."""
    for (column, colour, label), offset, hatch in ((left, -0.18, "/"), (right, 0.18, " ")):
        fig.vbar(x=dodge("token", offset, range=fig.x_range), top=column, source=source, width=0.34,
                 color=colour, hatch_pattern=hatch, hatch_color="white", legend_label=label)
