"""The "five questions it raises" page between Part II and Part III: one link per chapter 5–10."""
from __future__ import annotations

import html

import panel as pn

from chapters import registry
from chapters.state import LabState

QUESTIONS = [   # (chapter, short name, the question it answers) — from the lecture's page
    (5, "One pass", "How can one call check many tokens?"),
    (6, "Accept rule", "When is a guess good enough to keep?"),
    (7, "Correction", "What do we write after a miss?"),
    ((8, 9), "A round, in code", "How do the pieces fit together?"),
    (10, "Speed-up", "When is it really faster?"),
]

CSS = """
.fq h1 { font-size: 2.3rem; margin: 4px 0 10px; }
.fq .num { color: #1f4e9e; font-weight: 800; letter-spacing: .06em; text-transform: uppercase; }
.fq p { font-size: 1.2rem; line-height: 1.5; }
.fq ol { list-style: none; padding: 0; display: grid; gap: 10px; counter-reset: q; }
.fq li { counter-increment: q; }
.fq li a { display: flex; gap: 14px; align-items: baseline; border: 2px solid #c5cad3; border-radius: 10px;
           padding: 12px 16px; text-decoration: none; color: #1b1b1f; font-size: 1.2rem; }
.fq li a:hover { border-color: #1f4e9e; background: #eef3fb; }
.fq li a::before { content: counter(q); font-weight: 800; color: #fff; background: #1f4e9e;
                   border-radius: 50%; min-width: 1.8em; height: 1.8em; display: inline-flex;
                   align-items: center; justify-content: center; }
.fq li b { color: #1f4e9e; min-width: 9em; }
.fq li .ch { margin-left: auto; color: #44474d; font-size: 1rem; white-space: nowrap; }
a:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
"""


def questions_html() -> str:
    by_number = {p.number: p for p in registry.chapter_pages()}
    items = []
    for chapters, name, question in QUESTIONS:
        numbers = chapters if isinstance(chapters, tuple) else (chapters,)
        first = by_number[numbers[0]]
        where = "chapters " + "–".join(str(n) for n in numbers) if len(numbers) > 1 else f"chapter {numbers[0]}"
        items.append(f'<li><a href="?chapter={first.slug}"><b>{html.escape(name)}</b>'
                     f'<span>{html.escape(question)}</span><span class="ch">{where} →</span></a></li>')
    return ('<div class="fq"><span class="num">Guess, check, keep · what it leaves open</span>'
            '<h1>Five questions it raises.</h1>'
            '<p>The picture of Part II hides five questions. Each chapter of Part III answers one of '
            'them — with the live models and every number on screen computed.</p>'
            f'<ol>{"".join(items)}</ol></div>')


class FiveQuestions(pn.viewable.Viewer):
    def __init__(self, state: LabState | None = None, **params):
        super().__init__(**params)
        self.state = state

    def __panel__(self):
        return pn.pane.HTML(questions_html(), stylesheets=[CSS], sizing_mode="stretch_width")
