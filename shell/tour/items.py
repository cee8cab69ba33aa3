"""The live components under a tour step's text: one chapter's own objects, built once per session.

A step (shell/tour/steps.py) names what of its chapter to show; `StepItems` builds that chapter's
object for this session (through the registry, once per chapter) and hands out its attributes, so
what the lecturer presses in step 17 is still there in step 18, and in the chapter afterwards. A
chapter that cannot be built, or a step that cannot be drawn, shows one sentence instead.

    items = StepItems(state)
    items.objects_for(19)      # chapter 6's sliders beside its region figure
"""
from __future__ import annotations

import html
import logging
import unicodedata

import panel as pn
from bokeh.model import Model as BokehModel

from chapters import registry
from chapters.registry import PARTS
from shell.tour.fit import pin_width
from shell.tour.steps import TOUR, first_step, label
from uikit.language import gettext as _
from uikit.panels import takeaway_box
from uikit.state import LabState
from uikit.styles import sheet
from uikit.tokens import lane, legend

log = logging.getLogger(__name__)

TOUR_CSS = sheet("tour")
STAGE_CSS = sheet("tour-stage")      # small print of the chapters' sheets, raised on the projector


class StepItems:
    """One session's chapters and the Panel objects the tour's steps show from them."""

    def __init__(self, state: LabState):
        self.state = state
        self._chapters: dict[int, object] = {}      # chapter number -> its Chapter, built once
        self._items: dict[tuple, object] = {}       # (chapter, item) -> its Panel object, built once

    def chapter(self, number: int):
        """This session's object of chapter `number`, built once."""
        if number not in self._chapters:
            self._chapters[number] = registry.build(registry.page_by_number(number), self.state)
            self.body(number)    # some chapters finish wiring their widgets in body()
        return self._chapters[number]

    def body(self, number: int):
        """The whole page body of chapter `number` (built once)."""
        key = (number, "body")
        if key not in self._items:
            self._items[key] = self._chapters[number].body()
        return self._items[key]

    def objects_for(self, step: int) -> list:
        """What goes under step `step`'s text (a note instead where its chapter or step fails)."""
        spec = TOUR[step - 1]
        number = spec["chapter"]
        if number == 0:
            return [self.item(0, "overview")]
        try:
            self.chapter(number)
        except Exception as err:     # a chapter in progress must not take the tour down
            log.exception("tour: chapter %s could not be built", number)
            return [note(_("Chapter {n} could not be built ({error}); the other steps work — press → to go on.").format(
                n=number, error=f"{type(err).__name__}: {err}"), "tour-error")]
        try:
            objects = [self.item(number, s) for s in spec.get("show", ["body"])]
        except Exception as err:
            log.exception("tour: step %s could not be drawn", step)
            return [note(_("This step could not be drawn ({error}); press → to go on.").format(
                error=f"{type(err).__name__}: {err}"), "tour-error")]
        # the HTML panes' small print and the fields' text (a browser draws an input's text at
        # 13.3 px whatever the page's type) at the stage's sizes, before the page draws them
        for pane in (p for obj in objects for p in _inside(obj, (pn.pane.HTML, pn.widgets.Widget))):
            if STAGE_CSS not in pane.stylesheets and not isinstance(pane, pn.widgets.Button):
                pane.stylesheets = [*pane.stylesheets, STAGE_CSS]
        for button in (b for obj in objects for b in _inside(obj, pn.widgets.Button)):
            # the step's sentence says what its buttons do; a tooltip left open by the lecturer's
            # pointer would cover the control beside the button (step 3's speed toggle)
            if button.description is not None:
                button.description = None
        return objects

    def selecting(self, step: int):
        """The strip whose chip step `step` selects (its "select"); None where the step selects none
        or its chapter is not built."""
        spec, number = TOUR[step - 1].get("select"), TOUR[step - 1]["chapter"]
        return self.attribute(number, spec["strip"]) if spec and number in self._chapters else None

    def select_first(self, step: int) -> bool:
        """Step `step`'s "select": the first chip of its strip in the preferred state (else the first
        chip) is selected, where the strip has chips and none is selected; True when one was."""
        strip = self.selecting(step)
        if strip is None or not strip.chips or strip.selected is not None:
            return False
        states = [chip.state for chip in strip.chips]
        prefer = TOUR[step - 1]["select"].get("prefer")
        strip.selected = states.index(prefer) if prefer in states else 0
        return True

    def item(self, number: int, spec, in_row: bool = False):
        """The Panel object for one `show` item of a step about chapter `number` (built once).

        A list is a row of items, or a column when it sits inside a row (`in_row`).
        """
        key = (number, repr(spec), in_row)
        if key not in self._items:
            self._items[key] = self._make(number, spec, in_row)
        return self._items[key]

    def _make(self, number: int, spec, in_row: bool):
        ch = self._chapters.get(number)
        if isinstance(spec, list):
            children = [self.item(number, s, in_row=not in_row) for s in spec]
            if in_row:
                return pn.Column(*children, margin=0)
            return pn.Row(*children, sizing_mode="stretch_width", margin=0)
        if isinstance(spec, dict) and "lane" in spec:
            strip = self.attribute(number, spec["strip"])
            count = self.attribute(number, spec["count"]) if spec.get("count") else None
            return lane(label(spec["lane"]), "", strip, count)
        if isinstance(spec, dict) and "legend" in spec:
            labels = {state: label(text) for state, text in (spec.get("labels") or {}).items()}
            return legend(spec["legend"], labels or None)
        if isinstance(spec, dict) and "item" in spec:
            obj = self.item(number, spec["item"], in_row)
            if "width" in spec:
                obj.param.update(width=spec["width"], sizing_mode="fixed")
            if spec.get("class") and spec["class"] not in obj.css_classes:
                obj.css_classes = [*obj.css_classes, spec["class"]]
            return obj
        if isinstance(spec, dict) and "button" in spec:
            return self.button(number, spec["button"])
        if spec == "overview":
            return pn.pane.HTML(overview_html(), stylesheets=[TOUR_CSS], sizing_mode="stretch_width")
        if spec == "predict":
            return ch.predict.projected() if ch.predict is not None else self._missing(number, spec)
        if spec == "takeaway":
            return takeaway_box(ch.takeaway)
        if spec == "closing":
            return pn.pane.HTML(closing_html(), stylesheets=[TOUR_CSS], sizing_mode="stretch_width", margin=(4, 0))
        if spec == "body":
            return self.body(number)
        return self.attribute(number, spec)

    def attribute(self, number: int, name: str):
        """The chapter's attribute `name` (a raw Bokeh figure in a pane of its own)."""
        value = getattr(self._chapters[number], name, None)
        if value is None:
            return self._missing(number, name)
        if isinstance(value, BokehModel):     # a raw Bokeh figure: one pane per figure
            key = (number, "bokeh", name)
            if key not in self._items:
                pin_width(value)
                self._items[key] = pn.pane.Bokeh(value, sizing_mode=value.sizing_mode)
            return self._items[key]
        return value

    def button(self, number: int, label: str):
        """The chapter's button labelled `label` (its English message: the page may show it translated;
        an empty spacer while the chapter has none)."""
        found = [b for b in self.body(number).select(pn.widgets.Button) if b.label in (label, _(label))]
        if not found:
            log.warning("tour: chapter %s has no button %r; the step shows the rest", number, label)
            return pn.Spacer(width=0, height=0, margin=0)
        return found[0]

    def _missing(self, number: int, name: str):
        log.warning("tour: chapter %s has no %r; showing its whole body", number, name)
        return pn.Column(note(_("(This step shows the whole chapter {n}: it has no “{name}” component.)").format(
                              n=number, name=name)),
                         self.body(number), sizing_mode="stretch_width", margin=0,
                         css_classes=["tour-missing"])


def overview_html() -> str:
    """Step 1, in the page's language: the parts and their chapters, each a link to its first tour
    step; the parts side by side, each column as wide as its longest chapter name asks."""
    cards, widths = [], []
    for key, part in PARTS.items():
        pages = [p for p in registry.chapter_pages() if p.part == key]
        titles = {p.number: _(p.title).rstrip(".。") for p in pages}
        name = _(part["name"])
        items = "".join(
            f'<li><a href="?tour={first_step(p.number)}">{p.number} · {html.escape(titles[p.number])}</a></li>'
            for p in pages)
        heading = html.escape(_("Part {part} · {name}").format(part=key, name=name))
        cards.append(f'<section class="part-{key}"><h2>{heading}</h2><ul>{items}</ul></section>')
        widths.append(max([text_width(t) + 5 for t in titles.values()] + [text_width(name) + 9, 16]))
    columns = " ".join(f"minmax(0, {w}fr)" for w in widths)
    keys = _("<kbd>→</kbd>, <kbd>Space</kbd> or a clicker next · <kbd>←</kbd> back · <kbd>F</kbd> fullscreen · "
             "<kbd>Esc</kbd> leave the tour")
    return (f'<div class="tour-overview" style="grid-template-columns: {columns}">{"".join(cards)}</div>'
            f'<p class="tour-keys">{keys}</p>')


def closing_html() -> str:
    """The tour's last words, in the page's language: what the lecture showed, in one breath, and
    where to go from here."""
    return '<div class="tour-closing" role="note">{}</div>'.format(_(
        "<b>End of the tour.</b> The target checks every guess in one call and the text stays its own; how "
        "much faster depends on your text and machine. <a href=\"?\">The chapters</a> · <kbd>Esc</kbd> leave"))


def text_width(text: str) -> float:
    """How wide `text` is, in the widths of a Latin letter: a CJK (wide) character is about two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def note(text: str, cls: str = "tour-note") -> pn.pane.HTML:
    """One sentence in place of a step's components (`tour-error`: read out as an alert)."""
    role = ' role="alert"' if cls == "tour-error" else ""
    return pn.pane.HTML(f'<div class="{cls}"{role}>{html.escape(text)}</div>', stylesheets=[TOUR_CSS],
                        sizing_mode="stretch_width", margin=(4, 0), css_classes=[cls])


def _inside(obj, kind):
    """The objects of type `kind` in a layout, also inside the components (Viewers) it holds."""
    if isinstance(obj, pn.viewable.Viewer):
        obj = obj.__panel__()
    if isinstance(obj, kind):
        yield obj
    for child in getattr(obj, "objects", None) or []:
        yield from _inside(child, kind)
