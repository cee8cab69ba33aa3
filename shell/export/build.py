"""One page of the export, built as a served session builds it, in a Bokeh Document of its own.

The frame is the served page's (shell.frame.app.SessionPage: template, navigation, badge, pager); the
content is the chapter's own object (chapters.registry.build) under its part's opening, as
shell.frame.pages.page_view lays it out, with its first model work done (`load()`) and every lazily built
section built (uikit.lazy.show_all): the page as a student sees it once it has settled. What needs
the server (the student's own prompt and settings) is replaced by one sentence. A press the chapter
computes in the browser (its `browser_presses`: chapter 6's draws) gets its code on the button; the
recording then holds only what the served press does beyond it (the predict card's reveal).

    built = await build_page("guess-check-keep", service)
    built.doc, built.chapter, built.frame
"""
from __future__ import annotations

import html
import threading
from dataclasses import dataclass

import panel as pn
from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters import registry
from shell.frame.app import Request, SessionPage
from shell.export.answers import card_widgets, model_ids, page_cards
from shell.export.record import IdFrame
from shell.frame.pages import html_pane, part_opening
from shell.tour.view import build_tour
from shell.tour.steps import TOUR
from uikit.lazy import show_all
from uikit.panels import PairBadge
from uikit.state import LabState

EXPORT_BID = "offline-copy"     # the one "browser" of every exported page
OFFLINE_NOTE = ("This is the offline copy of the lab: it replays what the models did for the preset prompts, "
                "timed on the machine that made the copy (the recording machine). "
                "Your own prompt and sampling settings need the served lab (ask your lecturer, or run "
                "<code>panel serve app.py</code>).")


@dataclass
class Built:
    """A built page: its document, where its ids start, and the objects its controls belong to."""
    doc: Document
    frame: IdFrame
    page: SessionPage
    state: LabState
    chapter: object = None
    tour: object = None
    tour_chapter: object = None     # the tour step's chapter (None on chapter pages and step 1)
    in_browser: dict = None         # id(button) → what its served press does beyond its browser code

    def run(self, fn, *args):
        """`fn(*args)` with this page's document current (what a served callback sees)."""
        with set_curdoc(self.doc):
            return fn(*args)


def page_request(slug: str, tour_step: int | None) -> Request:
    return Request(slug, tour=tour_step is not None)


async def build_page(slug: str, service, tour_step: int | None = None, tour_steps: int | None = None) -> Built:
    """Page `slug` ("" the landing page), or the tour at `tour_step`, over `service`'s pair; a tour
    of `tour_steps` steps (an export of the tour's first steps; default all: `end_tour`)."""
    frame = IdFrame.starting_now()
    doc = Document()
    attend(doc)
    request = page_request(slug, tour_step)
    with set_curdoc(doc):
        page = SessionPage(request, EXPORT_BID, None, None)
        state = LabState(service)
        page.badge_slot.objects = [PairBadge(state)]
        if not request.tour:
            page.settings_slot.objects = [html_pane(f'<p class="notice offline-note">{OFFLINE_NOTE}</p>')]
        built = Built(doc, frame, page, state)
        if request.tour:
            built.tour = build_tour(state, tour_step)
            end_tour(built.tour.deck, tour_steps)
            page.content.objects = [built.tour]
        elif slug:
            entry = registry.page_by_slug(slug)
            built.chapter = registry.build(entry, state)
            opening = part_opening(entry)
            page.content.objects = [pn.Column(*([opening] if opening else []), built.chapter,
                                              sizing_mode="stretch_width", margin=0)]
    shown = built.chapter
    if built.tour is not None and TOUR[tour_step - 1]["chapter"]:     # the step's chapter, as its page loads it
        shown = built.tour_chapter = built.tour.chapter(TOUR[tour_step - 1]["chapter"])
        if getattr(shown, "predict", None) is not None:   # no class poll offline: the student's own card
            with set_curdoc(doc):
                shown.predict.live = False
    if hasattr(shown, "animate"):     # a replay's frames are no recorded state: the race is shown finished
        shown.animate = False
    if shown is not None and hasattr(shown, "load"):
        with set_curdoc(doc):
            await shown.load()
    with set_curdoc(doc):
        show_all(page.content)
        page.template.server_doc(doc, title=request.title)
        settle_styles(built)
        built.in_browser = computed_in_browser(shown, doc)
    return built


def computed_in_browser(chapter, doc: Document) -> dict:
    """Give each press the chapter computes in the browser (`browser_presses`) its code on the page's
    button; returns id(button) → what the served press does beyond it (run when the export records it)."""
    presses = chapter.browser_presses() if hasattr(chapter, "browser_presses") else []
    beyond = {}
    for button, code, after in presses:
        for model_id in model_ids(button, doc):
            doc.get_model_by_id(model_id).js_on_event("button_click", code)
            beyond[id(button)] = after
    return beyond


def end_tour(deck, steps: int | None) -> None:
    """A tour exported up to step `steps` ends there: its counter says so, its Next and → stop at
    the last exported step, and its chapter menu offers the chapters it reaches (the player says in
    one sentence where the rest is: assets/export.js)."""
    if steps is None or steps >= len(deck.steps):
        return
    deck.param.update(steps=deck.steps[:steps], chapters=[c for c in deck.chapters if c["first"] <= steps])


def settle_styles(built: Built) -> None:
    """Give every text pane the stylesheets its first update would send (Panel's HTML panes send
    their design's stylesheets, as new models, the first time their text changes): the page is
    written with them, so a recorded change is the change the student sees, and the same change
    whatever was pressed before it (a predict answer's layer is taken back exactly)."""
    template = built.page.template
    for root in template.main:
        for pane in root.select(pn.pane.markup.HTMLBasePane):
            if any(m.document is built.doc for m, _ in list(pane._models.values())):
                pane.param.trigger("object")


def attend(doc: Document) -> None:
    """Let Panel dispatch the document's changes as it does a served, connected page's: a document
    of no session counts, to Panel, as one whose browser has not connected yet, and the changes made
    while Panel holds it (a layout's new children) are dropped, to be sent in full on connection.
    The export records every change, so the document is marked as on this thread and connected
    (panel.io.state's `_thread_id_` and `_connected`: no public way; tests/test_internals.py)."""
    pn.state._thread_id_[doc] = threading.get_ident()
    pn.state._connected[doc] = True


LIVE_INPUTS = (pn.widgets.TextInput, pn.widgets.TextAreaInput, pn.widgets.IntInput, pn.widgets.FloatInput)
SLIDERS = (pn.widgets.FloatSlider, pn.widgets.IntSlider, pn.widgets.DiscreteSlider)


def without_live_inputs(built: Built) -> int:
    """Disable what only the models could answer (typed text and numbers, sliders whose moves go to
    Python); the sliders that redraw in the browser (uikit.browser: a JS callback on their value)
    and a predict card's number box (its answers are recorded, shell/export/answers.py) stay.
    Returns how many were disabled; the settings card's sentence says why."""
    count, answered = 0, card_widgets(page_cards(built))
    with set_curdoc(built.doc):
        for widget in built.page.content.select(pn.widgets.Widget):
            if id(widget) in answered:
                continue
            models = [m for m, _ in list(widget._models.values()) if m.document is built.doc]
            in_browser = any(m.js_property_callbacks for m in models)
            if isinstance(widget, LIVE_INPUTS) or (isinstance(widget, SLIDERS)
                                                   and not in_browser):
                widget.disabled = True
                count += 1
    return count


def page_title(slug: str, tour_step: int | None = None) -> str:
    return html.escape(page_request(slug, tour_step).title)
