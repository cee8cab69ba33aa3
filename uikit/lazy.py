"""Page sections built the first time the student scrolls near them.

A page sends every Bokeh model it holds when it opens, and a class opening a page together shares
one event loop: a section below the fold (more figures, a table) costs that loop and each browser
before anyone looks at it. `Lazy(build, height)` stands in for such a section with an empty box of
its height; the first time the box comes within a quarter screen of being seen
(assets/lazy.js: an IntersectionObserver), the browser says so once, and the server builds the
section (`build()`, its figures finished as the page's: uikit.figures.finish_figures) and puts it in
the box's place, in a page turn of its own (intercept.pacing.page_turn). Outside a served page (tests,
bench/pages.py, a script) `show()` builds it.

    section = Lazy(lambda: pn.Row(pn.pane.Bokeh(figs.gamma_fig), table), height=320)
    section.show()        # build it now

What a slider redraws in the browser (uikit.browser) keeps working across the build: the figures'
sources and ranges are built with the page (the redraw holds them), and the redraw finds the panes
it writes into wherever they are on the page once they are there.
"""
from __future__ import annotations

import contextlib
from typing import Callable

import panel as pn

from uikit.figures import finish_figures
from intercept.pacing import in_document, page_turn, served
from uikit.styles import ASSETS


PLACEHOLDER = "speclab-lazy"   # the class of a section's box until it is built (a test scrolls to it)


class NearViewport(pn.custom.JSComponent):
    """An empty box that sends one message ("near") the first time it comes within a quarter screen of the
    browser's viewport (assets/lazy.js)."""

    _esm = ASSETS / "lazy.js"


class Lazy(pn.Column):
    """A section of a page, built when the student first scrolls near it (or on `show()`)."""

    builds_later = True     # how uikit.figures.finish_figures finds the sections (it cannot import this module)

    def __init__(self, build: Callable[[], pn.viewable.Viewable], height: int, width: int | None = None,
                 **params):
        """`build()` makes the section; its box is `height` px high and `width` px wide (None: the
        page's width), what the section takes once built, so the page does not jump."""
        sizing = "stretch_width" if width is None else "fixed"
        params.setdefault("sizing_mode", sizing)
        params.setdefault("margin", 0)
        watch = NearViewport(height=height, width=width, sizing_mode=sizing, margin=0, css_classes=[PLACEHOLDER])
        super().__init__(watch, **params)
        self._build = build
        self._content = None
        # how the page finishes its figures (uikit.figures.finish_figures sets it to the page's own:
        # its type floor, and the tickers and formatters its figures share)
        self.finish: Callable = finish_figures
        watch.on_msg(self.scrolled_near)

    @property
    def built(self) -> bool:
        """Whether the section is built (shown, or ready to be)."""
        return self._content is not None

    def show(self):
        """Build the section now, if it is not built yet, and put it in the box's place; returns it.
        Where a page is served, call it where the document lock is held (intercept.pacing.in_document)."""
        if self._content is None:
            # Building it changes models the page holds already (a legend item gains its line, a
            # label its figure): Bokeh then walks the page's whole model graph after each change,
            # unless the document's models are frozen, which walks it once at the end.
            doc = next((m.document for m, _ in self._models.values() if m.document is not None), None)
            with doc.models.freeze() if doc is not None else contextlib.nullcontext():
                self._content = self._build()
                self.finish(self._content)
                self.objects = [self._content]
        return self._content

    def scrolled_near(self, event=None) -> None:
        """What the box's message from the browser does: build the section in a page turn of its own
        on a served page, at once elsewhere."""
        if served():
            pn.state.execute(self._show_in_turn)
        else:
            self.show()

    async def _show_in_turn(self) -> None:
        async with page_turn():        # one piece of page building at a time, across all sessions
            in_document(self.show)     # it changes Bokeh models the page holds already (ranges, sources)


def lazy_figure(make: Callable, height: int, width: int | None = None) -> Lazy:
    """A Bokeh figure built when scrolled to: `make()` returns it (a chapter's figure, built once);
    `height` and `width` (None: the page's width) are the figure's."""
    sizing = "stretch_width" if width is None else "fixed"
    return Lazy(lambda: pn.pane.Bokeh(make(), sizing_mode=sizing), height=height, width=width)


def show_all(view) -> list[Lazy]:
    """Build every lazy section of a Panel view now (those inside a section too); returns them."""
    done: list[Lazy] = []
    while pending := [s for s in view.select(Lazy) if not s.built]:
        for section in pending:
            section.show()
        done += pending
    return done
