"""The "Pause & predict" card: a student commits an answer before the chapter shows the result.

    card = PredictCard(state, 2, "For how many …?", kind="number", answer=lambda: count, bounds=(0, 20))
    card.reveal()        # the chapter's result is on screen: the verdict shows

In a served lab each locked answer is also a vote in the class poll (the page's ballot, which the
shell hands down with the student's LabState: `state.ballot()`, shell.poll.answers.Ballot): the student
may change it until the result is shown, and once the lecturer reveals the question the card shows
the class's histogram beside the student's answer. `card.projected()` is the card on the projector
(the tour): how many have answered as votes arrive, the histogram once the lecturer reveals it.
The card speaks the page's language (uikit.language); a choice card's choices are English messages
(`N_`), shown translated while the answer kept and the vote stay English: one poll for all languages.
"""
from __future__ import annotations

import html
import math
from typing import Any, Callable

import panel as pn
import param

from intercept.clicks import on_click
from uikit.actions import action
from uikit.language import gettext as _
from uikit.pollchart import ClassAnswers
from uikit.state import LabState
from uikit.styles import BOX_CSS, CHOICE_CSS

CARD_STYLES = {"border": "2px solid #b35900", "background": "#fff8f0", "border-radius": "8px", "padding": "8px 14px"}


class CardFace(pn.viewable.Viewer):
    """What a predict card shows: its question, the answer inputs (a button per choice, or a number
    box and its lock), a notice about the last answer pressed, the verdict, and the class's answers;
    read-only views on them. PredictCard decides what they say."""

    def _build_face(self, choices, bounds: tuple[int, int], commit: Callable) -> None:
        self._buttons = choice_buttons(choices, commit) if choices else []
        if self._buttons:
            self._inputs = pn.Column(*self._buttons, sizing_mode="stretch_width", margin=0)
        else:
            self._number, self._lock = number_inputs(bounds, commit)
            self._inputs = pn.Row(self._number, self._lock, margin=0)
        self._verdict = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(6, 0))
        self._notice = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=0)
        self._answers = ClassAnswers(numeric=not choices)

    # Read-only views of what the card shows (the widgets stay the card's own).
    @property
    def verdict_text(self) -> str:
        """The line under the answers (HTML): what to do next, what was said, or right or wrong."""
        return self._verdict.object

    @property
    def notice_text(self) -> str:
        """The one-sentence notice (HTML) about the last answer pressed, or ""."""
        return self._notice.object

    @property
    def buttons(self) -> tuple[pn.widgets.Button, ...]:
        """The choice buttons (none on a number card)."""
        return tuple(self._buttons)

    @property
    def number_box(self) -> pn.widgets.IntInput | None:
        """A number card's answer box (None on a choice card)."""
        return self._number if self.kind == "number" else None

    @property
    def lock_button(self) -> pn.widgets.Button | None:
        """A number card's "Lock in my answer" button (None on a choice card)."""
        return self._lock if self.kind == "number" else None

    @property
    def class_answers(self) -> ClassAnswers:
        """The class's histogram beside the verdict (`view`, and its `chart` once shown)."""
        return self._answers

    def __panel__(self):
        head = pn.pane.HTML(head_html(self.position or self.number, self.total, self.question), stylesheets=[BOX_CSS],
                            sizing_mode="stretch_width", margin=0)
        if self.live:   # the projector: the class's answers beside the choices, so the step fits the screen
            body = [pn.Row(self._inputs, self._answers.view, margin=0, sizing_mode="stretch_width"), self._notice,
                    self._verdict]
        else:           # a student's card: the class's answers beside the verdict
            body = [self._inputs, self._notice, pn.Row(self._verdict, self._answers.view, margin=0,
                                                       sizing_mode="stretch_width")]
        return pn.Column(head, *body, css_classes=["predict-card"], sizing_mode="stretch_width", margin=(12, 0),
                         styles=CARD_STYLES)


class PredictCard(CardFace):
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
    class_revealed = param.Boolean(default=False, doc="The lecturer revealed the class's answers.")
    live = param.Boolean(default=False, doc="Show the class's answers as they arrive (the projector).")

    def __init__(self, state: LabState, number: int, question: str, *, choices: list[str] | None = None,
                 answer: Any = None, explanation: str | Callable = "", tolerance: float = 0,
                 bounds: tuple[int, int] = (0, 20), hint: str = "",
                 total: int | None = None, ballot: Any = None, **params):
        super().__init__(**params)
        self.state, self.number, self.question, self.total = state, number, question, total
        self.position: int | None = None   # which of the lab's questions (chapters.registry); else `number`
        self.choices, self.answer, self.explanation = choices, answer, explanation
        self.tolerance, self.hint, self.bounds = tolerance, hint, bounds
        self.kind = "choice" if choices else "number"
        self._build_face(choices, bounds, self.commit)
        self.ballot = ballot if ballot is not None else state.ballot()
        if self.ballot is not None:
            self.ballot.ask(number, self.kind, choices or (), bounds)
            tally = self.ballot.tally(number)
            self.class_revealed = bool(tally and tally.revealed)
            self.ballot.watch(number, self._poll_changed, live=lambda: self.live or self.class_revealed,
                              answer=self.known_answer)
            self.param.watch(lambda e: self.ballot.answer_known(number), ["ready"])    # the lecturer's view
        previous = state.answers.get(number)
        if previous is not None:
            self._lock_in(previous["answer"], restored=True)
        self.param.watch(lambda e: self._update(), ["committed", "ready", "class_revealed", "live"])
        self._update()

    def correct_answer(self):
        return self.answer() if callable(self.answer) else self.answer

    @property
    def locked(self) -> bool:
        """No more changes: the verdict is on screen, or the class's answers are revealed."""
        return (self.committed is not None and self.ready) or self.class_revealed

    def commit(self, value) -> None:
        """Lock in the student's answer; until the result is shown a new one replaces it (and its vote)."""
        self._lock_in(value)

    def _lock_in(self, value, restored: bool = False) -> None:
        if self.locked and not restored:
            return
        problem = answer_problem(self.kind, self.choices, self.bounds, value)
        if not problem and self.ballot is not None:
            problem = self.ballot.vote(self.number, value)
        if problem and not restored:      # one sentence, and nothing changes
            self._notice.object = f'<div class="error" role="alert">{html.escape(problem)}</div>'
            return
        self._notice.object = ""
        if self.ballot is not None and self.ballot.left_out(self.number):
            self._notice.object = f'<div class="verdict waiting" role="status">{html.escape(left_out())}</div>'
        if self.kind == "number":
            value = int(value)
        self.committed = value
        self._record()

    def projected(self) -> PredictCard:
        """This card on the projector: the class's answers shown live as they arrive."""
        self.live = True
        if self.ballot is not None:
            self.ballot.on_projector()      # the projector's page is not one of the class's browsers
        return self

    def _poll_changed(self) -> None:
        tally = self.ballot.tally(self.number)
        if tally is None:
            return
        if self.class_revealed and not tally.revealed and self.committed is not None:
            restarted = _("The lecturer restarted this question: press your answer again to vote.")
            self._notice.object = f'<div class="verdict waiting" role="status">{html.escape(restarted)}</div>'
        self.class_revealed = tally.revealed
        self._update()

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

    def known_answer(self):
        """The correct answer where it can be shown whatever this student said (a fixed answer, or the
        chapter's result on screen), else None: the lecturer's histogram marks it once revealed."""
        return self._truth()

    def _truth(self):
        """The correct answer when it can be shown: the chapter's result is on screen, or (revealed
        to the class) it does not depend on this student's run of the experiment."""
        if self.ready or not callable(self.answer):
            return self.correct_answer()
        return None

    def _answer_shown(self) -> bool:
        """Whether the correct answer may be on screen: the lecturer revealed it to the class, or this
        student answered and their run of the experiment is in. On the projector (the tour with the
        class poll) only the lecturer's reveal shows it, even when the result was computed ahead or
        this browser answered on the chapter's page: the class is still answering."""
        if self.live and self.ballot is not None:
            return self.class_revealed
        return self.class_revealed or (self.ready and self.committed is not None)

    def _show_class(self) -> None:
        """The class's histogram beside the verdict, when revealed (or live on the projector)."""
        show = self.ballot is not None and (self.class_revealed or self.live)
        self._answers.view.visible = show
        tally = self.ballot.tally(self.number) if show else None
        if tally is not None:
            truth = self._truth() if self._answer_shown() else None
            self._answers.show(tally, self.ballot.mine(self.number), truth, live=self.live,
                               left_out=self.ballot.left_out(self.number))

    def _update(self):
        self._show_class()
        for b, choice in zip(self._buttons, self.choices or ()):
            b.disabled = self.locked
            b.variant = "solid" if choice == self.committed else "outline"
        if self.kind == "number":
            self._number.disabled = self._lock.disabled = self.locked
            if self.committed is not None:
                self._number.value = self.committed
        truth = self._truth() if self.committed is not None and self._answer_shown() else None
        if truth is not None:
            self.correct = self._is_right(truth)
            self._record()
        self._verdict.object = verdict_html(self, truth)


def head_html(number: int, total: int | None, question: str) -> str:
    """The card's label ("question 3 of 11") and its question (English, or already translated)."""
    label = (_("✎ Pause & predict · question {number} of {total}").format(number=number, total=total) if total
             else _("✎ Pause & predict · question {number}").format(number=number))
    return f'<div class="plabel">{html.escape(label)}</div><p class="q">{html.escape(said_in_page(question))}</p>'


def choice_buttons(choices: list[str], commit: Callable[[str], None]) -> list[pn.widgets.Button]:
    """A button per choice, in the page's language; pressing one calls `commit(choice)` with the
    choice itself (the English, the poll's key)."""
    buttons = [pn.widgets.Button(label=_(text), color="primary", variant="outline", sizing_mode="stretch_width",
                                 margin=(3, 0), css_classes=["choice"], stylesheets=[CHOICE_CSS]) for text in choices]
    for text, b in zip(choices, buttons):
        on_click(b, lambda e, t=text: commit(t))
    return buttons


def number_inputs(bounds: tuple[int, int], commit: Callable[[int], None]):
    """A whole-number box in `bounds` and its "Lock in my answer" button, which calls `commit(value)`."""
    number = pn.widgets.IntInput(label=_("Your answer"), value=None, start=bounds[0], end=bounds[1], width=160)
    lock = action(_("Lock in my answer"), "lock", color="primary", align="end")
    on_click(lock, lambda e: number.value is not None and commit(number.value))
    return number, lock


def answer_problem(kind: str, choices, bounds: tuple[int, int], value) -> str:
    """Why `value` cannot be an answer to a card of this `kind`, in one sentence ("" when it can)."""
    if kind == "choice":
        return "" if value in choices else _("Press one of the buttons to answer.")
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value) or not lo <= value <= hi:
        return _("Type a whole number from {low} to {high}, then lock it in.").format(low=lo, high=hi)
    return ""


def verdict_html(card: PredictCard, truth) -> str:
    """The line under a card's answers: what to do next, what the student said, or (with `truth`,
    the correct answer once it can be shown) right or wrong with the explanation."""
    if card.committed is None:
        msg = (_("The class's answers are revealed.") if card.class_revealed and card.live
               else _("The class's answers are revealed; you did not answer this one.") if card.class_revealed
               else _("The class is answering; their answers show once the lecturer reveals them.") if card.live
               else _("Commit an answer above to see whether you were right.") if card.ready
               else _("Choose your answer before you look."))
        return f'<div class="verdict waiting">{html.escape(msg)}</div>'
    said = html.escape(shown(card, card.committed))
    if truth is None:
        if card.class_revealed:
            hint = _("The class's answers are revealed; run the experiment below for the answer.")
        elif card.live and card.ballot is not None:
            hint = _("The answer shows once the lecturer reveals the class's answers.")
        elif card.ballot is not None:
            hint = _("{hint} You can change your answer until then.").format(hint=hint_said(card))
        else:
            hint = hint_said(card)
        return ('<div class="verdict waiting">'
                + _("You said <b>{answer}</b>. {hint}").format(answer=said, hint=html.escape(hint)) + "</div>")
    expl = card.explanation(truth) if callable(card.explanation) else card.explanation
    answer = html.escape(shown(card, truth))
    if card.correct:
        head = _("✓ Right.")
    elif card.kind == "number":
        head = _("✗ Not quite: the answer here is <b>{answer}</b> (you said {said}).").format(answer=answer, said=said)
    else:
        head = _("✗ Not quite: the answer is <b>{answer}</b>.").format(answer=answer)
    cls = "right" if card.correct else "wrong"
    return f'<div class="verdict {cls}" role="status">{head} {html.escape(said_in_page(expl))}</div>'


def shown(card: PredictCard, value) -> str:
    """An answer as shown: a choice in the page's language, a number as it is."""
    return said_in_page(value) if card.kind == "choice" and isinstance(value, str) else str(value)


def left_out() -> str:    # why the student's answer is not in the class's histogram
    return _("Your answer is kept and you will see your verdict; the class's histogram already counts an answer "
             "from this computer's network address, so it leaves yours out.")


def hint_said(card: PredictCard) -> str:    # what to do to see the answer
    return said_in_page(card.hint) or _("Now run the experiment below to check.")


def said_in_page(text: str) -> str:
    """`text` in the page's language if a catalog message; as it is if translated already, or empty."""
    return _(text) if text else text
