"""The pages of the lab, in reading order, derived from the page classes themselves.

Every chapter module `chapters/chNN_*.py` defines one `Chapter` subclass whose class attributes are
its metadata (number, slug, part, kicker, title, question); a module that draws for a chapter beside
it (ch10_figures.py, with no `Chapter` subclass) adds no page. The bridge page ("five questions it
raises") sits after the chapter it `follows`. Nothing here repeats them: add a module and its page
appears in the navigation, the landing counts and the tour's chapter menu.

    for page in pages():              # landing excluded; chapters and the bridge, in reading order
        page.slug, page.number, page.part, page.title, page.chapter_class
    view = build(page_by_slug("dilemma"), state)
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from chapters.base import Chapter
from chapters.bridge import FiveQuestions

_PARTS = {
    "I": dict(name="Why", topic="Intuition & motivation",
              title="Why do we need a trick at all?",
              intro="No formulas yet. First the problem — what makes a large model slow — and then two "
                    "everyday observations that point to a way out.",
              summary="a big model writes one word per slow call, and two everyday observations hint at "
                      "a way out."),
    "II": dict(name="The idea", topic="The approach",
               title="Let the small model guess. Let the big model check.",
               intro="Put the two facts together — most words are easy, and checking is cheap — and the "
                     "whole method fits in one picture: a junior writer drafts ahead, the senior writer "
                     "approves in one look. Details wait until Part III.",
               summary="a small model guesses ahead and the big model checks: the whole method in one "
                       "picture."),
    "III": dict(name="The details", topic="Details & implementation",
                title="Now open the box.",
                intro="Each chapter answers one of the five questions. The symbols p, q, γ and α appear "
                      "only when they are needed, and every formula is filled in with the numbers on screen.",
                summary="the accept rule, the correction that keeps the output exact, a round in code, and "
                        "when it really pays off."),
    "IV": dict(name="Beyond the lecture", topic="Other guessers, other texts",
               title="Cheaper guesses, and a bet on your text.",
               intro="Two questions the lecture leaves open. Must a guess come from a model? And when does "
                     "the bet pay? Both pages measure the live models on your prompt.",
               summary="guesses copied from the text or adapted as they go, and how predictable each kind "
                       "of text is."),
}
# Each part's kicker counts the parts ("Part II of" the last key, the number of parts in Roman numerals).
PARTS = {key: {**part, "kicker": f"Part {key} of {list(_PARTS)[-1]} · {part['topic']}"}
         for key, part in _PARTS.items()}


@dataclass(frozen=True)
class Page:
    """One page, as the navigation and the tour see it: its class's metadata."""
    chapter_class: type

    slug = property(lambda self: self.chapter_class.slug)
    number = property(lambda self: self.chapter_class.number)     # None for the bridge page
    part = property(lambda self: self.chapter_class.part)
    kicker = property(lambda self: kicker(self.chapter_class))
    title = property(lambda self: self.chapter_class.title)

    @property
    def short_title(self) -> str:
        return self.title.rstrip(".")

    @property
    def nav_label(self) -> str:
        return f"{self.number} · {self.short_title}" if self.number else self.short_title


def chapter_classes() -> list[type]:
    """The Chapter subclass of every chNN_name module of this package that has one, by number."""
    folder = Path(__file__).resolve().parent
    found = []
    for info in pkgutil.iter_modules([str(folder)]):
        if not (info.name.startswith("ch") and info.name[2:4].isdigit()):
            continue
        module = importlib.import_module(f"chapters.{info.name}")
        found += [obj for obj in vars(module).values()
                  if inspect.isclass(obj) and issubclass(obj, Chapter) and obj.__module__ == module.__name__
                  and obj.number]
    return sorted(found, key=lambda cls: cls.number)


@cache
def pages() -> tuple[Page, ...]:
    """Every chapter and the bridge, in reading order."""
    classes = chapter_classes() + [FiveQuestions]
    return tuple(Page(cls) for cls in sorted(classes, key=lambda c: c.number or c.follows + 0.5))


def chapter_pages() -> list[Page]:
    return [p for p in pages() if p.number]


def page_by_slug(slug: str) -> Page | None:
    return next((p for p in pages() if p.slug == slug), None)


def page_by_number(number: int) -> Page | None:
    return next((p for p in chapter_pages() if p.number == number), None)


def neighbours(slug: str) -> tuple[Page | None, Page | None]:
    """The pages before and after `slug` ("" is the landing page, before chapter 1)."""
    order = list(pages())
    if not slug:
        return None, order[0]
    i = next(i for i, p in enumerate(order) if p.slug == slug)
    return (order[i - 1] if i > 0 else None), (order[i + 1] if i + 1 < len(order) else None)


def question_count() -> int:
    """How many "Pause & predict" questions the chapters ask."""
    return sum(1 for p in chapter_pages() if p.chapter_class.question)


def question_position(chapter_class) -> int | None:
    """Which question (1…question_count()) `chapter_class` asks, in reading order; None for none."""
    asking = [p.chapter_class for p in chapter_pages() if p.chapter_class.question]
    return asking.index(chapter_class) + 1 if chapter_class in asking else None


def kicker(chapter_class) -> str:
    """The line above a page's title. A chapter of Part III that answers one of the five questions
    the bridge page raises poses that question there ("What do we write after a miss?"), from the
    bridge's own list (chapters.bridge.QUESTIONS) and unnumbered, so the only numbered questions on a
    page are the predict cards' ("question 7 of 12"), counted by `question_position`."""
    from chapters.bridge import QUESTIONS
    for answering, _, question in QUESTIONS:
        if chapter_class in answering:
            return question if chapter_class is answering[0] else f"{question} (continued)"
    return chapter_class.kicker


def build(page: Page, state):
    """This session's view of `page`; its heading's kicker and its predict card's count come from
    here (`kicker`, `question_position`), the one source for both."""
    view = page.chapter_class(state)
    view.kicker = kicker(page.chapter_class)
    if getattr(view, "predict", None) is not None:
        view.predict.total = question_count()
        view.predict.position = question_position(page.chapter_class)
    return view
