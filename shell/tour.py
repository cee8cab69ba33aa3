"""The guided tour: full screen, one step per page, for a projector.

`build_tour(state, step)` is what the shell serves at `/app?tour=N`. Each step (shell/tour_steps.py)
is a short text in large type above *live* components of one chapter: the tour builds that chapter's
object for this session (through the registry, once per chapter) and shows the attributes the step
names — the same buttons, strips and figures as the chapter page, so what the lecturer presses in
step 17 is still there in step 18, and in the chapter afterwards.

Moving between steps happens in the browser (TourDeck, assets/tour.js: → / Space / PageDown, ← / PageUp
(a presenter's clicker), Esc, buttons, a chapter menu); the URL follows as ?tour=N, so a lecturer can
resume at any step. While a step is shown, the next one's components are built (`prefetch`).

On a projector the step fills the screen (shell/tour_fit.py): the browser reports how much larger
than 1280×720 the screen is and how much room the drawn step leaves; fixed sizes and the figures'
type follow the first, the step's figures grow into the second.

    tour = Tour(state, step=17)   # tour.deck.step = 18 swaps the live components under the text
"""
from __future__ import annotations

import asyncio
import html
import logging

import panel as pn
import param
from bokeh.model import Model as BokehModel
from panel.io.state import set_curdoc

from chapters import registry
from chapters.registry import PARTS
from shell.tour_steps import TOUR, clamp_step, first_step
from shell.tour_fit import StageSizer
from uikit.panels import takeaway_box
from uikit.state import LabState
from uikit.styles import ASSETS, sheet
from uikit.tokens import lane, legend

log = logging.getLogger(__name__)

TOUR_CSS = sheet("tour")
STAGE_CSS = sheet("tour-stage")      # small print of the chapters' sheets, raised on the projector
TOUR_JS = (ASSETS / "tour.js").read_text()


def step_meta() -> list[dict]:
    """What the browser needs per step: the text, where it is, and where Esc leads."""
    out = []
    for i, s in enumerate(TOUR):
        n = s["chapter"]
        if n == 0:
            where, exit_href = "Speculative Lab · the question", "?"
        else:
            page = registry.page_by_number(n)
            mine = [j for j, t in enumerate(TOUR) if t["chapter"] == n]
            where = f"Chapter {n} · {page.kicker} · {mine.index(i) + 1} of {len(mine)}"
            exit_href = f"?chapter={page.slug}"
        out.append({"chapter": n, "text": s["text"], "where": where, "exit": exit_href})
    return out


def chapter_menu() -> list[dict]:
    """The chapter jump menu: each chapter the tour visits, at its first step."""
    menu = [{"label": "Start · the question", "first": 1}]
    for page in registry.chapter_pages():
        if any(s["chapter"] == page.number for s in TOUR):
            menu.append({"label": page.nav_label, "first": first_step(page.number)})
    return menu


class TourDeck(pn.custom.JSComponent):
    """The tour's controls, text and keys (assets/tour.js); `step` is the step on screen (1-based)."""
    step = param.Integer(default=1, bounds=(1, None))
    rendered = param.Integer(default=0, doc="The step whose components Python has put on the page.")
    steps = param.List(default=[])
    chapters = param.List(default=[])
    page_css = param.String(default="")
    scale = param.Number(default=1.0, bounds=(1.0, 2.0),
                         doc="How much larger than at 1280×720 the screen is (the browser reports it).")
    room = param.Dict(default={}, doc="The free room around the drawn step's content (the browser "
                                      "reports it): {'step': n, 'height': px, 'width': px}.")

    _esm = TOUR_JS
    _stylesheets = [TOUR_CSS]


def overview_html() -> str:
    """Step 0: the parts and their chapters, each a link to its first tour step; the parts side by
    side, each column as wide as its longest chapter name asks."""
    cards, widths = [], []
    for key, part in PARTS.items():
        pages = [p for p in registry.chapter_pages() if p.part == key]
        items = "".join(
            f'<li><a href="?tour={first_step(p.number)}">{p.number} · {html.escape(p.short_title)}</a></li>'
            for p in pages)
        cards.append(f'<section class="part-{key}"><h2>Part {key} · {html.escape(part["name"])}</h2>'
                     f'<ul>{items}</ul></section>')
        widths.append(max([len(p.short_title) + 5 for p in pages] + [len(part["name"]) + 9, 16]))
    columns = " ".join(f"minmax(0, {w}fr)" for w in widths)
    return (f'<div class="tour-overview" style="grid-template-columns: {columns}">{"".join(cards)}</div>'
            '<p class="tour-keys"><kbd>→</kbd>, <kbd>Space</kbd> or a clicker next · <kbd>←</kbd> back · '
            '<kbd>F</kbd> fullscreen · <kbd>Esc</kbd> leave the tour</p>')


def _note(text: str, cls: str = "tour-note") -> pn.pane.HTML:
    role = ' role="alert"' if cls == "tour-error" else ""
    return pn.pane.HTML(f'<div class="{cls}"{role}>{html.escape(text)}</div>', stylesheets=[TOUR_CSS],
                        sizing_mode="stretch_width", margin=(4, 0), css_classes=[cls])


class Tour(pn.viewable.Viewer):
    """One session's tour: the deck on top, the current step's live components below."""

    def __init__(self, state: LabState, step: int = 1, **params):
        super().__init__(**params)
        self.state = state
        self._chapters: dict[int, object] = {}      # chapter number -> its Chapter, built once
        self._items: dict[tuple, object] = {}       # (chapter, item) -> its Panel object, built once
        self._started: set[tuple] = set()            # (step, coroutine name) started ahead of its step
        step = clamp_step(step)
        self.deck = TourDeck(step=step, steps=step_meta(), chapters=chapter_menu(), page_css=TOUR_CSS,
                             sizing_mode="stretch_width", margin=(0, 0, 4, 0))
        self.stage = pn.Column(sizing_mode="stretch_width", margin=(0, 0), css_classes=["tour-stage"])
        self.sizer = StageSizer(self.stage)
        self.deck.param.watch(lambda e: self.show(e.new), "step")
        self.deck.param.watch(lambda e: self.rescale(), "scale")
        self.deck.param.watch(lambda e: self.fit(e.new), "room")
        self.show(step)

    # --- chapters and their components ---
    def chapter(self, number: int):
        """This session's object of chapter `number`, built once."""
        if number not in self._chapters:
            self._chapters[number] = registry.build(registry.page_by_number(number), self.state)
            self._body(number)    # some chapters finish wiring their widgets in body()
        return self._chapters[number]

    def _body(self, number: int):
        key = (number, "body")
        if key not in self._items:
            self._items[key] = self._chapters[number].body()
        return self._items[key]

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
            return lane(spec["lane"], "", strip, count)
        if isinstance(spec, dict) and "legend" in spec:
            return legend(spec["legend"])
        if isinstance(spec, dict) and "item" in spec:
            obj = self.item(number, spec["item"], in_row)
            if "width" in spec:
                obj.param.update(width=spec["width"], sizing_mode="fixed")
            return obj
        if isinstance(spec, dict) and "button" in spec:
            return self.button(number, spec["button"])
        if spec == "overview":
            return pn.pane.HTML(overview_html(), stylesheets=[TOUR_CSS], sizing_mode="stretch_width")
        if spec == "predict":
            return ch.predict.projected() if ch.predict is not None else self._missing(number, spec)
        if spec == "takeaway":
            return takeaway_box(ch.takeaway)
        if spec == "body":
            return self._body(number)
        return self.attribute(number, spec)

    def attribute(self, number: int, name: str):
        value = getattr(self._chapters[number], name, None)
        if value is None:
            return self._missing(number, name)
        if isinstance(value, BokehModel):     # a raw Bokeh figure: one pane per figure
            key = (number, "bokeh", name)
            if key not in self._items:
                self._items[key] = pn.pane.Bokeh(value, sizing_mode=value.sizing_mode)
            return self._items[key]
        return value

    def button(self, number: int, label: str):
        """The chapter's button labelled `label` (an empty spacer while the chapter has none)."""
        found = [b for b in self._body(number).select(pn.widgets.Button) if b.label == label]
        if not found:
            log.warning("tour: chapter %s has no button %r; the step shows the rest", number, label)
            return pn.Spacer(width=0, height=0, margin=0)
        return found[0]

    def _missing(self, number: int, name: str):
        log.warning("tour: chapter %s has no %r; showing its whole body", number, name)
        return pn.Column(_note(f"(This step shows the whole chapter {number}: it has no “{name}” component.)"),
                         self._body(number), sizing_mode="stretch_width", margin=0,
                         css_classes=["tour-missing"])

    # --- one step ---
    def objects_for(self, step: int) -> list:
        spec = TOUR[step - 1]
        number = spec["chapter"]
        if number == 0:
            return [self.item(0, "overview")]
        try:
            self.chapter(number)
        except Exception as err:     # a chapter in progress must not take the tour down
            log.exception("tour: chapter %s could not be built", number)
            return [_note(f"Chapter {number} could not be built ({type(err).__name__}: {err}); the other "
                          "steps work — press → to go on.", "tour-error")]
        try:
            objects = [self.item(number, s) for s in spec.get("show", ["body"])]
        except Exception as err:
            log.exception("tour: step %s could not be drawn", step)
            return [_note(f"This step could not be drawn ({type(err).__name__}: {err}); press → to go on.",
                          "tour-error")]
        for pane in (p for obj in objects for p in _html_panes(obj)):
            if STAGE_CSS not in pane.stylesheets:     # before the page draws it
                pane.stylesheets = [*pane.stylesheets, STAGE_CSS]
        return objects

    def show(self, step: int) -> None:
        step = clamp_step(step)
        self.stage.objects = self.objects_for(step)
        self.sizer.rescale(self.deck.scale, step)
        self.deck.rendered = step
        self.prefetch(step + 1)

    def _start_ahead(self, step: int, doc) -> None:
        """Start the long work (a measurement) of the steps up to two ahead of `step`, once each."""
        for ahead in (step + 1, step + 2):
            name = TOUR[ahead - 1].get("prefetch") if ahead <= len(TOUR) else None
            key = (ahead, name)
            if name and key not in self._started:
                self._started.add(key)
                with set_curdoc(doc):
                    work = getattr(self.chapter(TOUR[ahead - 1]["chapter"]), name, None)
                    if work is not None:
                        pn.state.execute(work)

    def prefetch(self, step: int) -> None:
        """Build the components of `step` (its chapter too) once the current step is on its way to
        the browser, so pressing → swaps in objects that are already there. Off the document lock:
        building touches no model the page shows."""
        doc = pn.state.curdoc
        if step > len(TOUR) or doc is None or doc.session_context is None:
            return

        def build():
            if self.deck.rendered == step - 1:     # still where we were: the lecturer is reading
                with set_curdoc(doc):
                    self.objects_for(step)
                self._start_ahead(step - 1, doc)
        asyncio.get_running_loop().call_later(0.3, build)

    # --- projector scale and free room (shell/tour_fit.py) ---
    def rescale(self) -> None:
        """Every fixed-size object on the stage at its size for the screen's scale."""
        self.sizer.rescale(self.deck.scale, self.deck.rendered or self.deck.step)

    def fit(self, room: dict) -> None:
        """The step's figures grow into the room the browser reports free (for the step on screen)."""
        if room and room.get("step") == self.deck.rendered == self.deck.step:
            self.sizer.fit(self.deck.scale, self.deck.rendered, room)

    def __panel__(self):
        return pn.Column(self.deck, self.stage, sizing_mode="stretch_width", margin=0, css_classes=["tour"])


def _html_panes(obj):
    """The HTML panes in a layout, also inside the components (Viewers) it holds."""
    if isinstance(obj, pn.viewable.Viewer):
        obj = obj.__panel__()
    if isinstance(obj, pn.pane.HTML):
        yield obj
    for child in getattr(obj, "objects", None) or []:
        yield from _html_panes(child)


def build_tour(state: LabState, step: int | None = None):
    """The tour for this session, opened at `step` (default: ?tour=N of the page's URL)."""
    if step is None:
        args = pn.state.session_args or {}
        raw = (args.get("tour") or [b"1"])[0]
        step = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return Tour(state, step=clamp_step(step))
