"""The tour keeps a question's answer to itself until the lecturer reveals it.

A student answers chapter 7's question on its page (where the result loads on open), then opens the
tour in the same browser: its answer follows it there and the tour's chapter computes the result
ahead, yet step 22's live histogram and verdict show no answer mark. Chapter 13's question step
measures the six kinds ahead of its last step, which reads the bars; the question's card stays
without a mark until the reveal.
"""
from shell.tour.steps import TOUR, first_step
from tests.helpers import wait_until
from tests.ui.helpers import answer, deep_text, has, open_page, rendered

CH7_CHOICE = "The kept drafts already supply p's overlap with q; sampling all of p again counts that overlap twice"
MARKS = ("✓ the answer", "✓ Right", "✗ Not quite")


def step_with(chapter: int, part: str) -> int:
    """The tour's first step of `chapter` that shows `part` (1-based)."""
    for n, step in enumerate(TOUR, start=1):
        if step["chapter"] == chapter and part in str(step["show"]):
            return n
    raise AssertionError(f"no tour step of chapter {chapter} shows {part}")


def no_mark(pg) -> bool:
    text = deep_text(pg)
    return not any(mark in text for mark in MARKS)


def test_chapter_7_step_shows_no_answer_after_the_student_answered(page, server):
    open_page(page, server + "?chapter=correction", "why not simply sample")
    page.get_by_role("button", name=CH7_CHOICE, exact=True).first.click()   # its result loads on open
    wait_until(lambda: has(page, "✓ Right"), timeout=120, message="chapter 7's verdict on its page")
    predict, table = step_with(7, "predict"), step_with(7, "distance")
    open_page(page, server + f"?tour={table}")
    rendered(page, table)
    wait_until(lambda: has(page, "total-variation distance"), timeout=180, message="the tour's chapter 7 result")
    for _ in range(table - predict):
        page.keyboard.press("PageUp")
    rendered(page, predict)
    wait_until(lambda: has(page, "The class is answering"), message="the tour's live count")
    assert no_mark(page), "the tour's step 22 gives the answer away before the lecturer reveals it"
    assert has(page, "lecturer reveals")


def test_chapter_13_steps_show_the_result_after_the_question_and_no_answer_before_reveal(page, server):
    open_page(page, server + "?chapter=predictable", "Which kind of text")
    answer(page, "Code")
    question, result = step_with(13, "predict"), len(TOUR)
    assert question == first_step(13) and result == question + 1
    open_page(page, server + f"?tour={question}")
    rendered(page, question)
    page.keyboard.press("PageDown")                          # the last step: the measured bars, read
    rendered(page, result)
    wait_until(lambda: has(page, "What the bars say", "Measured α, highest first"), timeout=300,
               message="the last step's result")
    page.keyboard.press("PageUp")
    rendered(page, question)
    wait_until(lambda: has(page, "The class is answering"), message="the tour's live count")
    assert no_mark(page), "the tour's chapter 13 question gives the answer away before the lecturer reveals it"
