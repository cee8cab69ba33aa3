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
