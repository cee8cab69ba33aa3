"""The class poll for students who share one network address (three students on one computer, or a
class behind one NAT), on a server that counts one answer per address (SPECLAB_VOTES_PER_ADDRESS=1,
the default): each student's answer is kept and each sees their own verdict after the lecturer's
reveal; the histogram counts the first; the lecturer's panel says 2 were left out and names the
setting that raises the limit."""
import os

import pytest

from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, QUESTION, act, answer, deep_text, has, lecturer_status, open_page, \
    separate_browsers, served


@pytest.fixture(scope="module")
def one_per_address(tmp_path_factory):
    env = {**os.environ, "SPECLAB_PAIR": os.environ.get("SPECLAB_PAIR", "tiny"),
           "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN, "SPECLAB_VOTES_PER_ADDRESS": "1"}
    with served(env, tmp_path_factory.mktemp("shared-address") / "server.log") as url:
        yield url


def test_students_behind_one_address_each_keep_their_answer_and_verdict(browser, one_per_address, shot):
    server = one_per_address
    errors = []
    contexts, pages = separate_browsers(browser, 4, errors)
    lecturer, students = pages[0], pages[1:]
    try:
        open_page(lecturer, server + f"?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
        assert has(lecturer, "SPECLAB_VOTES_PER_ADDRESS") and not has(lecturer, "one anonymous vote per browser")
        for pg, choice in zip(students, ("1", "5", "6")):
            open_page(pg, server + "?chapter=checking", QUESTION)
            answer(pg, choice)
            wait_until(lambda pg=pg, choice=choice: has(pg, f"You said {choice}"), message="the answer kept")
        for pg in students:
            assert not has(pg, "this one was not counted") and not has(pg, "tell the lecturer")
        assert has(students[1], "leaves yours out") and not has(students[0], "leaves yours out")
        wait_until(lambda: lecturer_status(lecturer).startswith("3 of 3 browsers here have answered"),
                   message="3 answers on the lecturer's view")
        status = lecturer_status(lecturer)
        assert "2 answers left out of the histogram" in status and "SPECLAB_VOTES_PER_ADDRESS" in status, status
        assert has(lecturer, "A 1: 1 (100%)", "B 5: 0", "C 6: 0")     # the histogram counts one

        act(lecturer, "reveal-3").click()
        for pg in students:
            wait_until(lambda pg=pg: has(pg, "The class's answers (revealed)"), message="the reveal")
        assert has(students[0], "✓ Right.") or has(students[0], "Not quite")
        for pg in students:
            text = deep_text(pg)
            assert "you did not answer this one" not in text
            assert "✓ Right." in text or "Not quite" in text, "a student sees their own verdict"
        # the three answers are different, so at most one is right and the others are told so
        assert sum(has(pg, "✓ Right.") for pg in students) <= 1
        assert sum(has(pg, "Not quite") for pg in students) >= 2
        assert has(students[2], "your answer (not in these bars)")
        shot(students[2], "poll-shared-address-card", scroll_to=students[2].locator(".predict-card").first)
        shot(lecturer, "poll-shared-address-lecturer", scroll_to=lecturer.locator(".class-poll").first)
    finally:
        for c in contexts:
            c.close()
    assert not errors, f"console errors: {errors[:5]}"
