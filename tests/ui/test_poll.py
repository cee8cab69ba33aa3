"""The class poll in a browser: three students answer chapter 3's question, the lecturer sees the split,
a changed answer moves a vote, the reveal reaches every student and the tour's predict step, and a
student without the token has no controls and cannot reveal or reset with crafted messages."""
import pytest

from tests.helpers import wait_until
from tests.ui.helpers import (LECTURER_TOKEN, QUESTION, SETTINGS, act, answer, deep_text, has, lecturer_status,
                              no_scroll, open_page)

TOUR_STEP = 8                                              # the tour's step with chapter 3's predict card
CHOICES = ("1", "5", "6", "10")                           # chapter 3's answers, bars A to D
CRAFTED_CLICKS = """() => {
  const {ButtonClick} = Bokeh.require("core/bokeh_events");
  const buttons = [...Bokeh.documents[0].all_models].filter((m) => m.constructor.__name__ === "Button");
  // the card's answer buttons last, so the last vote this sends is known (their labels come back)
  buttons.sort((x, y) => x.css_classes.includes("choice") - y.css_classes.includes("choice"));
  const labels = buttons.map((b) => b.label);
  for (const b of buttons) {                     // what a crafted message can do: click anything it has,
    b.disabled = false;                          // enabled or not, under any label
    b.label = "Reveal question 3 to the class " + "x".repeat(5000);
    b.trigger_event(new ButtonClick());
  }
  return labels;
}"""
PROJECTOR_SCALE = "getComputedStyle(document.documentElement).getPropertyValue('--speclab-scale').trim()"


def choice(pg, text: str):
    """The button of chapter 3's answer `text` on `pg`'s card (uikit.predict: class `choice`, in CHOICES' order)."""
    return pg.locator(".predict-card").first.locator(".choice button").nth(CHOICES.index(text))


def bars(*votes: str) -> list[str]:
    """The lecturer's histogram lines for these votes, e.g. bars("1", "5", "5") -> ["A 1: 1 (33%)", "B 5: 2 (67%)"]."""
    return [f"{'ABCD'[i]} {c}: {votes.count(c)} ({round(100 * votes.count(c) / len(votes))}%)"
            for i, c in enumerate(CHOICES) if c in votes]


def laid_out_at_1080(pg, selector: str, small: dict, projector: bool = False) -> bool:
    """Whether `pg` shows its 1920×1080 layout: `selector`'s box is wider than it was at 1280×720
    (`small`); on the projector (the tour) also the type scaled ×1.5 and the step grown to fill the
    screen's height (assets/tour.js reports the room, shell/tour/fit.py grows the figures)."""
    big = pg.locator(selector).first.bounding_box()
    if not big or big["width"] < small["width"] + 300:
        return False
    return not projector or (pg.evaluate(PROJECTOR_SCALE) == "1.5" and big["y"] + big["height"] >= 0.9 * 1080)


@pytest.fixture
def classroom(browser, server):
    """A lecturer page on chapter 3 (the token: its question leads the poll), three students on chapter
    3, all with their own cookies."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(4)]
    pages = [c.new_page() for c in contexts]
    for pg in pages:
        pg.set_default_timeout(60000)
    lecturer, students = pages[0], pages[1:]
    open_page(lecturer, server + f"?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
    act(lecturer, "reset-all").click()
    for pg in students:
        open_page(pg, server + "?chapter=checking", QUESTION)
    yield lecturer, students
    act(lecturer, "reset-all").click()                                      # later tests answer freely
    wait_until(lambda: lecturer_status(lecturer).startswith("0 of"), message="the poll reset")
    for c in contexts:
        c.close()


def test_votes_reach_the_lecturer_the_reveal_reaches_students_and_the_tour(classroom, browser, server, shot):
    lecturer, (a, b, c) = classroom
    answer(a, "1")
    answer(b, "5")
    answer(c, "5")
    # the lecturer's own page watches and is not counted: three browsers here, all answered
    wait_until(lambda: lecturer_status(lecturer).startswith("3 of 3 browsers here have answered"),
               message="3 votes on the lecturer's view")
    wait_until(lambda: has(lecturer, "A 1: 1 (33%)", "B 5: 2 (67%)"), message="the 1 / 2 split")
    assert not has(a, "The class's answers")                     # nothing shown before the reveal

    answer(b, "1")                                                # a changed answer moves the vote
    wait_until(lambda: has(lecturer, "A 1: 2 (67%)", "B 5: 1 (33%)"), message="the vote to move")
    assert lecturer_status(lecturer).startswith("3 of ")

    tour = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    try:
        open_page(tour, server + f"?tour={TOUR_STEP}", QUESTION)
        # the projector counts who answered while the class answers, never what: no bars before the reveal
        wait_until(lambda: has(tour, "The class is answering: 3 of 3"), message="the tour's live count")
        assert not has(tour, "A 1:") and not has(tour, "(67%)")
        answer(c, "1")                                            # the count stays, the bars stay hidden
        wait_until(lambda: has(lecturer, "A 1: 3 (100%)"), message="the lecturer to follow a vote")
        answer(c, "5")
        wait_until(lambda: has(lecturer, "A 1: 2 (67%)"), message="the lecturer to follow a changed vote")
        assert has(tour, "The class is answering: 3 of 3") and not has(tour, "A 1:") and not has(tour, "B 5:")
        shot(tour, "poll-tour-live")
        scroll, height = no_scroll(tour)
        assert scroll <= height + 2, f"the tour's predict step with the class's answers scrolls by {scroll - height} px"

        act(lecturer, "reveal-3").click()
        for pg in (a, b, c):
            wait_until(lambda pg=pg: has(pg, "The class's answers (revealed): 3 of", "your answer"),
                       message="the reveal to reach a student")
        assert has(a, "✓ Right.") and has(b, "✓ Right.") and has(c, "Not quite")
        assert choice(a, "5").is_disabled()                           # answers are final now
        wait_until(lambda: has(tour, "The class's answers (revealed)", "✓ the answer", "A 1: 2 (67%)"),
                   message="the tour's reveal")
        wait_until(lambda: "revealed to the class" in lecturer_status(lecturer), message="the lecturer's status")

        card = a.locator(".predict-card").first
        shot(a, "poll-revealed-card", scroll_to=card)
        shot(lecturer, "poll-lecturer-view", scroll_to=lecturer.locator(".class-poll").first)
        shot(tour, "poll-tour-revealed")
        for pg, name, selector in ((a, "poll-revealed-card-1080", ".predict-card"),
                                   (lecturer, "poll-lecturer-view-1080", ".class-poll"),
                                   (tour, "poll-tour-revealed-1080", ".predict-card")):
            small = pg.locator(selector).first.bounding_box()
            pg.set_viewport_size({"width": 1920, "height": 1080})
            wait_until(lambda pg=pg, selector=selector, small=small: laid_out_at_1080(pg, selector, small, pg is tour),
                       message=f"the {name} layout")
            shot(pg, name)

        act(lecturer, "reset-question-3").click()
        wait_until(lambda: lecturer_status(lecturer).startswith("0 of"), message="the reset")
        wait_until(lambda: has(a, "press your answer again"), message="the reset to reach a student")
        assert not choice(a, "5").is_disabled()
    finally:
        tour.context.close()


def test_a_student_has_no_controls_and_crafted_messages_change_nothing(classroom, browser, server):
    lecturer, (a, b, c) = classroom
    answer(a, "1")
    answer(b, "5")
    wait_until(lambda: lecturer_status(lecturer).startswith("2 of"), message="2 votes")
    assert not has(a, "Class poll") and not has(a, "Reveal question 3") and not has(a, "Reset question")

    labels = c.evaluate(CRAFTED_CLICKS)                   # clicks on every button, relabelled
    voted = [label for label in labels if label in CHOICES]
    assert len(voted) == len(CHOICES) and labels[-len(CHOICES):] == voted        # the answers clicked last
    # c's last click is its one vote; the lecturer shows it only once every click before it is handled
    wait_until(lambda: has(lecturer, *bars("1", "5", voted[-1])), message="c's one vote, its last click")
    status = lecturer_status(lecturer)
    assert status.startswith("3 of") and "revealed" not in status       # one vote, nothing revealed
    assert not has(a, "The class's answers")

    act(lecturer, "reveal-3").click()
    wait_until(lambda: has(a, "The class's answers (revealed)"), message="the reveal")
    before = deep_text(lecturer).split("Question 3", 1)[-1][:400]
    c.evaluate(CRAFTED_CLICKS)                             # after the reveal: no vote moves, no reset
    # c then opens its settings card: the server builds the card's widgets after handling every
    # click sent before, and any change to the poll reaches the lecturer's page ahead of them
    assert act(c, "apply-settings").count() == 0
    c.locator(SETTINGS).first.click()
    act(c, "apply-settings").wait_for(state="visible")
    assert deep_text(lecturer).split("Question 3", 1)[-1][:400] == before
    assert has(a, "The class's answers (revealed)")
