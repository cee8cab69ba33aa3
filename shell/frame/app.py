"""The app: Panel's settings for the whole server, and one page per Panel session.

app.py (run afresh for every session by `panel serve`) calls `configure()` and `build_app()`;
everything that persists across sessions lives in the server's class state (shell.frame.classstate).

A page is sent in two steps so that a class opening pages at once does not hold up each other's
slider moves: the frame (template, navigation, pager, and the page's place in the server's line of
pages, shell.room.line) at once, then, when its turn comes, the student's badge and the chapter in a few
event-loop turns (intercept.pacing.show_in_pieces). The server's log is set up in shell.frame.quietlog.

A page made outside a server (the static export, export/) is the same `SessionPage` filled at once
(`SessionPage.fill`, as the served tour is): the same frame, badge and content
(shell.frame.pages.page_content), with its own sentence in the settings card's place.

    page = SessionPage(PageAsk("dilemma"), bid, None, None)
    content = page.fill(LabState(service), settings=note)    # content.chapter: the page's chapter
"""
from __future__ import annotations

import contextlib
import html
import sys

import panel as pn
from panel.io.state import set_curdoc
import param

from serving.service import Owner
from shell.frame.classstate import ClassState, class_state
from shell.lecturer.controls import LecturerPanel, lecturer_view
from shell.room.line import LeftTheLine, PageLine
from shell.frame.language import choose, language_header
from shell.frame.loading import loading_view
from shell.frame.pages import (PageAsk, PageContent, first_arg, html_pane, landing_html, nav_html, page_content,
                               pager_html)
from shell.frame.quietlog import configure_logging, verbose
from shell.room.identity import client_address
from shell.room.sessions import browser_id, join_open_pages, session_state
from intercept import validate
from intercept.pacing import page_turn, served, show_in_pieces
from uikit.language import gettext as _, say, use_language
from uikit.panels import PairBadge, SettingsPanel
from uikit.state import LabState
from uikit.styles import ASSETS, sheet


class ShellKeys(pn.custom.JSComponent):
    """F toggles fullscreen (outside text fields); remembers this browser in a cookie; reports the
    browser's prefers-reduced-motion; fills in the accessibility the template and Bokeh widgets leave
    out (assets/shell.js)."""
    browser_id = param.String(default="")
    reduced_motion = param.Boolean(default=False, doc="The browser asks for reduced motion.")

    _esm = ASSETS / "shell.js"


def settings_card(state: LabState) -> pn.Card:
    """The collapsed settings card; its widgets are built when a student first opens it (most pages
    are opened and left without it, and a class opening pages at once shares one server)."""
    card = pn.Card(title=_("✎ Your prompt & sampling settings"), collapsed=True, sizing_mode="stretch_width",
                   margin=(0, 5, 6, 5), css_classes=["settings-card"])

    def opened(event):
        if not event.new and not card.objects:
            card.objects = [SettingsPanel(state)]
    card.param.watch(opened, "collapsed")
    return card


def place_html(said: str) -> str:
    """A page's place in the line (shell.room.line), as its content shows it until the chapter comes."""
    return f'<div class="loading page-place" role="status" aria-live="polite"><p>{html.escape(said)}</p></div>'


LOAD_REFRESH_MS = 3000   # the lecturer's load line is refreshed this often


def load_html(line: PageLine, problem: str | None = None) -> str:
    """The server's load in one line (shell.room.line), above the lecturer's controls; and the class
    store's problem, when it has one (shell.store.shared: a full disk, say), in one more."""
    said = (f'<p class="server-load" role="status" style="font-size: 1.1rem; margin: 2px 0">'
            f'{html.escape(line.load_line())}</p>')
    return said + (f'<p class="notice store-problem" role="alert">{html.escape(say(problem))}</p>' if problem else "")


class SessionPage:
    """One session's page: the frame at once, the student's parts when the pair is ready.

    A chapter page waits for its build in the server's line of pages (shell.room.line), its place shown
    meanwhile. Everything the frame holds must finish rendering in the browser: the browser says
    the page is ready (Panel's onload, which starts the fill) only once every part of the frame has
    been drawn, and a figure in a collapsed card never is. So the lecturer's controls (the class
    poll's histograms sit in a collapsed card) are put in once the page is ready. `the_class`: the
    server's class state (default: a fresh one in memory, as for a page built outside a server)."""

    def __init__(self, ask: PageAsk, bid: str, session_id: str | None, lecturer,
                 the_class: ClassState | None = None):
        self.ask, self.bid, self.session_id = ask, bid, session_id
        self.lecturer = lecturer
        self.the_class = the_class = the_class if the_class is not None else ClassState()
        # No template busy spinner: Panel syncs every template's spinner with one process-wide busy
        # flag, so each event in any session would patch every session's page, a message per page
        # per event. Our chapters show their own progress (uikit.panels.Busy).
        self.template = pn.template.BootstrapTemplate(
            title=ask.title, sidebar_width=300, header_background="#1f4e9e",
            collapsed_sidebar=ask.tour, busy_indicator=None)
        self.content = pn.Column(sizing_mode="stretch_width", margin=0, css_classes=["page-content"])
        self.badge_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.settings_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        # the lecturer's controls once the page is ready; a refusal (no figures) at once
        self.lecturer_slot = pn.Column(*([] if lecturer is None or isinstance(lecturer, LecturerPanel) else [lecturer]),
                                       sizing_mode="stretch_width", margin=0)
        self.keys = ShellKeys(browser_id=bid, width=0, height=0, margin=0)
        notice = [html_pane(f'<p class="notice" role="alert">{html.escape(say(said))}</p>')     # marked sentences
                  for said in (ask.notice, None if isinstance(lecturer, LecturerPanel) else   # its own line
                               the_class.store_problem()) if said]
        # a value this page's browser sent that was clamped or refused (intercept.validate), said here
        self.problems = html_pane("", margin=0)
        validate.on_problems(self.say_problem)
        self.template.sidebar.append(html_pane(nav_html("" if ask.tour else ask.slug)))
        self.template.main.append(pn.Column(
            self.keys, self.badge_slot, self.settings_slot, *notice, self.problems, self.lecturer_slot,
            self.content, *([] if ask.tour else [html_pane(pager_html(ask.slug))]),
            sizing_mode="stretch_width"))
        self.ticket = self.place = None
        if ask.landing:   # the landing page needs no model: shown at once, the badge slot loads
            self.content.objects = [html_pane(landing_html(the_class.snapshots.get(bid).get("answers")))]
        elif not ask.tour:   # a served chapter: its place in the line until it is built
            self.place = html_pane(place_html(_("Preparing your page…")), margin=(10, 5))
            self.content.objects = [self.place]
            if served():
                line = the_class.line
                self.ticket = ticket = line.join()
                self.show_place(line.place(ticket))
                pn.state.on_session_destroyed(lambda context: line.leave(ticket))

    def say_problem(self, sentence: str) -> None:
        self.problems.object = f'<p class="notice" role="alert">{html.escape(sentence)}</p>'

    def own_state(self) -> LabState:
        """This session's LabState, among the class's open sessions (one model queue per browser)."""
        return session_state(self.the_class, self.bid, Owner(self.bid, self.session_id))

    def student(self) -> LabState:
        """This session's LabState, with the badge and the settings card that show it."""
        state = self.own_state()
        self.show_student(state)
        return state

    def show_student(self, state: LabState, settings: pn.viewable.Viewable | None = None) -> None:
        """The student's parts of the frame: the pair badge over `state` and, on a page other than
        the tour, the settings card (or `settings` in its place: the export's offline sentence)."""
        state.reduced_motion = self.keys.reduced_motion
        self.keys.param.watch(lambda e: setattr(state, "reduced_motion", e.new), "reduced_motion")
        self.badge_slot.objects = [self.the_class.badges.add(PairBadge(state))]
        if not self.ask.tour:   # the projector shows the tour alone; settings live on chapter pages
            self.settings_slot.objects = [settings if settings is not None else settings_card(state)]

    def fill(self, state: LabState, settings: pn.viewable.Viewable | None = None) -> PageContent:
        """The page filled at once for the student `state`: their parts of the frame (`show_student`),
        then the page's content (shell.frame.pages.page_content), which it returns. The served tour
        is filled so, and every page of the static export (export/); a served chapter page gets the
        same parts in pieces, in its turn in the server's line (`fill_page`)."""
        self.show_student(state, settings)
        content = page_content(self.ask, state)
        self.content.objects = [content.view]
        return content

    def show_place(self, said: str) -> None:
        self.place.object = place_html(said)

    async def fill_page(self) -> None:
        """The student's parts; a chapter when its turn in the line comes, in pieces
        (intercept.pacing.page_turn)."""
        if self.place is None:   # the landing page
            async with page_turn():
                self.student()
            return
        if self.place not in self.content.objects:   # the loading line was shown meanwhile
            self.content.objects = [self.place]
        try:
            line = self.the_class.line
            async with line.turn(self.ticket, self.show_place) if self.ticket else contextlib.nullcontext():
                async with page_turn():
                    state = self.student()
                async with page_turn():
                    content = page_content(self.ask, state)
                await show_in_pieces(self.content, content.view)
        except LeftTheLine:   # the page closed while it waited
            return

    async def show_lecturer(self) -> None:
        """The lecturer's controls, under one line on the server's load (refreshed every few seconds)."""
        line, the_class = self.the_class.line, self.the_class
        load = html_pane(load_html(line, the_class.store_problem()), margin=(0, 10))
        async with page_turn():
            self.lecturer_slot.objects = [load, self.lecturer]

        def refresh():
            said = load_html(line, the_class.store_problem())
            if said != load.object:
                load.object = said
        if served():
            pn.state.add_periodic_callback(refresh, period=LOAD_REFRESH_MS)

    def fill_tour(self) -> None:
        """The projector's one page, built at once (it lays out its own steps)."""
        self.fill(self.own_state())

    def fill_when_loaded(self) -> None:
        """Fill the page now that the pair is in, or show the loading line and fill it once it is."""
        fill = self.fill_tour if self.ask.tour else self.fill_page
        if isinstance(self.lecturer, LecturerPanel):
            pn.state.onload(self.show_lecturer)
        loader = self.the_class.loader
        if loader.ready:
            if self.ask.tour:
                fill()
            else:
                pn.state.onload(fill)
            return
        view, refresh = loading_view(loader)
        (self.badge_slot if self.ask.landing else self.content).objects = [view]
        filled, doc = [], pn.state.curdoc

        def poll():
            if filled:
                return
            if loader.ready or loader.error:
                callback.stop()
            if loader.ready:
                filled.append(True)
                # The loader's wake-up runs outside this page's document: the filling task must know
                # which page it fills. A browser that has the page but has not yet said it is ready
                # would never see a fill made now (Panel drops the changes made before that,
                # expecting a later full send), so such a page is filled once it is ready.
                with set_curdoc(doc):
                    pn.state.onload(fill)
            else:
                refresh()

        callback = pn.state.add_periodic_callback(poll, period=300)
        # Also woken by the loader itself the moment it finishes (the poll is the fallback).
        loader.when_done(pn.state.curdoc, poll)


def build_app():
    """This session's page, in the server's class (shell.frame.classstate)."""
    the_class = class_state()
    session_id, doc = join_open_pages(the_class)
    # the page's language, before any of its words (shell.frame.language): kept on its document
    language, chosen = choose(pn.state.session_args or {}, pn.state.cookies or {}, pn.state.headers or {})
    if doc is not None:
        use_language(language, doc)
    ask = PageAsk.from_args(pn.state.session_args or {})
    if served():       # the page gate (shell.room.gate) counts this page as built once its browser connects
        address, cookie = client_address(doc), (pn.state.cookies or {}).get("speclab_id", "")
        pn.state.onload(lambda: the_class.gate.arrived(address, cookie))
    bid = browser_id(the_class)
    if (full := the_class.browsers.too_many_tabs(doc)) is not None:   # tabs per browser capped: one sentence
        return full
    lecturer = lecturer_view(the_class, first_arg(pn.state.session_args or {}, "lecturer"), session_id, bid)
    page = SessionPage(ask, bid, session_id, lecturer, the_class)
    page.template.header.append(language_header(language, chosen, pn.state.session_args or {}))
    page.fill_when_loaded()
    return page.template


SWITCH_INTERVAL = 0.001   # seconds: the event loop's longest wait for the GIL the model worker holds


def panel_settings() -> None:
    """Panel's settings every page is built with, served or exported: resources inline (offline),
    the lab's CSS, large type on every button (Bokeh widgets live in shadow roots, out of page CSS's
    reach)."""
    pn.extension(inline=True, raw_css=[sheet("speclab")], notifications=False)
    for widget in (pn.widgets.Button, pn.widgets.RadioButtonGroup, pn.widgets.Toggle):
        widget.param.stylesheets.default = [sheet("buttons")]


def configure(args: list[str] | None = None) -> None:
    """Panel settings for the whole app: everything served inline (offline), large type; the class's
    models started, by the server's own arguments `args` (`--pair NAME` …) when given."""
    configure_logging(verbose())
    panel_settings()
    # The model worker thread holds the GIL between torch's kernels; a page's answer on the event loop
    # waits up to the switch interval at every hand-back (5 ms by default): hand it back sooner.
    sys.setswitchinterval(SWITCH_INTERVAL)
    the_class = class_state()
    pn.state.schedule_task("speclab-heap", the_class.heap_tick, period="1s")   # once per server (shell.frame.heap)
    start_models(the_class, args)


def start_models(the_class: ClassState | None = None, args: list[str] | None = None) -> None:
    """Once per server: load the pair in the background (pages show its progress meanwhile), then
    compute the default demos for first clicks. At server start with `--setup shell/start.py`
    (`args`: the server's own arguments, which the pair loads by), else at the first page."""
    configure_logging(verbose())
    the_class = the_class or class_state()
    if args is not None:
        the_class.pair.use_args(args)
    the_class.start_models()
