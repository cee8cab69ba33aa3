"""The pages of the lab, in order, discovered from the chapter modules that exist.

Each chapter module `chapters/chNN_*.py` defines one `Chapter` subclass; the shell and the tour ask
this registry for the pages. A chapter whose module has not landed yet is listed with its spec
title and served as "coming soon", so navigation and counts never depend on who finished first.

    for page in pages():              # landing excluded; chapters and the bridge, in reading order
        page.slug, page.number, page.part, page.title, page.chapter_class
"""
from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

PARTS = {
    "I": dict(name="Why", kicker="Part I of III · Intuition & motivation",
              title="Why do we need a trick at all?",
              intro="No formulas yet. First the problem — what makes a large model slow — and then two "
                    "everyday observations that point to a way out.",
              summary="a big model writes one word per slow call, and two everyday observations hint at "
                      "a way out."),
    "II": dict(name="The idea", kicker="Part II of III · The approach",
               title="Let the small model guess. Let the big model check.",
               intro="Put the two facts together — most words are easy, and checking is cheap — and the "
                     "whole method fits in one picture: a junior writer drafts ahead, the senior writer "
                     "approves in one look. Details wait until Part III.",
               summary="a small model guesses ahead and the big model checks: the whole method in one "
                       "picture."),
    "III": dict(name="The details", kicker="Part III of III · Details & implementation",
                title="Now open the box.",
                intro="Each chapter answers one of the five questions. The symbols p, q, γ and α appear "
                      "only when they are needed, and every formula is filled in with the numbers on screen.",
                summary="the accept rule, the correction that keeps the output exact, a round in code, and "
                        "when it really pays off."),
}

# What CHAPTERS.md promises, used until a chapter's module lands (and for its part and order).
PLANNED = [
    (1, "dilemma", "I", "The dilemma", "Good is slow. Fast is sloppy."),
    (2, "easy-words", "I", "A first lucky fact", "Most words are easy."),
    (3, "checking", "I", "A second lucky fact", "Checking is faster than writing."),
    (4, "guess-check-keep", "II", "The idea in one picture", "Guess, check, keep."),
    (5, "one-pass", "III", "Question 1 · one pass", "One pass gives the target's view at every position."),
    (6, "accept-rule", "III", "Question 2 · the accept rule", "Keep a guess as often as the target agrees."),
    (7, "correction", "III", "Question 3 · the correction", "Corrections go where the draft was too shy."),
    (8, "full-round", "III", "Question 4 · a full round", "Keep the prefix, correct once, drop the rest."),
    (9, "code", "III", "Question 4, continued · implementation", "The whole round fits in seventeen lines."),
    (10, "speed-up", "III", "Question 5 · when does drafting save time?",
     "Tokens per round, divided by cost per round."),
    (11, "timeline", "III", "Putting it together", "Same distribution, a different schedule."),
]
BRIDGE_SLUG = "questions"


@dataclass
class Page:
    slug: str
    number: int | None          # None for the bridge page
    part: str
    kicker: str
    title: str
    chapter_class: type | None = None   # None: not landed yet (coming soon) or the bridge
    load_error: str = ""        # a module that exists but failed to import

    @property
    def nav_label(self) -> str:
        return f"{self.number} · {self.short_title}" if self.number else self.short_title

    @property
    def short_title(self) -> str:
        return self.title.rstrip(".")


def _chapter_modules() -> dict[int, str]:
    """chNN_name modules present in the chapters package, by number."""
    folder = Path(__file__).resolve().parent
    found = {}
    for info in pkgutil.iter_modules([str(folder)]):
        name = info.name
        if name.startswith("ch") and name[2:4].isdigit() and name[4:5] == "_":
            found[int(name[2:4])] = f"chapters.{name}"
    return found


def _chapter_class(module_name: str):
    from chapters.base import Chapter
    module = importlib.import_module(module_name)
    classes = [obj for obj in vars(module).values()
               if inspect.isclass(obj) and issubclass(obj, Chapter) and obj is not Chapter
               and obj.__module__ == module.__name__ and obj.number]
    if not classes:
        raise ImportError(f"{module_name} defines no Chapter subclass with a number")
    return classes[0]


@lru_cache(maxsize=1)
def pages() -> tuple[Page, ...]:
    """Chapters 1–11 and the bridge ("five questions"), in reading order."""
    modules = _chapter_modules()
    out = []
    for number, slug, part, kicker, title in PLANNED:
        page = Page(slug, number, part, kicker, title)
        if number in modules:
            try:
                cls = _chapter_class(modules[number])
            except Exception as err:  # a chapter in progress must not take the whole lab down
                log.exception("chapter %s failed to import", number)
                page.load_error = f"{type(err).__name__}: {err}"
            else:
                page.chapter_class = cls
                page.slug = cls.slug or slug
                page.part = cls.part or part
                page.kicker = cls.kicker or kicker
                page.title = cls.title or title
        out.append(page)
        if number == 4:
            out.append(Page(BRIDGE_SLUG, None, "II", "Five questions it raises",
                            "Five questions it raises."))
    return tuple(out)


def page_by_slug(slug: str) -> Page | None:
    return next((p for p in pages() if p.slug == slug), None)


def neighbours(slug: str) -> tuple[Page | None, Page | None]:
    """The pages before and after `slug` ("" is the landing page, before chapter 1)."""
    order = list(pages())
    if not slug:
        return None, order[0]
    i = next(i for i, p in enumerate(order) if p.slug == slug)
    return (order[i - 1] if i > 0 else None), (order[i + 1] if i + 1 < len(order) else None)


def chapter_pages() -> list[Page]:
    return [p for p in pages() if p.number]


QUESTION_COUNT = 10   # predict & check questions: one per chapter 1–10 (CHAPTERS.md)
