"""The class poll in the lecturer's view: each question's histogram, who answered, how many answers
the histogram leaves out, reveal and reset (the votes come from shell.poll.answers' ballots).
Every sentence is in the page's language, made when the page draws it."""
from __future__ import annotations

import html
from types import SimpleNamespace
from typing import Callable

import panel as pn

from chapters import registry
from shell.poll.answers import DocumentWatch
from shell.poll.store import PollStore, Tally
from intercept.clicks import on_click
from uikit.actions import action
from intercept.pacing import served
from uikit.language import gettext as _, ngettext, number as shown_number
from uikit.pollchart import PollChart, summary
from uikit.styles import BOX_CSS


def status_html(number: int, tally: Tally | None) -> str:
    """The line under a question's histogram, in the page's language (the bench reads its count:
    data-q, 'N of M')."""
    if tally is None:
        text = _("No one has opened this question yet.")
    else:
        # who answered, as the students' cards say it (uikit.pollchart.summary), less the left-out
        # part: the lecturer's own sentence on it follows
        who = summary(SimpleNamespace(connected=tally.connected, here=tally.here, gone=tally.gone, left_out=0,
                                      per_address=tally.per_address))
        text = (_("{who} · revealed to the class.") if tally.revealed else _("{who}.")).format(who=who)
        if tally.left_out:
            text += " " + left_out_text(tally)
    return f'<div class="poll-status" data-q="{number}" role="status">{html.escape(text)}</div>'


def left_out_text(tally: Tally) -> str:
    """The lecturer's sentence on the answers left out of the histogram ("" when none), naming the
    setting that raises the limit."""
    if not tally.left_out:
        return ""
    return ngettext("1 answer left out of the histogram: it counts {limit} per question from one network "
                    "address (students sharing a computer or a network); set SPECLAB_VOTES_PER_ADDRESS when "
                    "you start the server to count more.",
                    "{n} answers left out of the histogram: it counts {limit} per question from one network "
                    "address (students sharing a computer or a network); set SPECLAB_VOTES_PER_ADDRESS when "
                    "you start the server to count more.", tally.left_out).format(
        n=shown_number(tally.left_out), limit=shown_number(tally.per_address or 0))


def said_html(sentence: str) -> str:
    """A dropped press's sentence (intercept.clicks, in English) in the page's language, as an alert."""
    if not sentence:
        return ""
    said = html.escape(_(sentence))
    return f'<div class="poll-status" role="alert">{said}</div>'


class QuestionPoll(pn.viewable.Viewer):
    """One question in the lecturer's view: its histogram, who answered, reveal and reset."""

    def __init__(self, store: PollStore, number: int, question_text: str, position: int | None = None,
                 answer: Callable[[int], object] | None = None, **params):
        """`number`: the asking chapter's (the poll's key); `position`: which question it is, as the
        students' cards count them (chapters.registry.question_position; default `number`);
        `answer(number)`: the correct answer where this page knows it (else None), marked ✓ once revealed."""
        super().__init__(**params)
        self.store, self.number, self.answer = store, number, answer
        self.chart: PollChart | None = None
        position = position or number
        label = _("Question {position} · chapter {number}").format(position=position, number=number)
        question = html.escape(_(question_text))
        self.head = pn.pane.HTML(f'<div class="plabel">{html.escape(label)}</div><p class="pq">{question}</p>', stylesheets=[BOX_CSS, POLL_CSS],
                                 sizing_mode="stretch_width", margin=(4, 0, 0, 0))
        self.status = pn.pane.HTML(status_html(number, None), stylesheets=[POLL_CSS],
                                   sizing_mode="stretch_width", margin=0)
        self.reveal_button = action(_("Reveal question {position}").format(position=position), f"reveal-{position}",
                                    color="primary", description=_("Show the class's answers on every student's card"))
        self.reset_button = action(_("Reset question {position}").format(position=position),
                                   f"reset-question-{position}", color="warning")
        on_click(self.reveal_button, lambda e: self.store.reveal(self.number), say=self.say)
        on_click(self.reset_button, lambda e: self.store.reset(self.number), say=self.say)
        self.chart_slot = pn.Column(sizing_mode="stretch_width", margin=0)
        self.buttons = pn.Row(self.reveal_button, self.reset_button, margin=0, visible=False)
        self.view = pn.Column(self.head, self.chart_slot, self.status, self.buttons,
                              sizing_mode="stretch_width", margin=(0, 0, 10, 0), css_classes=["poll-question"])
        self.refresh()

    def say(self, sentence: str) -> None:
        """A press of this question's buttons was dropped (intercept.clicks): said under its status line."""
        self.status.object = status_html(self.number, self.store.tally(self.number)) + said_html(sentence)

    def refresh(self) -> None:
        tally = self.store.tally(self.number)
        self.status.object = status_html(self.number, tally)
        self.reveal_button.disabled = tally is None or tally.revealed
        if tally is None:
            return
        self.buttons.visible = True
        if self.chart is None:
            self.chart = PollChart(tally.question.categories, numeric=tally.question.kind == "number", height=170)
            self.chart_slot.objects = [self.chart]
        truth = self.answer(self.number) if tally.revealed and self.answer is not None else None
        categories = tally.question.categories
        self.chart.show(tally.counts, truth=categories.index(str(truth)) if str(truth) in categories else None)

    def __panel__(self):
        return self.view


class PollView(pn.viewable.Viewer):
    """The lecturer's class poll: the question of the chapter on screen with its live histogram,
    reveal and reset; the other questions in a collapsed card (one click away, not five screens
    before the chapter); reset all."""

    def __init__(self, store: PollStore, current: int | None = None, ballot: Ballot | None = None,
                 **params):
        """`store`: the class's poll; `current`: the number of the chapter the lecturer's page shows
        (None: a page that asks nothing, such as the landing page: every question is in the card);
        `ballot`: the page's (Ballots.page_ballot), whose cards know their answers, marked on the
        histograms once revealed."""
        super().__init__(**params)
        self.store = store
        self.ballot = ballot
        answer = self.ballot.known_answer if self.ballot is not None else None
        self.questions = {p.number: QuestionPoll(store, p.number, p.chapter_class.question,
                                                 registry.question_position(p.chapter_class), answer)
                          for p in registry.chapter_pages() if p.chapter_class.question}
        if self.ballot is not None:        # the chapter's card ran its experiment: its answer is known now
            self.ballot.on_answer(lambda number: self.refresh({number}))
        self.current = current if current in self.questions else None
        self.reset_all_button = action(_("Reset all questions"), "reset-all", color="danger")
        self.said = pn.pane.HTML("", stylesheets=[POLL_CSS], sizing_mode="stretch_width", margin=0)
        on_click(self.reset_all_button, lambda e: self.store.reset_all(),
                 say=lambda sentence: setattr(self.said, "object", said_html(sentence)))
        others = [q for n, q in self.questions.items() if n != self.current]
        title = (_("Other questions ({n})") if self.current is not None else _("All {n} questions")).format(
            n=len(others))
        self.others = pn.Card(pn.FlexBox(*[pn.Column(q, width=440, margin=(0, 16, 0, 0)) for q in others],
                                         sizing_mode="stretch_width"),
                              title=title, collapsed=True, sizing_mode="stretch_width", margin=(4, 0),
                              css_classes=["poll-others"])
        self.watch = DocumentWatch(store, self.refresh)
        if served():
            pn.state.on_session_destroyed(lambda ctx: self.watch.stop())

    def refresh(self, numbers: set) -> None:
        for number, view in self.questions.items():
            if None in numbers or number in numbers:
                view.refresh()

    def __panel__(self):
        intro = pn.pane.HTML(f"<p>{html.escape(intro_text(self.store.per_address))}</p>", stylesheets=[POLL_CSS],
                             sizing_mode="stretch_width", margin=0)
        mine = [pn.Column(self.questions[self.current], max_width=640, sizing_mode="stretch_width")] \
            if self.current is not None else []
        return pn.Card(intro, *mine, self.others, self.reset_all_button, self.said, title=_("Class poll"),
                       collapsed=False, sizing_mode="stretch_width", css_classes=["class-poll"])


def intro_text(per_address: int | None) -> str:
    """What the lecturer's poll counts, in words (the page's language), with the setting that changes it."""
    if per_address is None:
        return _("Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                 "reveal the question (their latest answer until then). The histogram counts one anonymous bar "
                 "per browser.")
    return ngettext("Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                    "reveal the question (their latest answer until then). The histogram counts one anonymous "
                    "bar per browser, at most {n} browser per question from one network address; answers beyond "
                    "that are kept for their students and left out of the histogram (SPECLAB_VOTES_PER_ADDRESS "
                    "raises it).",
                    "Each student's locked answer is theirs: kept in their browser, with their verdict after you "
                    "reveal the question (their latest answer until then). The histogram counts one anonymous "
                    "bar per browser, at most {n} browsers per question from one network address; answers beyond "
                    "that are kept for their students and left out of the histogram (SPECLAB_VOTES_PER_ADDRESS "
                    "raises it).", per_address).format(n=shown_number(per_address))


POLL_CSS = """
.pq { font-size: 1.05rem; color: #1b1b1f; margin: 2px 0; line-height: 1.3; }
.poll-status { font-size: 1rem; color: #1b1b1f; }
p { font-size: 1rem; color: #1b1b1f; margin: 2px 0; }
"""
