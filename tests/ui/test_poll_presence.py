"""The class poll in a browser after tabs close, and after the reveal: three students answer chapter 3's
question; two close their tabs and the lecturer's count says so within a few seconds (the websocket's
close, shell.room.tabclose, not Bokeh's check for unused sessions every 17 s); the lecturer reveals and
the lecturer's own histogram marks the correct answer."""
import time

from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, QUESTION, act, answer, lecturer_status, open_page, separate_browsers

PROMPT_LEAVE = 4.0        # seconds within which a closed tab leaves the lecturer's count
POLL_TEXT = """(el) => { const out = []; const walk = (n) => { if (n.shadowRoot) walk(n.shadowRoot);
  for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent); else if (c.nodeType === 1) walk(c); } };
  walk(el); return out.join('').replace(/\\s+/g, ' '); }"""


def poll_text(lecturer) -> str:
    """The text of the lecturer's class poll (its histograms' legends), not of the chapter's card."""
    return lecturer.locator(".poll-question").first.evaluate(POLL_TEXT)


def test_closed_tabs_leave_the_count_at_once_and_the_revealed_histogram_marks_the_answer(browser, server, shot):
    errors = []
    contexts, pages = separate_browsers(browser, 4, errors)
    lecturer, students = pages[0], pages[1:]
    try:
        open_page(lecturer, server + f"?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
        act(lecturer, "reset-all").click()
        for pg, choice in zip(students, ("1", "5", "5")):
            open_page(pg, server + "?chapter=checking", QUESTION)
            answer(pg, choice)
        wait_until(lambda: lecturer_status(lecturer).startswith("3 of 3 browsers here have answered"),
                   message="3 votes on the lecturer's view")

        # one tab, then the other at once: Bokeh's check for unused sessions (every 17 s) could count
        # out at most one of them within PROMPT_LEAVE; each leaves with its websocket's close
        for context, here in ((contexts[2], "2 of 2 browsers here have answered"),
                              (contexts[3], "1 of 1 browser here has answered")):
            closed = time.monotonic()
            context.close()
            wait_until(lambda here=here: lecturer_status(lecturer).startswith(here), timeout=PROMPT_LEAVE,
                       message=f"a closed tab to leave the count within {PROMPT_LEAVE} s ({here})")
            assert time.monotonic() - closed < PROMPT_LEAVE
        assert "2 answers from browsers that have left" in lecturer_status(lecturer)

        assert "✓ the answer" not in poll_text(lecturer)          # nothing marked before the reveal
        act(lecturer, "reveal-3").click()
        wait_until(lambda: "✓ the answer" in poll_text(lecturer), message="the lecturer's histogram to mark the answer")
        text = poll_text(lecturer)
        assert "A 1: 1 (33%) · ✓ the answer" in text and "B 5: 2 (67%)" in text and "✓ the answer" not in \
            text.split("B 5:", 1)[1]
        shot(lecturer, "poll-lecturer-revealed-answer", scroll_to=lecturer.locator(".class-poll").first)
    finally:
        act(lecturer, "reset-all").click()                                     # later tests answer freely
        for c in contexts[:2]:
            c.close()
    assert not errors, f"console errors: {errors[:5]}"
