"""What a page shows: the navigation, the landing page, the pager, and each page's content.

Every list of pages, count and label comes from `chapters.registry`, so a new chapter module shows up
here by itself. `page_content` makes what a page's address asks for (`PageAsk`): a chapter, the
guided tour at a step, or the landing page; the served pages (shell.frame.app.SessionPage) and the
static export (export/) both make their content with it.

    nav_html("dilemma"); pager_html("dilemma"); landing_html(answers)
    course_line()     # the lecturer's course line over the landing page's title: --args --course TEXT
    content = page_content(PageAsk("dilemma"), state)   # the chapter, under its part's opening
    content.view, content.chapter
    page_content(PageAsk(tour=True, step=17), state).tour
"""
from __future__ import annotations

import argparse
import html
import logging
import sys
from dataclasses import dataclass

import panel as pn

from chapters import registry
from chapters.registry import PARTS
from lab.errors import public_message
from lab.i18n import N_
from shell.tour.steps import TOUR, clamp_step, first_step
from shell.tour.view import Tour, build_tour
from uikit.language import gettext as _, ngettext, say
from uikit.state import LabState
from uikit.styles import SHELL_CSS

log = logging.getLogger(__name__)


NUMBER_WORDS = {3: N_("three"), 4: N_("four"), 5: N_("five"), 6: N_("six")}


def course_line(argv: list[str] | None = None) -> str | None:
    """The lecturer's course line over the landing page's title ("CS 101 · Week 6"), or None: the
    server's `--args --course TEXT` (parsed from its arguments as shell.lecturer.controls parses
    --lecturer-token-file), or the export's `--course TEXT` (the export's own arguments). Blank is none."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--course")
    text = parser.parse_known_args(sys.argv[1:] if argv is None else argv)[0].course
    return text.strip() if text and text.strip() else None


def href(slug: str) -> str:
    return f"?chapter={slug}" if slug else "?"


def html_pane(markup: str, **kwargs) -> pn.pane.HTML:
    return pn.pane.HTML(markup, stylesheets=[SHELL_CSS], sizing_mode="stretch_width", **kwargs)


def short_title(page: registry.Page) -> str:
    """A page's title without its full stop, in the page's language."""
    return _(page.title).rstrip(".。")


def nav_label(page: registry.Page) -> str:
    """"1 · Good is slow. Fast is sloppy" (the registry's `nav_label`), in the page's language."""
    return f"{page.number} · {short_title(page)}" if page.number else short_title(page)


def nav_html(current: str) -> str:
    """Navigation grouped by part; the current page marked with aria-current."""
    cur = ' aria-current="page"' if current == "" else ""
    label, home, tour = (html.escape(s) for s in (_("Chapters"), _("Start · the question"), _("▶ Guided tour")))
    out = [f'<nav class="nav" aria-label="{label}"><a class="home" href="?"{cur}>{home}</a>']
    for key, part in PARTS.items():
        heading, name = html.escape(_("PART {part}").format(part=key)), html.escape(_(part["name"]))
        out.append(f'<div class="part">{heading} <span>{name}</span></div><ol>')
        for p in registry.pages():
            if p.part == key:
                cur = ' aria-current="page"' if p.slug == current else ""
                out.append(f'<li><a href="{href(p.slug)}"{cur}>{html.escape(nav_label(p))}</a></li>')
        out.append("</ol>")
    out.append(f'<div class="part"><a href="?tour=1">{tour}</a></div></nav>')
    return "".join(out)


def pager_html(current: str) -> str:
    prev, nxt = registry.neighbours(current)
    links = []
    start, from_here, label = (html.escape(s) for s in (_("Start"), _("▶ Tour from here"), _("Previous and next")))
    if current and prev is None:
        links.append(f'<a class="prev" href="?" rel="prev">← {start}</a>')
    elif prev is not None:
        links.append(f'<a class="prev" href="{href(prev.slug)}" rel="prev">← {html.escape(nav_label(prev))}</a>')
    page = registry.page_by_slug(current) if current else None
    if page is not None and page.number and any(s["chapter"] == page.number for s in TOUR):
        links.append(f'<a class="tour" href="?tour={first_step(page.number)}">{from_here}</a>')
    if nxt is not None:
        links.append(f'<a class="next" href="{href(nxt.slug)}" rel="next">{html.escape(nav_label(nxt))} →</a>')
    return f'<nav class="pager" aria-label="{label}">{"".join(links)}</nav>'


def landing_item(page: registry.Page) -> str:
    """A part card's line for a page: numbered as the navigation numbers it (a chapter keeps its own
    number in every part; a page without a number gets no marker)."""
    link = f'<a href="{href(page.slug)}">{html.escape(short_title(page))}</a>'
    if page.number:
        return f'<li value="{page.number}">{link}</li>'
    return f'<li style="list-style: none">{link}</li>'


def part_label(key: str) -> str:
    """"Part II · The idea", in the page's language."""
    return html.escape(_("Part {part} · {name}")).format(part=key, name=html.escape(_(PARTS[key]["name"])))


def landing_counts(chapters: int, questions: int, answers: dict | None) -> list[str]:
    """The landing page's counts (their numbers in bold), and this browser's answers when it has some."""
    counts = [ngettext("<b>{n}</b> part", "<b>{n}</b> parts", len(PARTS)).format(n=len(PARTS)) + " · " +
              ngettext("<b>{n}</b> short chapter", "<b>{n}</b> short chapters", chapters).format(n=chapters),
              ngettext("<b>{n}</b> predict &amp; check question", "<b>{n}</b> predict &amp; check questions",
                       questions).format(n=questions),
              ngettext("<b>{n}</b> guided step", "<b>{n}</b> guided steps", len(TOUR)).format(n=len(TOUR)),
              _("press <b>F</b> for fullscreen")]
    if answers:
        right = sum(1 for a in answers.values() if a.get("correct"))
        counts.append(_("you have answered <b>{answered}</b> of {questions} ({right} right)").format(
            answered=len(answers), questions=questions, right=right))
    return counts


def landing_html(answers: dict | None = None, argv: list[str] | None = None) -> str:
    """The landing page; `answers` (this browser's predict & check answers) adds a progress line; the
    course line is the lecturer's (course_line: from `argv`, default the process's arguments)."""
    chapters = registry.chapter_pages()
    questions = registry.question_count()
    cards = []
    for key in PARTS:
        items = "".join(landing_item(p) for p in registry.pages() if p.part == key)
        cards.append(f'<section class="partcard"><h2>{part_label(key)}</h2><ol>{items}</ol></section>')
    summary = " ".join(f"<b>{part_label(k)}</b> — {html.escape(_(PARTS[k]['summary']))}" for k in PARTS)
    counts = landing_counts(len(chapters), questions, answers)
    course = course_line(argv)
    eyebrow = f'<div class="eyebrow">{html.escape(course)}</div>' if course else ""
    n = len(PARTS)
    parts = ngettext("An interactive companion for first-time learners, in {count} part.",
                     "An interactive companion for first-time learners, in {count} parts.", n).format(
        count=_(NUMBER_WORDS[n]) if n in NUMBER_WORDS else n)
    explore, title, inside, start, chapter_by_chapter = (html.escape(s) for s in (
        _("Explore by scrolling, or start the Guided tour for a full-screen, one-step-per-page class presentation."),
        _("Can a small model make a big one faster — same output?"), _("What is inside"),
        _("▶ Start the guided tour"), _("Explore chapter by chapter →")))
    return (
        f'<div class="landing">{eyebrow}<h1>{title}</h1>'
        f'<p>{html.escape(parts)} {summary} {explore}</p>'
        f'<ul class="counts" aria-label="{inside}">' + "".join(f"<li>{c}</li>" for c in counts) + '</ul>'
        f'<div class="cta"><a class="primary" href="?tour=1">{start}</a>'
        f'<a class="secondary" href="{href(chapters[0].slug)}">{chapter_by_chapter}</a></div>'
        f'<div class="parts">{"".join(cards)}</div></div>')


def part_opening(page: registry.Page) -> pn.pane.HTML | None:
    """The part's own headline above its first page."""
    first = next(p for p in registry.pages() if p.part == page.part)
    if first.slug != page.slug:
        return None
    part = PARTS[page.part]
    kicker = _("Part {part} of {last} · {topic}").format(part=page.part, last=list(PARTS)[-1], topic=_(part["topic"]))
    title, intro = html.escape(_(part["title"])), html.escape(_(part["intro"]))
    return html_pane(f'<div class="partopen"><div class="eyebrow">{html.escape(kicker)}</div>'
                     f'<h2>{title}</h2><p>{intro}</p></div>')


def broken_page(page: registry.Page, err: Exception) -> pn.pane.HTML:
    """What a page says when its chapter could not be built: one sentence, the lab keeps working."""
    why = _("This chapter could not be built: {why} The rest of the lab works — reload the page, and tell the "
            "lecturer if it keeps happening.").format(why=say(public_message(err)))
    kicker, title = html.escape(_(page.kicker)), html.escape(_(page.title))
    return html_pane(f'<div class="chapter-broken"><p class="eyebrow">{kicker}</p>'
                     f'<h1>{title}</h1><div class="notice" role="alert">{html.escape(why)}</div></div>')


def first_arg(args: dict, name: str) -> str | None:
    """The first value of URL query parameter `name`, as text (None when absent)."""
    values = args.get(name) or []
    return values[0].decode("utf-8", "replace") if values else None


@dataclass(frozen=True)
class PageAsk:
    """What a page's address asks for: a chapter's slug ("" the landing page) or the guided tour at
    `step`, and a notice the page shows (an address naming no chapter)."""
    slug: str = ""
    tour: bool = False
    notice: str = ""
    step: int = 1

    @classmethod
    def from_args(cls, args: dict) -> PageAsk:
        """The page a session's URL query (`?chapter=slug`, `?tour=N`) asks for."""
        slug, tour = first_arg(args, "chapter") or "", bool(args.get("tour"))
        step = clamp_step(first_arg(args, "tour") or 1)
        if slug and registry.page_by_slug(slug) is None:
            return cls("", tour, _("There is no chapter called “{slug}”; pick one from the list on the left.").format(
                slug=slug), step)
        return cls(slug, tour, step=step)

    @property
    def title(self) -> str:
        page = registry.page_by_slug(self.slug) if self.slug else None
        shown = short_title(page) if page else _("Guided tour") if self.tour else ""
        return "Speculative Lab" + (" · " + shown if shown else "")

    @property
    def landing(self) -> bool:
        return self.slug == "" and not self.tour


@dataclass
class PageContent:
    """A page's content (`page_content`): what the page shows, and what it shows it from."""
    view: pn.viewable.Viewable
    chapter: object = None             # a chapter page's chapter (chapters.base.Chapter)
    tour: Tour | None = None           # the tour page's tour
    problem: Exception | None = None   # why a chapter page's chapter could not be built (its view says so)


def page_content(ask: PageAsk, state: LabState) -> PageContent:
    """The content of the page `ask` names, made for the student `state`, as every page shows it: the
    guided tour at its step; a chapter under its part's opening (one that cannot be built says so in
    one sentence, and the lab keeps working); the landing page with the student's answers. Built for
    this session only; a served page shows it in pieces (shell.frame.app.SessionPage.fill_page), the
    tour and an exported page at once (SessionPage.fill)."""
    if ask.tour:
        tour = build_tour(state, ask.step)
        return PageContent(tour, tour=tour)
    if not ask.slug:
        return PageContent(html_pane(landing_html(state.answers)))
    page = registry.page_by_slug(ask.slug)
    chapter = problem = None
    try:
        chapter = body = registry.build(page, state)
    except Exception as err:   # one broken chapter must not take the page (or the lab) down
        log.exception("chapter %s could not be built", page.slug)
        body, problem = broken_page(page, err), err
    opening = part_opening(page)
    view = pn.Column(*([opening] if opening else []), body, sizing_mode="stretch_width", margin=0)
    return PageContent(view, chapter, problem=problem)
