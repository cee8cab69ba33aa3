"""The shell's pieces: navigation, landing page, pager, per-browser settings, the page router.

app.py (run afresh for every session by `panel serve`) only configures Panel and calls
`build_app()`; everything that must persist across sessions (the settings store, the JS component
class) lives here, in a module imported once per process.
"""
from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import re
import uuid
import weakref
from collections import OrderedDict
from pathlib import Path

import panel as pn
import param
from bokeh.protocol.exceptions import ProtocolError

from chapters import registry
from chapters.lecturer import CLASSROOM, lecturer_view
from chapters.loading import LOADER
from chapters.registry import BRIDGE_SLUG, PARTS, QUESTION_COUNT
from chapters.state import LabState
from chapters.tour_steps import TOUR, first_step
from chapters.widgets import PairBadge, SettingsPanel
from lab import runtime

log = logging.getLogger(__name__)

ASSETS = Path(__file__).resolve().parents[1] / "assets"
SHELL_CSS = (ASSETS / "shell.css").read_text()

# --- one student's settings, across page loads ---------------------------------------------------

_SNAPSHOT_FIELDS = ("prompt", "temperature", "top_k", "top_p", "gamma", "seed", "answers")
_SNAPSHOTS: OrderedDict[str, dict] = OrderedDict()   # browser id → settings (this module loads once)
_MAX_SNAPSHOTS = 2000


def browser_id() -> str:
    cookie = (pn.state.cookies or {}).get("speclab_id", "")
    return cookie if re.fullmatch(r"[0-9a-f]{32}", cookie or "") else uuid.uuid4().hex


def session_state(bid: str, owner: str | None = None) -> LabState:
    """This browser's LabState: a fresh object per session, seeded from its last settings."""
    state = LabState(runtime.service(), owner=owner, **_SNAPSHOTS.get(bid, {}))

    def save(*_):
        _SNAPSHOTS[bid] = {f: getattr(state, f) for f in _SNAPSHOT_FIELDS}
        _SNAPSHOTS.move_to_end(bid)
        while len(_SNAPSHOTS) > _MAX_SNAPSHOTS:
            _SNAPSHOTS.popitem(last=False)

    state.param.watch(save, list(_SNAPSHOT_FIELDS))
    return state


class ShellKeys(pn.custom.JSComponent):
    """F toggles fullscreen (outside text fields); remembers this browser in a cookie; reports the
    browser's prefers-reduced-motion; fills in the accessibility the template and Bokeh widgets leave
    out (assets/shell.js)."""
    browser_id = param.String(default="")
    reduced_motion = param.Boolean(default=False, doc="The browser asks for reduced motion.")

    _esm = ASSETS / "shell.js"


# --- pieces of every page -------------------------------------------------------------------------

def href(slug: str) -> str:
    return f"?chapter={slug}" if slug else "?"


def nav_html(current: str) -> str:
    """Navigation grouped by part; the current page marked with aria-current."""
    cur = ' aria-current="page"' if current == "" else ""
    out = [f'<nav class="nav" aria-label="Chapters"><a class="home" href="?"{cur}>Start · the question</a>']
    for key, part in PARTS.items():
        out.append(f'<div class="part">PART {key} <span>{html.escape(part["name"])}</span></div><ol>')
        for p in registry.pages():
            if p.part != key:
                continue
            cur = ' aria-current="page"' if p.slug == current else ""
            soon = "" if p.chapter_class or p.slug == BRIDGE_SLUG else ' class="soon"'
            label = html.escape(p.nav_label) + ("" if not soon else " (soon)")
            out.append(f'<li><a href="{href(p.slug)}"{cur}{soon}>{label}</a></li>')
        out.append("</ol>")
    out.append('<div class="part"><a href="?tour=1">▶ Guided tour</a></div></nav>')
    return "".join(out)


def pager_html(current: str) -> str:
    prev, nxt = registry.neighbours(current)
    links = []
    if current and prev is None:
        links.append('<a class="prev" href="?" rel="prev">← Start</a>')
    elif prev is not None:
        links.append(f'<a class="prev" href="{href(prev.slug)}" rel="prev">← {html.escape(prev.nav_label)}</a>')
    page = registry.page_by_slug(current) if current else None
    if page is not None and page.number and any(s["chapter"] == page.number for s in TOUR):
        links.append(f'<a class="tour" href="?tour={first_step(page.number)}">▶ Tour from here</a>')
    if nxt is not None:
        links.append(f'<a class="next" href="{href(nxt.slug)}" rel="next">{html.escape(nxt.nav_label)} →</a>')
    return f'<nav class="pager" aria-label="Previous and next">{"".join(links)}</nav>'


def html_pane(markup: str, **kwargs) -> pn.pane.HTML:
    return pn.pane.HTML(markup, stylesheets=[SHELL_CSS], sizing_mode="stretch_width", **kwargs)


def landing_html(answers: dict | None = None) -> str:
    """The landing page; `answers` (this browser's predict & check answers) adds a progress line."""
    chapters = registry.chapter_pages()
    cards = []
    for key, part in PARTS.items():
        items = "".join(f'<li><a href="{href(p.slug)}">{html.escape(p.short_title)}</a></li>'
                        for p in registry.pages() if p.part == key)
        cards.append(f'<section class="partcard"><h2>Part {key} · {html.escape(part["name"])}</h2>'
                     f'<ol>{items}</ol></section>')
    summary = " ".join(f"<b>Part {k} · {html.escape(v['name'])}</b> — {html.escape(v['summary'])}"
                       for k, v in PARTS.items())
    counts = [f"<b>{len(PARTS)}</b> parts · <b>{len(chapters)}</b> short chapters",
              f"<b>{QUESTION_COUNT}</b> predict &amp; check questions",
              f"<b>{len(TOUR)}</b> guided steps", "press <b>F</b> for fullscreen"]
    if answers:
        right = sum(1 for a in answers.values() if a.get("correct"))
        counts.append(f"you have answered <b>{len(answers)}</b> of {QUESTION_COUNT} ({right} right)")
    return (
        '<div class="landing"><div class="eyebrow">DSAI4207 · Lecture 6 · Generation, Decoding &amp; Inference'
        '</div><h1>Can a small model make a big one faster — same output?</h1>'
        f'<p>An interactive companion for first-time learners, in three parts. {summary} '
        'Explore by scrolling, or start the Guided tour for a full-screen, one-step-per-page class '
        'presentation.</p>'
        '<ul class="counts" aria-label="What is inside">' + "".join(f"<li>{c}</li>" for c in counts) + '</ul>'
        '<div class="cta"><a class="primary" href="?tour=1">▶ Start the guided tour</a>'
        f'<a class="secondary" href="{href(chapters[0].slug)}">Explore chapter by chapter →</a></div>'
        f'<div class="parts">{"".join(cards)}</div></div>')


def part_opening(page) -> pn.pane.HTML | None:
    """The part's own headline above its first page."""
    first = next(p for p in registry.pages() if p.part == page.part)
    if first.slug != page.slug:
        return None
    part = PARTS[page.part]
    return html_pane(f'<div class="partopen"><div class="eyebrow">{html.escape(part["kicker"])}</div>'
                     f'<h2>{html.escape(part["title"])}</h2><p>{html.escape(part["intro"])}</p></div>')


def coming_soon(page) -> pn.pane.HTML:
    why = ("This chapter is still being written; its page appears here as soon as it lands."
           if not page.load_error else
           f"This chapter could not be loaded ({page.load_error}); the rest of the lab works — tell the lecturer.")
    return html_pane(f'<div class="chapter-soon"><p class="eyebrow">{page.number:02d} · {html.escape(page.kicker)}</p>'
                     f'<h1>{html.escape(page.title)}</h1><div class="soon-box" role="status">{html.escape(why)}</div></div>')


def tour_view(state: LabState):
    try:
        from chapters.tour import build_tour   # the guided tour issue provides this
    except ImportError:
        return html_pane(f'<div class="landing"><h1>Guided tour</h1><div class="soon-box" role="status">'
                         f'The full-screen tour ({len(TOUR)} steps) is still being built. Meanwhile, explore '
                         f'chapter by chapter: <a href="{href(registry.pages()[0].slug)}">start with chapter 1</a>.'
                         '</div></div>')
    return build_tour(state)


def page_view(slug: str, state: LabState):
    """The main content of one page, built for this session only."""
    if slug == "":
        return html_pane(landing_html(state.answers))
    page = registry.page_by_slug(slug)
    if page.slug == BRIDGE_SLUG:
        from chapters.bridge import FiveQuestions
        body = FiveQuestions(state)
    elif page.chapter_class is None:
        body = coming_soon(page)
    else:
        try:
            body = page.chapter_class(state)
        except Exception as err:   # one broken chapter must not take the page (or the lab) down
            log.exception("chapter %s could not be built", page.slug)
            page = registry.Page(page.slug, page.number, page.part, page.kicker, page.title,
                                 load_error=f"{type(err).__name__}: {err}")
            body = coming_soon(page)
    opening = part_opening(page)
    return pn.Column(*([opening] if opening else []), body, sizing_mode="stretch_width", margin=0)


PAGE_TURN_YIELDS = 3
_TURNSTILES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


@contextlib.asynccontextmanager
async def page_turn():
    """One piece of page building, one at a time across all sessions, after other work has had
    PAGE_TURN_YIELDS turns of the event loop.

    All sessions share the server's one event loop, and answering a classmate's slider move takes it
    several turns (the message, Panel's change callback, the redraw and its reply). When a class
    opens pages at once, a piece from every opening page would queue ahead of each of those turns;
    this way at most one piece (~10–50 ms) is ahead of every few.
    """
    loop = asyncio.get_running_loop()
    lock = _TURNSTILES.setdefault(loop, asyncio.Lock())
    async with lock:                        # FIFO: the pages in progress take turns
        for _ in range(PAGE_TURN_YIELDS):   # other sessions' work first (free when there is none)
            await asyncio.sleep(0)
        yield


async def show_in_pieces(slot: pn.Column, view: pn.Column) -> None:
    """Show a page's content in `slot` one section at a time, each in a `page_turn`.

    A chapter page takes the loop ~150 ms to turn into Bokeh models: done in one piece, every other
    student's slider move would wait behind each page a classmate opens. Section by section, no
    turn takes more than ~15–45 ms (README, Performance).
    """
    sections = view.objects[-1] if view.objects else None   # the chapter's own column of sections
    if not isinstance(sections, pn.Column):
        async with page_turn():
            slot.objects = [view]
        return
    pieces, sections.objects = list(sections.objects), []
    async with page_turn():
        slot.objects = [view]
    for piece in pieces:
        async with page_turn():
            sections.append(piece)


def loading_view() -> tuple[pn.Column, callable]:
    bar = pn.indicators.Progress(value=None, max=100, sizing_mode="stretch_width", bar_color="primary")
    text = html_pane("")

    def refresh():
        if LOADER.error:
            text.object = (f'<div class="loading"><p class="err" role="alert">The models could not be loaded: '
                           f'{html.escape(LOADER.error)}</p></div>')
            bar.visible = False
            return
        bar.value = int(LOADER.fraction * 100) if LOADER.fraction > 0 else None
        text.object = (f'<div class="loading" role="status" aria-live="polite"><p>Loading the models — '
                       f'{html.escape(LOADER.message)}</p><p>The first start takes up to a minute; '
                       f'later pages open at once.</p></div>')

    refresh()
    return pn.Column(text, bar, sizing_mode="stretch_width"), refresh


# --- the app ---------------------------------------------------------------------------------------

def first_arg(args: dict, name: str) -> str | None:
    """The first value of URL query parameter `name`, as text (None when absent)."""
    values = args.get(name) or []
    return values[0].decode("utf-8", "replace") if values else None


def join_classroom() -> tuple[str | None, object]:
    """Register this session with the classroom; its model work and entry go when it closes."""
    doc = pn.state.curdoc
    context = getattr(doc, "session_context", None)
    if context is None:          # built outside a server (tests): nothing to register
        return None, doc
    session_id = context.id
    CLASSROOM.join(session_id, doc, pn.state.location)
    pn.state.on_session_destroyed(lambda ctx: CLASSROOM.leave(ctx.id))
    pn.state.onload(lambda: end_with_its_tab(context))
    return session_id, doc


def end_with_its_tab(context) -> None:
    """Let Bokeh discard this session at its next check (every 17 s) once its page disconnects.

    By default a session outlives its closed tab by 15–32 s, kept for a reconnection this lab never
    makes (Panel's `reconnect` is off). In a class those left-behind pages were most of the server's
    heap, and every full garbage collection walked them (README, Performance). Asked once the page
    is connected (on load): a session whose page has not connected yet is kept as before.
    """
    try:
        session = context.server_context.application_context.get_session(context.id)
    except ProtocolError:   # already discarded
        return
    session.request_expiration()


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


def build_app():
    args = pn.state.session_args or {}
    slug = (args.get("chapter") or [b""])[0].decode("utf-8", "replace")
    wants_tour = bool(args.get("tour"))
    notice = ""
    if slug and registry.page_by_slug(slug) is None:
        notice = f"There is no chapter called “{slug}”; pick one from the list on the left."
        slug = ""
    page = registry.page_by_slug(slug) if slug else None
    title = "Speculative Lab" + (f" · {page.short_title}" if page else " · Guided tour" if wants_tour else "")

    bid = browser_id()
    session_id, doc = join_classroom()
    lecturer = lecturer_view(first_arg(args, "lecturer"), session_id)
    # No template busy spinner: Panel syncs every template's spinner with one process-wide busy flag,
    # so each event in any session would patch all sessions' pages (a class of 40 made that 40× the
    # traffic). Our chapters show their own progress (widgets.Busy).
    template = pn.template.BootstrapTemplate(title=title, sidebar_width=300, header_background="#1f4e9e",
                                             collapsed_sidebar=wants_tour, busy_indicator=None)
    content = pn.Column(sizing_mode="stretch_width", margin=0, css_classes=["page-content"])
    badge_slot = pn.Column(sizing_mode="stretch_width", margin=0)
    settings_slot = pn.Column(sizing_mode="stretch_width", margin=0)
    template.sidebar.append(html_pane(nav_html("" if wants_tour else slug)))
    keys = ShellKeys(browser_id=bid, width=0, height=0, margin=0)
    template.main.append(pn.Column(
        keys,
        badge_slot,
        settings_slot,
        *([html_pane(f'<p class="soon-box" role="alert">{html.escape(notice)}</p>')] if notice else []),
        *([lecturer] if lecturer is not None else []),
        content,
        *([] if wants_tour else [html_pane(pager_html(slug))]),
        sizing_mode="stretch_width"))

    landing = slug == "" and not wants_tour
    if landing:   # the landing page needs no model: show it at once, the badge slot shows loading
        content.objects = [html_pane(landing_html(_SNAPSHOTS.get(bid, {}).get("answers")))]

    def student() -> LabState:
        state = session_state(bid, session_id)
        state.reduced_motion = keys.reduced_motion
        keys.param.watch(lambda e: setattr(state, "reduced_motion", e.new), "reduced_motion")
        badge_slot.objects = [PairBadge(state)]
        if not wants_tour:   # the projector shows the tour alone; settings live on the chapter pages
            settings_slot.objects = [settings_card(state)]
        return state

    async def fill_page():   # a chapter: sent after the page's frame, in pieces (page_turn)
        async with page_turn():
            state = student()
        if not landing:
            async with page_turn():
                view = page_view(slug, state)
            await show_in_pieces(content, view)

    def fill_tour():         # the projector's one page, built at once (it lays out its own steps)
        content.objects = [tour_view(student())]

    fill = fill_tour if wants_tour else fill_page
    if LOADER.ready:
        if wants_tour:
            fill()
        else:
            pn.state.onload(fill)
    else:
        view, refresh = loading_view()
        (badge_slot if landing else content).objects = [view]
        callback = None
        filled = []

        def poll():
            if filled:
                return
            if LOADER.ready or LOADER.error:
                callback.stop()
            if LOADER.ready:
                filled.append(True)
                pn.state.execute(fill)
            else:
                refresh()

        callback = pn.state.add_periodic_callback(poll, period=300)
        # Also woken by the loader itself the moment it finishes (the poll is the fallback).
        LOADER.when_done(pn.state.curdoc, poll)
    return template



def configure() -> None:
    """Panel settings for the whole app: everything served inline (offline), large type."""
    pn.extension(inline=True, raw_css=[(ASSETS / "speclab.css").read_text()], notifications=False)

    # Large type on every button (Bokeh widgets live in shadow roots, so page CSS cannot reach them).
    button_css = (":host .bk-btn { --bs-btn-font-size: 1.05rem; font-size: 1.05rem; padding: 7px 14px; }"
                  ":host .bk-btn:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }")
    for widget in (pn.widgets.Button, pn.widgets.RadioButtonGroup, pn.widgets.Toggle):
        widget.param.stylesheets.default = [button_css]

    LOADER.start()   # the pair loads in the background; pages show its progress meanwhile
