"""The guided tour: full screen, one step per page, for a projector.

`build_tour(state, step)` is what the shell serves at `/app?tour=N` (shell.frame.pages.page_content).
Each step (shell/tour/steps.py) is a short text in large type above *live* components of one
chapter (shell/tour/items.py): that chapter's object for this session, built once, and the
attributes the step names — the same buttons, strips and figures as the chapter page, so what the
lecturer presses in step 17 is still there in step 18, and in the chapter afterwards.

Moving between steps happens in the browser (TourDeck, assets/tour.js: → / Space / PageDown, ← / PageUp
(a presenter's clicker), Esc, buttons, a chapter menu); the URL follows as ?tour=N, so a lecturer can
resume at any step. While a step is shown, the next one's components are built (`prefetch`).

On a projector the step fills the screen (shell/tour/fit.py): the browser reports how much larger
than 1280×720 the screen is and how much room the drawn step leaves; fixed sizes and the figures'
type follow the first, the step's figures grow into the second.

    tour = Tour(state, step=17)   # tour.deck.step = 18 swaps the live components under the text
"""
from __future__ import annotations

import asyncio
import time

import panel as pn
import param
from panel.io.state import set_curdoc

from chapters import registry
from shell.tour.fit import StageSizer
from shell.tour.items import TOUR_CSS, StepItems
from shell.tour.steps import TOUR, clamp_step, first_step, step_text
from intercept.inbox import charge_sender
from uikit.language import gettext as _
from uikit.state import LabState
from uikit.styles import ASSETS

TOUR_JS = (ASSETS / "tour.js").read_text()


def step_meta() -> list[dict]:
    """What the browser needs per step, in the page's language: the text, where it is, and where Esc
    leads."""
    out = []
    for i, s in enumerate(TOUR):
        n = s["chapter"]
        if n == 0:
            where, exit_href = _("Speculative Lab · the question"), "?"
        else:
            page = registry.page_by_number(n)
            mine = [j for j, t in enumerate(TOUR) if t["chapter"] == n]
            where = _("Chapter {n} · {kicker} · {k} of {total}").format(
                n=n, kicker=_(page.kicker), k=mine.index(i) + 1, total=len(mine))
            exit_href = f"?chapter={page.slug}"
        out.append({"chapter": n, "text": step_text(s), "where": where, "exit": exit_href})
    return out


def chapter_menu() -> list[dict]:
    """The chapter jump menu, in the page's language: each chapter the tour visits, at its first step."""
    menu = [{"label": _("Start · the question"), "first": 1}]
    for page in registry.chapter_pages():
        if any(s["chapter"] == page.number for s in TOUR):
            menu.append({"label": f"{page.number} · {_(page.title).rstrip('.。')}", "first": first_step(page.number)})
    return menu


def deck_words() -> dict:
    """The words of the tour's controls (assets/tour.js writes none of its own), in the page's
    language; "{n}" and "{total}" are filled in the browser."""
    return {"leave": _("Leave tour"), "chapter": _("Chapter"), "back": _("Back"), "next": _("Next"),
            "fullscreen": _("Fullscreen"), "bar": _("Guided tour"), "progress": _("Tour progress"),
            "of": _("step {n} of {total}"), "announce": _("Step {n} of {total}.")}


class TourDeck(pn.custom.JSComponent):
    """The tour's controls, text and keys (assets/tour.js); `step` is the step on screen (1-based)."""
    step = param.Integer(default=1, bounds=(1, None))
    rendered = param.Integer(default=0, doc="The step whose components Python has put on the page.")
    steps = param.List(default=[])
    chapters = param.List(default=[])
    words = param.Dict(default={}, doc="The controls' words in the page's language (`deck_words`).")
    page_css = param.String(default="")
    scale = param.Number(default=1.0, bounds=(1.0, 2.0),
                         doc="How much larger than at 1280×720 the screen is (the browser reports it).")
    room = param.Dict(default={}, doc="The free room around the drawn step's content (the browser "
                                      "reports it): {'step': n, 'height': px, 'width': px, 'seq': k}, "
                                      "`seq` counting the reports, so a lack of room like the last one "
                                      "is a change too.")

    _esm = TOUR_JS
    _stylesheets = [TOUR_CSS]


class Tour(pn.viewable.Viewer):
    """One session's tour: the deck on top, the current step's live components below."""

    def __init__(self, state: LabState, step: int = 1, **params):
        super().__init__(**params)
        self.state = state
        self.items = StepItems(state)                # the chapters and the steps' components
        self._started: set[tuple] = set()            # (step, coroutine name) started ahead of its step
        step = clamp_step(step)
        self.deck = TourDeck(step=step, steps=step_meta(), chapters=chapter_menu(), words=deck_words(),
                             page_css=TOUR_CSS,
                             sizing_mode="stretch_width", margin=(0, 0, 4, 0))
        self.stage = pn.Column(sizing_mode="stretch_width", margin=(0, 0), css_classes=["tour-stage"])
        self.sizer = StageSizer(self.stage)
        self.deck.param.watch(lambda e: self.show(e.new), "step")
        self.deck.param.watch(lambda e: self.rescale(), "scale")
        self.deck.param.watch(lambda e: self.fit(e.new), "room")
        self.show(step)

    def chapter(self, number: int):
        """This session's object of chapter `number`, built once."""
        return self.items.chapter(number)

    def show(self, step: int) -> None:
        """Put step `step`'s components on the stage, at the screen's scale, and build the next's."""
        step = clamp_step(step)
        self.state.on_screen = TOUR[step - 1]["chapter"]     # the badge says this chapter's sampling
        self.stage.objects = self.items.objects_for(step)
        self.sizer.rescale(self.deck.scale, step)
        self.items.select_first(step)   # a step that shows a chip's detail selects one
        self.deck.rendered = step
        self.prefetch(step + 1)

    def _start_ahead(self, step: int, doc) -> None:
        """Start the long work (a measurement) of `step` itself (a step opened directly, ?tour=41,
        fills its own figure) and of the steps up to two ahead of it, once each."""
        for ahead in (step, step + 1, step + 2):
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
        if step > len(TOUR) + 1 or doc is None or doc.session_context is None:
            return

        def build():
            if self.deck.rendered == step - 1:     # still where we were: the lecturer is reading
                started = time.perf_counter()
                if step <= len(TOUR):              # after the last step: its own work alone
                    with set_curdoc(doc):
                        self.items.objects_for(step)
                self._start_ahead(step - 1, doc)
                charge_sender(doc, time.perf_counter() - started)    # the page's sender pays for it
        asyncio.get_running_loop().call_later(0.3, build)

    # --- projector scale and free room (shell/tour/fit.py) ---
    def rescale(self) -> None:
        """Every fixed-size object on the stage at its size for the screen's scale."""
        self.sizer.rescale(self.deck.scale, self.deck.rendered or self.deck.step)

    def fit(self, room: dict) -> None:
        """The step's figures grow into the room the browser reports free (for the step on screen)."""
        if room and room.get("step") == self.deck.rendered == self.deck.step:
            self.sizer.fit(self.deck.scale, self.deck.rendered, room)

    def __panel__(self):
        return pn.Column(self.deck, self.stage, sizing_mode="stretch_width", margin=0, css_classes=["tour"])


def build_tour(state: LabState, step: int = 1) -> Tour:
    """The tour for this session, opened at `step` (a page's is its URL's ?tour=N: shell.frame.pages.PageAsk)."""
    return Tour(state, step=clamp_step(step))
