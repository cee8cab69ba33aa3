"""One page of the export, built as a served session builds it, in a Bokeh Document of its own.

The page is the served page itself, filled at once (shell.frame.app.SessionPage.fill: the frame,
navigation, badge and pager, and the content shell.frame.pages.page_content makes: the chapter under
its part's opening, or the tour at its step), with its first model work done (`load()`) and every
lazily built section built (uikit.lazy.show_all): the page as a student sees it once it has settled.
What needs the server (the student's own prompt and settings) is one sentence in the settings
card's place. Its document is dispatched as a connected page's (shell.frame.standalone). A press the chapter
computes in the browser (its `browser_presses`: chapter 6's draws) gets its code on the button; the
recording then holds only what the served press does beyond it (the predict card's reveal).

The page speaks `language` (export/language.py), kept on its document as a served page's is (every
chapter then speaks it); `menu`: the languages an export in several links each page to (none for one).

    built = await build_page("guess-check-keep", service, language="zh")
    built.doc, built.chapter, built.frame
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import panel as pn
from bokeh.document import Document
from panel.io.state import set_curdoc

from export.answers import card_widgets, model_ids, page_cards
from export.files import page_file
from export.language import menu_html
from export.record import IdFrame
from lab.i18n import DEFAULT
from shell.frame.app import SessionPage
from shell.frame.language import MENU_CSS
from shell.frame.pages import PageAsk, html_pane
from shell.frame.standalone import bokeh_models, page_document
from shell.tour.steps import TOUR
from uikit.language import gettext as _, use_language
from uikit.lazy import show_all
from uikit.state import LabState

EXPORT_BID = "offline-copy"     # the one "browser" of every exported page


def offline_note() -> str:
    """The settings card's place on an exported page: one sentence on what the copy holds, in the
    page's language (its "the recording machine" is export/wording.py's)."""
    return _("This is the offline copy of the lab: it replays what the models did for the preset prompts, "
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
    language: str = DEFAULT         # the language the page speaks (export/language.py)
    title: str = ""                 # its <title>, in that language (escaped)
    in_browser: dict = field(default_factory=dict)   # id(button) → what its served press does beyond
    codes: dict = field(default_factory=dict)        # id(button) → (button, its browser code)
    unshown: list = field(default_factory=list)      # a tour step's buttons of those not on the page

    def run(self, fn, *args):
        """`fn(*args)` with this page's document current (what a served callback sees)."""
        with set_curdoc(self.doc):
            return fn(*args)


def page_ask(slug: str, tour_step: int | None) -> PageAsk:
    """What the served page of `slug`, or of the tour at `tour_step`, is asked for."""
    return PageAsk(slug, tour=tour_step is not None, step=tour_step or 1)


async def build_page(slug: str, service, tour_step: int | None = None, tour_steps: int | None = None,
                     language: str = DEFAULT, menu: tuple[str, ...] = ()) -> Built:
    """Page `slug` ("" the landing page), or the tour at `tour_step`, over `service`'s pair; a tour
    of `tour_steps` steps (an export of the tour's first steps; default all: `end_tour`), in
    `language`, with links to itself in the languages of `menu` (none when empty)."""
    frame = IdFrame.starting_now()
    doc = page_document()
    use_language(language, doc)     # before any of its words, as a served page's (shell.frame.app)
    ask = page_ask(slug, tour_step)
    with set_curdoc(doc):
        page = SessionPage(ask, EXPORT_BID, None, None)
        if menu:
            page.template.header.append(pn.pane.HTML(menu_html(language, page_file(slug, tour_step), list(menu)),
                                                     stylesheets=[MENU_CSS], sizing_mode="stretch_width",
                                                     margin=(0, 10)))
        state = LabState(service)
        said = offline_note()
        note = None if ask.tour else html_pane(f'<p class="notice offline-note">{said}</p>')
        content = page.fill(state, settings=note)
        if content.problem is not None:     # the served page says so in one sentence; a copy must not
            raise RuntimeError(f"page {slug} could not be built") from content.problem
        built = Built(doc, frame, page, state, content.chapter, content.tour, language=language,
                      title=page_title(slug, tour_step))
        if content.tour is not None:
            end_tour(content.tour.deck, tour_steps)
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
        page.template.server_doc(doc, title=ask.title)
        with built.doc.models.freeze():     # one recompute of the document's models, not one per pane
            settle_styles(built)
        computed_in_browser(built, shown)
    return built


def computed_in_browser(built: Built, chapter) -> None:
    """Give each press the chapter computes in the browser (`browser_presses`) its code on the page's
    button. A tour step's page holds the code of its chapter's presses it does not show too, in the
    tags of its tour deck's model, which no event runs (`unshown`): the player runs it for such a
    press made on another of the chapter's steps (chapter 6's Draw on step 20, replayed when step 21
    opens: assets/export-tour.js). Fills `built.in_browser` (what the served press does beyond the code,
    run when the export records the press) and `built.codes`."""
    presses = chapter.browser_presses() if hasattr(chapter, "browser_presses") else []
    for button, code, after in presses:
        ids = model_ids(button, built.doc)
        for model_id in ids:
            built.doc.get_model_by_id(model_id).js_on_event("button_click", code)
        if not ids and built.tour is None:
            continue
        if not ids:                      # carried by the tour's deck: a reference, run by no event
            deck = bokeh_models(built.tour.deck, built.doc)[0]
            deck.tags = [*deck.tags, code]
            built.unshown.append(button)
        built.in_browser[id(button)] = after
        built.codes[id(button)] = (button, code)


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
            if bokeh_models(pane, built.doc):
                pane.param.trigger("object")


LIVE_INPUTS = (pn.widgets.TextInput, pn.widgets.TextAreaInput, pn.widgets.IntInput, pn.widgets.FloatInput)
SLIDERS = (pn.widgets.FloatSlider, pn.widgets.IntSlider, pn.widgets.DiscreteSlider)


def without_live_inputs(built: Built) -> int:
    """Disable what only the models could answer (typed text and numbers, sliders whose moves go to
    Python); the sliders that redraw in the browser (uikit.browser: a JS callback on their value)
    and a predict card's number box (its answers are recorded, export/answers.py) stay.
    Returns how many were disabled; the settings card's sentence says why."""
    count, answered = 0, card_widgets(page_cards(built))
    with set_curdoc(built.doc):
        for widget in built.page.content.select(pn.widgets.Widget):
            if id(widget) in answered:
                continue
            models = bokeh_models(widget, built.doc)
            in_browser = any(m.js_property_callbacks for m in models)
            if isinstance(widget, LIVE_INPUTS) or (isinstance(widget, SLIDERS)
                                                   and not in_browser):
                widget.disabled = True
                count += 1
    return count


def page_title(slug: str, tour_step: int | None = None) -> str:
    return html.escape(page_ask(slug, tour_step).title)
