"""The preset bar: a preset click sets the student's prompt, the switch sets who drafts, and only the
drafts the running pair can have are offered (the tiny pair has no weak draft)."""
from lab.experiments.presets import PRESETS, preset_by_key
from uikit.presets import PresetBar


def test_a_preset_click_sets_the_prompt_and_marks_the_preset(state):
    bar = PresetBar(state)
    assert [b.label for b in bar.buttons.values()] == [p.label for p in PRESETS]
    assert all(b.color == "light" for b in bar.buttons.values())      # the default prompt is no preset
    bar.buttons["edit"].clicks += 1
    assert state.prompt == preset_by_key("edit").prompt
    assert [k for k, b in bar.buttons.items() if b.color == "primary"] == ["edit"]
    assert "Drafting wins" in bar.note.object
    bar.buttons["story"].clicks += 1
    assert state.prompt == preset_by_key("story").prompt and "Drafting loses" in bar.note.object
    state.prompt = "the cat"                                                  # typed in the settings
    assert all(b.color == "light" for b in bar.buttons.values())


def test_the_switch_offers_what_the_pair_has_and_sets_the_draft(state):
    bar = PresetBar(state)
    assert list(bar.switch.options.values()) == ["aligned", "random"]        # no weak draft on this pair
    assert "This pair has no weak draft" in bar.note.object
    bar.switch.value = "random"
    assert state.draft == "random" and "almost nothing is kept" in bar.note.object
    state.draft = "aligned"                                                   # and the other way round
    assert bar.switch.value == "aligned"
    assert f"own draft model ({state.service.pair.draft_label})" in bar.note.object


def test_a_draft_this_pair_lacks_falls_back_to_aligned(state):
    state.draft = "weak"                                                      # kept from another pair's page
    bar = PresetBar(state)
    assert state.draft == "aligned" and bar.switch.value == "aligned"


def test_every_preset_prompt_is_usable(state):
    for preset in PRESETS:
        state.prompt = preset.prompt
        assert state.safe_prompt_ids() and state.error == ""


def test_the_switch_of_who_guesses_sets_the_drafter_and_says_who(state):
    from uikit.presets import PresetBar
    hidden = PresetBar(state)
    assert not hidden.guesser.visible and "Who guesses" not in hidden.note.object
    bar = PresetBar(state, guessers=True)
    assert bar.guesser.visible and bar.guesser.value == "model" and state.drafter == "model"
    assert "Who guesses</b>: the draft model" in bar.note.object
    bar.guesser.value = "lookup"
    assert state.drafter == "lookup" and "copying from the text (prompt lookup)" in bar.note.object
    assert "aligned draft" not in bar.note.object           # copying uses no draft model
    state.drafter = "hybrid"                                # set elsewhere (another page's bar): followed
    assert bar.guesser.value == "hybrid" and "aligned draft" in bar.note.object
