"""The predict card: commit first, the verdict after the result."""
from uikit.predict import PredictCard


def test_choice_card_reveals_only_after_commit_and_result(state):
    card = PredictCard(state, 3, "How many calls?", choices=["1", "5"], answer="1", explanation="One call reads all.")
    card.__panel__()
    assert "before you look" in card.verdict_text
    card.commit("5")
    assert "You said <b>5</b>" in card.verdict_text and card.correct is None
    card.commit("1")                                  # before the result: a new answer replaces it
    card.commit("5")
    assert card.committed == "5" and not any(b.disabled for b in card.buttons)
    card.reveal()
    assert card.correct is False and "Not quite" in card.verdict_text and "One call reads all." in card.verdict_text
    assert state.answers[3] == {"answer": "5", "correct": False}
    card.commit("1")                                  # locked once the verdict is shown
    assert card.committed == "5" and all(b.disabled for b in card.buttons)


def test_reveal_before_commit_waits_for_the_answer(state):
    card = PredictCard(state, 1, "Why?", choices=["a", "b"], answer="b")
    card.reveal()
    assert "Commit an answer" in card.verdict_text
    card.commit("b")
    assert card.correct is True and "✓ Right." in card.verdict_text


def test_number_card_with_live_answer_and_tolerance(state):
    live = {"n": 7}
    card = PredictCard(state, 2, "How many?", answer=lambda: live["n"], tolerance=2, bounds=(0, 20),
                       explanation=lambda n: f"It was {n}.")
    card.number_box.value = 9
    card.lock_button.clicks += 1                            # the "Lock in" button
    assert card.committed == 9
    live["n"] = 12                                    # computed at reveal time, not stored
    card.reveal()
    assert card.correct is False and "It was 12." in card.verdict_text and "<b>12</b>" in card.verdict_text


def test_card_restores_a_previous_answer(state):
    state.answers = {4: {"answer": "x", "correct": True}}
    card = PredictCard(state, 4, "Whose?", choices=["x", "y"], answer="x")
    assert card.committed == "x"


def test_projected_card_keeps_the_answer_hidden_until_the_lecturer_reveals(state):
    """The tour on the projector, opened by a browser that already answered on the chapter's page
    and whose chapter computed its result ahead: neither the histogram nor the verdict gives the
    answer away until the lecturer reveals the question."""
    from shell.poll.answers import Ballot, PollStore
    store = PollStore(salt=b"test")
    state.answers = {4: {"answer": "x", "correct": True}}        # answered on chapter 4's page
    card = PredictCard(state, 4, "Whose?", choices=["x", "y"], answer="x", ballot=Ballot(store, "projector"))
    card.projected()
    card.__panel__()
    store.vote(4, "s1", "y")
    card.reveal()                                                 # the chapter's result came in ahead
    chart = card.class_answers.chart
    assert chart.source.data["n"] == [0, 0] and not any("✓" in label for label in chart.source.data["label"])
    assert "the answer" not in chart.words.object and "Right" not in card.verdict_text
    assert "lecturer reveals" in card.verdict_text
    store.reveal(4)
    assert "✓" in chart.source.data["label"][0] and "✓ the answer" in chart.words.object
    assert "✓ Right." in card.verdict_text


def test_students_card_shows_the_answer_once_answered_and_run(state):
    from shell.poll.answers import Ballot, PollStore
    card = PredictCard(state, 5, "Whose?", choices=["x", "y"], answer="x", ballot=Ballot(PollStore(salt=b"t"), "me"))
    card.__panel__()
    card.reveal()
    assert "Right" not in card.verdict_text
    card.commit("x")
    assert "✓ Right." in card.verdict_text
