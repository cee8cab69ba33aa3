"""The app: Panel's settings for the whole server, and one page per Panel session.

app.py (run afresh for every session by `panel serve`) calls `configure()` and `build_app()`;
everything that persists across sessions lives in modules imported once per process.

A page is sent in two steps so that a class opening pages at once does not hold up each other's
slider moves: the frame (template, navigation, pager) at once, then the student's badge and the
chapter in a few event-loop turns (uikit.pacing.show_in_pieces) once the browser has it.
"""
from __future__ import annotations

import asyncio
import html
import logging
import os
import sys
import warnings
from dataclasses import dataclass

import panel as pn
from bokeh.util.warnings import BokehUserWarning
from panel.io.state import set_curdoc
import param

from chapters import registry
from serving.service import Owner
from shell import heap, warmup
from shell.lecturer import lecturer_view
from shell.loading import LOADER, loading_view
from shell.pages import html_pane, landing_html, nav_html, page_view, pager_html
from shell.sessions import SNAPSHOTS, browser_id, click_allowed, join_classroom, session_state, too_many_tabs
from shell.store import store_problem
from shell.tour import build_tour
from uikit import validate
from uikit.clicks import allow_when
from uikit.pacing import before_browser_values, keep_deferred_writes, on_refused_patches, page_turn, show_in_pieces
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


def first_arg(args: dict, name: str) -> str | None:
    """The first value of URL query parameter `name`, as text (None when absent)."""
    values = args.get(name) or []
    return values[0].decode("utf-8", "replace") if values else None


def settings_card(state: LabState) -> pn.Card:
    """The collapsed settings card; its widgets are built when a student first opens it (most pages
    are opened and left without it, and a class opening pages at once shares one server)."""
    card = pn.Card(title="✎ Your prompt & sampling settings", collapsed=True, sizing_mode="stretch_width",
                   margin=(0, 5, 6, 5))

    def opened(event):
        if not event.new and not card.objects:
            card.objects = [SettingsPanel(state)]
    card.param.watch(opened, "collapsed")
    return card


@dataclass
class Request:
    """What the URL asks for: a chapter's slug ("" the landing page) or the tour, and a notice."""
    slug: str = ""
    tour: bool = False
    notice: str = ""

    @classmethod
    def from_args(cls, args: dict) -> Request:
        slug = first_arg(args, "chapter") or ""
        if slug and registry.page_by_slug(slug) is None:
            return cls("", bool(args.get("tour")), f"There is no chapter called “{slug}”; pick one from "
                                                   "the list on the left.")
        return cls(slug, bool(args.get("tour")))

    @property
    def title(self) -> str:
        page = registry.page_by_slug(self.slug) if self.slug else None
        return "Speculative Lab" + (f" · {page.short_title}" if page else " · Guided tour" if self.tour else "")

    @property
    def landing(self) -> bool:
        return self.slug == "" and not self.tour


class SessionPage:
    """One session's page: the frame at once, the student's parts when the pair is ready."""

    def __init__(self, request: Request, bid: str, session_id: str | None, lecturer):
        self.request, self.bid, self.session_id = request, bid, session_id
        # No template busy spinner: Panel syncs every template's spinner with one process-wide busy
        # flag, so each event in any session would patch all sessions' pages (a class of 40 made that
        # 40× the traffic). Our chapters show their own progress (uikit.panels.Busy).
        self.template = pn.template.BootstrapTemplate(
            title=request.title, sidebar_width=300, header_background="#1f4e9e",
            collapsed_sidebar=request.tour, busy_indicator=None)
        self.content = pn.Column(sizing_mode="stretch_width", margin=0, css_classes=["page-content"])
        self.badge_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.settings_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.keys = ShellKeys(browser_id=bid, width=0, height=0, margin=0)
        notice = [html_pane(f'<p class="notice" role="alert">{html.escape(said)}</p>')
                  for said in (request.notice, store_problem()) if said]
        # a value this page's browser sent that was clamped or refused (uikit.validate), said here
        self.problems = html_pane("", margin=0)
        validate.on_problems(self.say_problem)
        self.template.sidebar.append(html_pane(nav_html("" if request.tour else request.slug)))
        self.template.main.append(pn.Column(
            self.keys, self.badge_slot, self.settings_slot, *notice, self.problems, *([lecturer] if lecturer else []),
            self.content, *([] if request.tour else [html_pane(pager_html(request.slug))]),
            sizing_mode="stretch_width"))
        if request.landing:   # the landing page needs no model: shown at once, the badge slot loads
            self.content.objects = [html_pane(landing_html(SNAPSHOTS.get(bid).get("answers")))]

    def say_problem(self, sentence: str) -> None:
        self.problems.object = f'<p class="notice" role="alert">{html.escape(sentence)}</p>'

    def student(self) -> LabState:
        """This session's LabState, with the badge and the settings card that show it."""
        state = session_state(self.bid, Owner(self.bid, self.session_id))   # one queue per browser
        state.reduced_motion = self.keys.reduced_motion
        self.keys.param.watch(lambda e: setattr(state, "reduced_motion", e.new), "reduced_motion")
        self.badge_slot.objects = [PairBadge(state)]
        if not self.request.tour:   # the projector shows the tour alone; settings live on chapter pages
            self.settings_slot.objects = [settings_card(state)]
        return state

    async def fill_page(self) -> None:
        """A chapter: sent after the page's frame, in pieces (uikit.pacing.page_turn)."""
        async with page_turn():
            state = self.student()
        if not self.request.landing:
            async with page_turn():
                view = page_view(self.request.slug, state)
            await show_in_pieces(self.content, view)

    def fill_tour(self) -> None:
        """The projector's one page, built at once (it lays out its own steps)."""
        self.content.objects = [build_tour(self.student())]

    def fill_when_loaded(self) -> None:
        """Fill the page now that the pair is in, or show the loading line and fill it once it is."""
        fill = self.fill_tour if self.request.tour else self.fill_page
        if LOADER.ready:
            if self.request.tour:
                fill()
            else:
                pn.state.onload(fill)
            return
        view, refresh = loading_view()
        (self.badge_slot if self.request.landing else self.content).objects = [view]
        filled, doc = [], pn.state.curdoc

        def poll():
            if filled:
                return
            if LOADER.ready or LOADER.error:
                callback.stop()
            if LOADER.ready:
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
        LOADER.when_done(pn.state.curdoc, poll)


def build_app():
    request = Request.from_args(pn.state.session_args or {})
    session_id, _doc = join_classroom()
    bid = browser_id()
    if (full := too_many_tabs()) is not None:   # tabs per browser capped: one sentence (shell.sessions)
        return full
    lecturer = lecturer_view(first_arg(pn.state.session_args or {}, "lecturer"), session_id, bid)
    page = SessionPage(request, bid, session_id, lecturer)
    page.fill_when_loaded()
    return page.template


# Quiet by default: what a lecturer needs to see (start, pair loaded, lecturer actions, real errors).
QUIET_LOGGERS = {
    "bokeh.server.views.ws": logging.ERROR,   # a line per websocket open and close, and closed-tab sends
    "tornado.access": logging.WARNING,
    "transformers": logging.ERROR,
}
LAB_LOGGERS = ("lab", "serving", "shell", "chapters", "uikit")   # ours: INFO (a few lines a class)
_logging_done = []


def verbose(argv: list[str] | None = None, environ=None) -> bool:
    """`panel serve app.py --args --verbose` or SPECLAB_VERBOSE=1: every detail in the log."""
    env = os.environ if environ is None else environ
    return "--verbose" in (sys.argv[1:] if argv is None else argv) or env.get("SPECLAB_VERBOSE", "") not in ("", "0")


def closed_tab(exc) -> bool:
    """A tab that left while the server was answering it: not an error of the lab.

    Besides tornado's closed-stream errors: a tab that closes with clicks still in flight has them
    (and its close) handled after Bokeh let go of its session, and Bokeh asserts that its
    connection still has one (`ServerConnection.session`, recognised by its code: a Bokeh internal,
    guarded in tests/test_internals.py)."""
    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError
    if isinstance(exc, (WebSocketClosedError, StreamClosedError)):
        return True
    tb = getattr(exc, "__traceback__", None)
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    return (isinstance(exc, AssertionError) and code is not None and code.co_name == "session"
            and code.co_filename.replace("\\", "/").endswith("bokeh/server/connection.py"))


class ClosedTabs(logging.Filter):
    """Keeps closed-tab tracebacks (tornado's unretrieved write futures) out of the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and closed_tab(record.exc_info[1]))


class RefusedValues(logging.Filter):
    """A value a browser sent that Bokeh's own types refuse (text for a slider's number): Bokeh has
    already refused it and the widget kept its value; one line, not a traceback and the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ValueError) and str(exc).startswith("failed to validate"):
            record.msg, record.args, record.exc_info = "a browser sent a value a widget cannot take; " \
                "refused: %s", (str(exc)[:200],), None
        return True


def closed_tabs_handled(loop, context) -> None:
    """The server's event loop's exception handler: an error of a tab that has gone (`closed_tab`)
    is dropped, anything else goes to asyncio's own handler (the log)."""
    if not closed_tab(context.get("exception")):
        loop.default_exception_handler(context)


def configure_logging(detail: bool, again: bool = False) -> None:
    """Once per process: the quiet log (default) or every detail (`detail`). `again`: configure even
    if it was done before (the tests set each way in turn)."""
    if _logging_done and not again:
        return
    _logging_done.append(detail)
    for name in LAB_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    if detail:
        return
    for name, level in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger("bokeh.server.protocol_handler").addFilter(RefusedValues())
    # A browser that sends a model's full definition the server already has (BokehJS does, now and
    # then, after a tour step puts back a component it showed before): Bokeh keeps its own and warns,
    # a warning it made of an error because the case is recoverable (bokeh/bokeh#12915).
    warnings.filterwarnings("ignore", message="reference already known", category=BokehUserWarning)
    closed = ClosedTabs()
    for logger in (logging.getLogger(), logging.getLogger("asyncio"), logging.getLogger("tornado.application")):
        logger.addFilter(closed)
        for handler in logger.handlers:
            handler.addFilter(closed)
    try:   # the server's event loop: a write to a tab that has gone is dropped, not logged
        asyncio.get_event_loop().set_exception_handler(closed_tabs_handled)
    except RuntimeError:
        pass
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")   # tqdm bars: the loader has one line
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()


SWITCH_INTERVAL = 0.001   # seconds: the event loop's longest wait for the GIL the model worker holds


def configure() -> None:
    """Panel settings for the whole app: everything served inline (offline), large type."""
    configure_logging(verbose())
    pn.extension(inline=True, raw_css=[sheet("speclab")], notifications=False)

    # Large type on every button (Bokeh widgets live in shadow roots, so page CSS cannot reach them).
    for widget in (pn.widgets.Button, pn.widgets.RadioButtonGroup, pn.widgets.Toggle):
        widget.param.stylesheets.default = [sheet("buttons")]

    before_browser_values(validate.screen)   # every widget value a browser sends is checked first
    on_refused_patches(validate.refused_by_bokeh)   # … and one Bokeh refuses is said on the page
    allow_when(click_allowed)               # clicks too fast per browser: dropped (uikit.clicks)
    keep_deferred_writes()                  # a burst of changes reaches the page whole
    # The model worker thread holds the GIL between torch's kernels; a page's answer on the event loop
    # waits up to the switch interval at every hand-back (5 ms by default): hand it back sooner.
    sys.setswitchinterval(SWITCH_INTERVAL)
    pn.state.schedule_task("speclab-heap", heap.tick, period="1s")   # once per server (shell.heap)
    start_models()


def start_models() -> None:
    """Once per server: load the pair in the background (pages show its progress meanwhile), then
    compute the default demos for first clicks. At server start with `--setup shell/start.py`,
    else at the first page."""
    configure_logging(verbose())
    LOADER.start()
    warmup.start(LOADER)
