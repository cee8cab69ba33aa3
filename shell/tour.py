"""The guided tour: full screen, one step per page, for a projector.

`build_tour(state, step)` is what the shell serves at `/app?tour=N`. Each step (shell/tour_steps.py)
is a short text in large type above *live* components of one chapter: the tour builds that chapter's
object for this session (through the registry, once per chapter) and shows the attributes the step
names — the same buttons, strips and figures as the chapter page, so what the lecturer presses in
step 17 is still there in step 18, and in the chapter afterwards.

Moving between steps happens in the browser (TourDeck, assets/tour.js: → / Space / ← / Esc, buttons,
a chapter menu); the URL follows as ?tour=N, so a lecturer can resume at any step.

    tour = Tour(state, step=17)   # tour.deck.step = 18 swaps the live components under the text
"""
from __future__ import annotations

import html
import logging

import panel as pn
import param
from bokeh.model import Model as BokehModel
from bokeh.models import Plot

from chapters import registry
from chapters.registry import PARTS
from shell.tour_steps import TOUR, clamp_step, first_step
from uikit.figures import figure_type_sizes, type_size
from uikit.pacing import in_document
from uikit.panels import takeaway_box
from uikit.state import LabState
from uikit.styles import ASSETS, sheet
from uikit.tokens import lane, legend

log = logging.getLogger(__name__)

TOUR_CSS = sheet("tour")
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

    _esm = TOUR_JS
    _stylesheets = [TOUR_CSS]


def overview_html() -> str:
    """Step 0: the three parts and their chapters, each a link to its first tour step."""
    cards = []
    for key, part in PARTS.items():
        items = "".join(
            f'<li><a href="?tour={first_step(p.number)}">{p.number} · {html.escape(p.short_title)}</a></li>'
            for p in registry.chapter_pages() if p.part == key)
        cards.append(f'<section class="part-{key}"><h2>Part {key} · {html.escape(part["name"])}</h2>'
                     f'<ul>{items}</ul></section>')
    return (f'<div class="tour-overview">{"".join(cards)}</div>'
            '<p class="tour-keys"><kbd>→</kbd> or <kbd>Space</kbd> next · <kbd>←</kbd> back · '
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
        step = clamp_step(step)
        self.deck = TourDeck(step=step, steps=step_meta(), chapters=chapter_menu(), page_css=TOUR_CSS,
                             sizing_mode="stretch_width", margin=(0, 0, 4, 0))
        self.stage = pn.Column(sizing_mode="stretch_width", margin=(0, 0), css_classes=["tour-stage"])
        self._base: dict[int, tuple] = {}           # id of a sized object -> (it, its sizes at scale 1)
        self.deck.param.watch(lambda e: self.show(e.new), "step")
        self.deck.param.watch(lambda e: self.rescale(), "scale")
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
            ch = self.chapter(number)
        except Exception as err:     # a chapter in progress must not take the tour down
            log.exception("tour: chapter %s could not be built", number)
            return [_note(f"Chapter {number} could not be built ({type(err).__name__}: {err}); the other "
                          "steps work — press → to go on.", "tour-error")]
        try:
            return [self.item(number, s) for s in spec.get("show", ["body"])]
        except Exception as err:
            log.exception("tour: step %s could not be drawn", step)
            return [_note(f"This step could not be drawn ({type(err).__name__}: {err}); press → to go on.",
                          "tour-error")]

    def show(self, step: int) -> None:
        step = clamp_step(step)
        self.stage.objects = self.objects_for(step)
        self.rescale()
        self.deck.rendered = step

    # --- projector scale: the page's type grows with the screen (CSS); fixed sizes follow here ---
    def rescale(self) -> None:
        """Give every fixed-size object on the stage its size at 1280×720 times `deck.scale`: Panel
        widgets and panes directly, Bokeh figures (and their type) where the document lock is held."""
        k = self.deck.scale
        for obj in self.stage.select(lambda o: isinstance(o, pn.viewable.Layoutable)):
            # keyed by id, holding the object too, so an id is never reused for another object
            _, base = self._base.setdefault(id(obj), (obj, {"width": obj.width, "height": obj.height}))
            sizes = {n: round(v * k) for n, v in base.items() if v and obj.sizing_mode in (None, "fixed")}
            if sizes:
                obj.param.update(**{n: v for n, v in sizes.items() if getattr(obj, n) != v})
        figures = [m for pane in self.stage.select(pn.pane.Bokeh) if pane.object is not None
                   for m in pane.object.select({"type": Plot})]
        if figures:
            in_document(self._rescale_figures, figures, k)

    def _rescale_figures(self, figures, k: float) -> None:
        for fig in figures:
            _, base = self._base.setdefault(id(fig), (fig, _figure_sizes(fig)))
            for (model, name), value in base.items():
                new = _scaled(value, k)
                if getattr(model, name) != new:
                    setattr(model, name, new)

    def __panel__(self):
        return pn.Column(self.deck, self.stage, sizing_mode="stretch_width", margin=0, css_classes=["tour"])


def _figure_sizes(fig: Plot) -> dict:
    """(model, property) -> value at scale 1 for a figure's fixed width/height and its type sizes."""
    out = {}
    if fig.height and fig.sizing_mode in (None, "fixed", "stretch_width"):
        out[(fig, "height")] = fig.height
    if fig.width and fig.sizing_mode in (None, "fixed", "stretch_height"):
        out[(fig, "width")] = fig.width
    out.update(figure_type_sizes(fig))
    return out


def _scaled(value, k: float):
    return type_size(value, k) if isinstance(value, str) else round(value * k)


def build_tour(state: LabState, step: int | None = None):
    """The tour for this session, opened at `step` (default: ?tour=N of the page's URL)."""
    if step is None:
        args = pn.state.session_args or {}
        raw = (args.get("tour") or [b"1"])[0]
        step = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return Tour(state, step=clamp_step(step))
