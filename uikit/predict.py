"""The "Pause & predict" card: a student commits an answer before the chapter shows the result.

    card = PredictCard(state, 2, "For how many …?", kind="number", answer=lambda: count, bounds=(0, 20))
    card.reveal()        # the chapter's result is on screen: the verdict shows
"""
from __future__ import annotations

import html
from typing import Any, Callable

import panel as pn
import param

from uikit.state import LabState
from uikit.styles import BOX_CSS, CHOICE_CSS


class PredictCard(pn.viewable.Viewer):
    """"Pause & predict": commit an answer first; the verdict shows once the chapter's result is in.

    `answer` is the correct choice (a string from `choices`) or number, or a callable returning it
    from live data (called when the verdict is shown). `explanation` is text, or a callable
    `(correct_answer) -> str`. The chapter calls `reveal()` when its experiment has run.
    Answers are kept in `state.answers[number] = {"answer": ..., "correct": ...}`. `total` is how many
    questions the lab asks (a chapter passes the registry's count).
    """
    committed = param.Parameter(default=None, doc="The student's answer, once locked in.")
    ready = param.Boolean(default=False, doc="The chapter's result is on screen.")
    correct = param.Boolean(default=None, allow_None=True, doc="Right or wrong, once revealed.")

    def __init__(self, state: LabState, number: int, question: str, *, choices: list[str] | None = None,
                 answer: Any = None, explanation: str | Callable = "", tolerance: float = 0,
                 bounds: tuple[int, int] = (0, 20), hint: str = "Now run the experiment below to check.",
                 total: int | None = None, **params):
        super().__init__(**params)
        self.state, self.number, self.question, self.total = state, number, question, total
        self.choices, self.answer, self.explanation = choices, answer, explanation
        self.tolerance, self.hint = tolerance, hint
        self.kind = "choice" if choices else "number"
        self._buttons = []
        if self.kind == "choice":
            for text in choices:
                b = pn.widgets.Button(label=text, color="primary", variant="outline",
                                      sizing_mode="stretch_width", margin=(3, 0), css_classes=["choice"],
                                      stylesheets=[CHOICE_CSS])
                b.on_click(lambda e, t=text: self.commit(t))
                self._buttons.append(b)
            self._inputs = pn.Column(*self._buttons, sizing_mode="stretch_width", margin=0)
        else:
            self._number = pn.widgets.IntInput(label="Your answer", value=None, start=bounds[0],
                                               end=bounds[1], width=160)
            self._lock = pn.widgets.Button(label="Lock in my answer", color="primary", align="end")
            self._lock.on_click(lambda e: self._number.value is not None and self.commit(self._number.value))
            self._inputs = pn.Row(self._number, self._lock, margin=0)
        self._verdict = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(6, 0))
        previous = state.answers.get(number)
        if previous is not None:
            self.commit(previous["answer"])
        self.param.watch(lambda e: self._update(), ["committed", "ready"])
        self._update()

    def correct_answer(self):
        return self.answer() if callable(self.answer) else self.answer

    def commit(self, value) -> None:
        """Lock in the student's answer (once; a later call changes nothing)."""
        if self.committed is not None:
            return
        if self.kind == "number":
            value = int(value)
        self.committed = value
        self._record()

    def reveal(self) -> None:
        """The chapter's result is on screen: show the verdict (now, or as soon as they commit)."""
        self.ready = True

    def reset(self) -> None:
        """Hide the verdict again (the chapter's result was cleared); the answer stays locked in."""
        self.ready = False

    def _is_right(self, truth) -> bool:
        if self.kind == "number":
            return abs(self.committed - truth) <= self.tolerance
        return self.committed == truth

    def _record(self):
        self.state.answers = {**self.state.answers,
                              self.number: {"answer": self.committed, "correct": self.correct}}

    def _update(self):
        for b in self._buttons:
            chosen = b.label == self.committed
            b.disabled = self.committed is not None
            b.variant = "solid" if chosen else "outline"
        if self.kind == "number":
            self._number.disabled = self._lock.disabled = self.committed is not None
            if self.committed is not None:
                self._number.value = self.committed
        if self.committed is None:
            msg = ("Commit an answer above to see whether you were right." if self.ready
                   else "Choose your answer before you look.")
            self._verdict.object = f'<div class="verdict waiting">{html.escape(msg)}</div>'
            return
        said = html.escape(str(self.committed))
        if not self.ready:
            self._verdict.object = (f'<div class="verdict waiting">You said <b>{said}</b>. '
                                    f'{html.escape(self.hint)}</div>')
            return
        truth = self.correct_answer()
        self.correct = self._is_right(truth)
        self._record()
        expl = self.explanation(truth) if callable(self.explanation) else self.explanation
        if self.correct:
            head = "✓ Right."
        elif self.kind == "number":
            head = f"✗ Not quite: the answer here is <b>{html.escape(str(truth))}</b> (you said {said})."
        else:
            head = f"✗ Not quite: the answer is <b>{html.escape(str(truth))}</b>."
        cls = "right" if self.correct else "wrong"
        self._verdict.object = f'<div class="verdict {cls}" role="status">{head} {html.escape(expl)}</div>'

    def __panel__(self):
        of = f" of {self.total}" if self.total else ""
        head = pn.pane.HTML(f'<div class="plabel">✎ Pause &amp; predict · question {self.number}{of}</div>'
                            f'<p class="q">{html.escape(self.question)}</p>',
                            stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=0)
        return pn.Column(head, self._inputs, self._verdict, css_classes=["predict-card"],
                         sizing_mode="stretch_width", margin=(12, 0),
                         styles={"border": "2px solid #b35900", "background": "#fff8f0",
                                 "border-radius": "8px", "padding": "8px 14px"})
