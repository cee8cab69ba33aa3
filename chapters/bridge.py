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
from uikit.state import LabState
from uikit.styles import sheet

QUESTIONS = (   # (the chapters that answer it, short name, the question) — from the lecture's page
    ((OnePassChapter,), "One pass", "How can one call check many tokens?"),
    ((AcceptRuleChapter,), "Accept rule", "When is a guess good enough to keep?"),
    ((CorrectionChapter,), "Correction", "What do we write after a miss?"),
    ((FullRoundChapter, CodeChapter), "A round, in code", "How do the pieces fit together?"),
    ((BreakEvenChapter,), "Speed-up", "When is it really faster?"),
)


def questions_html() -> str:
    items = []
    for chapters, name, question in QUESTIONS:
        numbers, first = [c.number for c in chapters], chapters[0]
        where = "chapters " + "–".join(str(n) for n in numbers) if len(numbers) > 1 else f"chapter {numbers[0]}"
        items.append(f'<li><a href="?chapter={first.slug}"><b>{html.escape(name)}</b>'
                     f'<span>{html.escape(question)}</span><span class="ch">{where} →</span></a></li>')
    return ('<div class="fq"><span class="num">Guess, check, keep · what it leaves open</span>'
            f'<h1>{html.escape(FiveQuestions.title)}</h1>'
            '<p>The picture of Part II hides five questions. Each chapter of Part III answers one of '
            'them — with the live models and every number on screen computed.</p>'
            f'<ol>{"".join(items)}</ol></div>')


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
