"""The words pages say of a request (uikit.words): who guesses and how many."""
from lab.core.request import Request
from uikit.words import describe


def test_a_request_names_who_guesses_and_how_many():
    assert describe(Request((1,), drafter="model", policy="constant", gamma=4)) == "the draft model, γ = 4 guesses a round"
    assert describe(Request((1,), drafter="lookup", policy="constant", gamma=3)).startswith("copying from the text")
    both = describe(Request((1,), drafter="hybrid", policy="heuristic+confidence:0.4", gamma=2))
    assert "draft model otherwise" in both and "adapting from 2" in both and "under 40%" in both
