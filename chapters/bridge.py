"""The "five questions it raises" page between Part II and Part III: one link per chapter 5–10."""
from __future__ import annotations

import html

import panel as pn

from chapters.ch05_one_pass import OnePassChapter
from chapters.ch06_accept_rule import AcceptRuleChapter
from chapters.ch07_correction import CorrectionChapter
from chapters.ch08_full_round import FullRoundChapter
from chapters.ch09_code import CodeChapter
from chapters.ch10_breakeven import BreakEvenChapter
from lab.i18n import N_
from uikit.language import gettext as _
from uikit.state import LabState
from uikit.styles import sheet

QUESTIONS = (   # (the chapters that answer it, short name, the question) — from the lecture's page
    ((OnePassChapter,), N_("One pass"), N_("How can one call check many tokens?")),
    ((AcceptRuleChapter,), N_("Accept rule"), N_("When is a guess good enough to keep?")),
    ((CorrectionChapter,), N_("Correction"), N_("What do we write after a miss?")),
    ((FullRoundChapter, CodeChapter), N_("A round, in code"), N_("How do the pieces fit together?")),
    ((BreakEvenChapter,), N_("Speed-up"), N_("When is it really faster?")),
)


def questions_html() -> str:
    """The page in the page's language: each question, its short name and the chapters that answer it."""
    items = []
    for chapters, name, question in QUESTIONS:
        numbers, first = [c.number for c in chapters], chapters[0]
        where = (_("chapters {first}–{last} →").format(first=numbers[0], last=numbers[-1]) if len(numbers) > 1
                 else _("chapter {n} →").format(n=numbers[0]))
        items.append(f'<li><a href="?chapter={first.slug}"><b>{html.escape(_(name))}</b>'
                     f'<span>{html.escape(_(question))}</span><span class="ch">{html.escape(where)}</span></a></li>')
    kicker, title = _("Guess, check, keep · what it leaves open"), _(FiveQuestions.title)
    intro = _("The picture of Part II hides five questions. Each chapter of Part III answers one of them — with "
              "the live models and every number on screen computed.")
    return (f'<div class="fq"><span class="num">{html.escape(kicker)}</span><h1>{html.escape(title)}</h1>'
            f'<p>{html.escape(intro)}</p><ol>{"".join(items)}</ol></div>')


class FiveQuestions(pn.viewable.Viewer):
    """The bridge page: metadata like a chapter's, placed after the chapter it follows."""
    number, follows, slug, part = None, 4, "questions", "II"
    kicker = "Five questions it raises"
    title = "Five questions it raises."
    question = ""

    def __init__(self, state: LabState | None = None, **params):
        super().__init__(**params)
        self.state = state

    def __panel__(self):
        return pn.pane.HTML(questions_html(), stylesheets=[sheet("bridge")], sizing_mode="stretch_width")
