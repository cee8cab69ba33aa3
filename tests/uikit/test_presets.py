"""The preset bar: a preset click sets the student's prompt, the switch sets who drafts, and only the
drafts the running pair can have are offered (the tiny pair has no weak draft)."""

import pytest

from lab.experiments.presets import PRESETS, preset_by_key, winner
from lab.speed.request import Outcome
from tests.helpers import run_apart
from uikit.presets import DRAFTER_NAMES, PresetBar, reading


def test_a_preset_click_sets_the_prompt_and_marks_the_preset(state):
    bar = PresetBar(state)
    assert [b.label for b in bar.buttons.values()] == [p.label for p in PRESETS]
    assert all(b.color == "light" for b in bar.buttons.values())      # the default prompt is no preset
    bar.buttons["edit"].clicks += 1
    assert state.prompt == preset_by_key("edit").prompt
    assert [k for k, b in bar.buttons.items() if b.color == "primary"] == ["edit"]
    assert preset_by_key("edit").what in bar.note.object
    bar.buttons["story"].clicks += 1
    assert state.prompt == preset_by_key("story").prompt and preset_by_key("story").what in bar.note.object
    state.prompt = "the cat"                                                  # typed in the settings
    assert all(b.color == "light" for b in bar.buttons.values())


def test_the_variant_switch_offers_what_the_pair_has_and_sets_the_variant(state):
    bar = PresetBar(state)
    assert list(bar.variant_switch.options.values()) == ["aligned", "random"]        # no weak draft on this pair
    assert "This pair has no weak draft" in bar.note.object
    bar.variant_switch.value = "random"
    assert state.variant == "random" and "almost nothing is kept" in bar.note.object
    state.variant = "aligned"                                                   # and the other way round
    assert bar.variant_switch.value == "aligned"
    assert f"own draft model ({state.service.pair.draft_label})" in bar.note.object


def test_a_draft_this_pair_lacks_falls_back_to_aligned(state):
    state.variant = "weak"                                                      # kept from another pair's page
    bar = PresetBar(state)
    assert state.variant == "aligned" and bar.variant_switch.value == "aligned"


def test_every_preset_prompt_is_usable(state):
    for preset in PRESETS:
        state.prompt = preset.prompt
        assert state.safe_prompt_ids() and state.error == ""


def test_the_switch_of_who_guesses_sets_the_drafter_and_says_who(state):
    from uikit.presets import DRAFTER_NAMES, PresetBar, reading
    hidden = PresetBar(state)
    assert not hidden.drafter_switch.visible and "Who guesses" not in hidden.note.object
    bar = PresetBar(state, drafters=True)
    assert bar.drafter_switch.visible and bar.drafter_switch.value == "model" and state.drafter == "model"
    assert "Who guesses</b>: the draft model" in bar.note.object
    bar.drafter_switch.value = "lookup"
    assert state.drafter == "lookup" and "copying from the text (prompt lookup)" in bar.note.object
    assert "aligned draft" not in bar.note.object           # copying uses no draft model
    state.drafter = "hybrid"                                # set elsewhere (another page's bar): followed
    assert bar.drafter_switch.value == "hybrid" and "aligned draft" in bar.note.object


def test_no_preset_says_who_wins_in_fixed_words():
    """What a preset is, never who wins on it: that depends on the pair, the machine and the settings."""
    for preset in PRESETS:
        assert not any(word in preset.what.lower() for word in ("win", "lose", "kept", "faster", "slower", "draft"))


@pytest.mark.parametrize("key", [p.key for p in PRESETS])
def test_the_bar_credits_the_guesser_that_won_on_the_preset(state, key):
    """Measured per guesser, the bar names the one that won (the fastest beyond the machine's noise)
    with its α and speed-up, and the other's: the words are the outcomes'."""
    bar = PresetBar(state, drafters=True)
    bar.choose(key)
    assert "Measuring who wins" in bar.note.object
    said = run_apart(bar.measure())
    service = state.service
    outcomes = {r.drafter: run_apart(service.run(service.outcome, r)) for r in bar.requests()}
    best = winner(outcomes)
    for drafter, o in outcomes.items():
        assert f"α = {o.alpha or 0:.2f}" in said and f"{o.speedup:.2f}×" in said
    if best is None:
        assert "no guesser beats plain decoding" in said
    else:
        assert said.startswith(f"Measured here, {dict(DRAFTER_NAMES)[best]} wins: α = {outcomes[best].alpha or 0:.2f}")
    assert said in bar.note.object.replace("&#x27;", "'")


class Measured:
    """An outcome's figures as the reading reads them (lab.speed.request.Outcome's)."""
    def __init__(self, alpha, speedup, word):
        self.alpha, self.speedup, self._word = alpha, speedup, word

    def verdict_word(self):
        return self._word


def test_the_reading_of_the_class_day_edit_and_json():
    """"Edit a record" on the class day: copying wins (α 0.82, 2.93×), the draft model runs 1.04×
    within the noise; on JSON the draft model wins."""
    edit = reading({"model": Measured(0.20, 1.04, "level"), "lookup": Measured(0.82, 2.93, "faster")})
    assert edit == ("Measured here, copying from the text wins: α = 0.82, 2.93× plain decoding's speed; "
                    "the draft model keeps α = 0.20, 1.04×.")
    json = reading({"model": Measured(0.41, 1.20, "faster"), "lookup": Measured(0.05, 0.95, "level")})
    assert json.startswith("Measured here, the draft model wins: α = 0.41, 1.20×")
    story = reading({"model": Measured(0.10, 0.80, "slower"), "lookup": Measured(0.0, 0.97, "level")})
    assert story.startswith("Measured here, no guesser beats plain decoding")
    assert Outcome.verdict_word                 # the word the reading goes by is the outcome's own


def test_who_wins_waits_for_the_chapters_question(state):
    """On a chapter page the winner may be the predict question's answer (chapter 12 asks which
    guesser needs the fewest target calls): the bar names it only once the student has answered."""
    from uikit.predict import PredictCard
    card = PredictCard(state, 12, "Which guesser needs the fewest target calls?", choices=["A", "B"], answer="A")
    bar = PresetBar(state, drafters=True)
    bar.wait_for_answer(card)
    bar.choose("edit")
    run_apart(bar.measure())
    assert "Answer the question above first" in bar.note.object and "Measured here" not in bar.note.object
    card.commit("B")
    assert "Measured here" in bar.note.object and "Answer the question" not in bar.note.object
