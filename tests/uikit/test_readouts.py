"""uikit.readouts: chapter 10's predict answer worked through and the note beside the round-cost figure."""
from tests.helpers import made_profile
from uikit.readouts import cost_note_html, question_explanation
from uikit.verdicts import verify_note


def test_the_question_is_worked_through_the_formula():
    text = question_explanation("slower")
    assert text.startswith("E = (1 − 0.6^6) / (1 − 0.6) = 2.38 tokens per round")
    assert "1 + 5·0.3 = 2.50 target calls: speed-up 0.95× — slower." in text


def test_the_cost_note_waits_for_the_profile_then_reads_it():
    assert cost_note_html(None, 4) == ("<p class='cost-note'>The measured cost curve appears once this pair's "
                                       "calls are timed.</p>")
    profile = made_profile(verify=[0.1 * (1 + 0.1 * k) for k in range(17)], draft=0.02)   # c = 0.2, v(k) = 1 + 0.1(k − 1)
    assert cost_note_html(profile, 4) == f"<p class='cost-note'>{verify_note(profile, 4)}</p>"
    assert "v(5) = 1.40" in cost_note_html(profile, 4)
