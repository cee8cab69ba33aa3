"""The settings panel, the pair badge, the working line and buttons that disable themselves."""
import pytest

from uikit.panels import Busy, PairBadge, SettingsPanel, button_disabled


def test_settings_panel_refuses_an_empty_prompt_in_one_sentence(state):
    panel = SettingsPanel(state)
    panel.prompt.value = "   "
    assert panel.commit() is False
    assert "empty" in state.error and state.prompt != "   "
    panel.prompt.value = "the dog ran"
    panel.temperature.value = 0.7
    assert panel.commit() is True
    assert state.prompt == "the dog ran" and state.temperature == 0.7 and state.error == ""


def test_settings_panel_refuses_a_too_long_prompt(state):
    panel = SettingsPanel(state)
    panel.prompt.value = "the " * 600
    assert panel.commit() is False and "under" in state.error


def test_badge_names_the_pair_and_follows_the_settings(state):
    badge = PairBadge(state)
    assert "tiny llama target" in badge.__panel__().object and "greedy" in badge.__panel__().object
    state.temperature = 0.8
    assert "temperature 0.8" in badge.__panel__().object


def test_busy_line_shows_while_working():
    busy = Busy()
    with busy.working("thinking…"):
        assert busy.active and "thinking…" in busy.__panel__().object
    assert not busy.active


def test_badge_says_when_the_lecturers_pair_was_refused(state):
    from uikit.panels import badge_html

    class Pair:
        target_label, draft_label, target_params, draft_params = "T", "D", 10**8, 10**7
        device, dtype = "cpu", "float32"
        notes = {"warning": "The draft <x> uses a different vocabulary."}
    html = badge_html(Pair(), state.settings)
    assert "100 M" in html and "⚠" in html and "&lt;x&gt;" in html


def test_the_badge_names_no_drafting_of_its_own(state):
    """Who guesses is the student's (each page with the switch says it; the others use the draft
    model): the badge does not name the pair's own drafting for `python -m lab measure` beside them."""
    from uikit.panels import badge_html

    class Pair:
        target_label, draft_label, target_params, draft_params = "T", "D", 10**8, 10**7
        device, dtype, drafter, policy = "cpu", "float32", "hybrid", "auto"
    html = badge_html(Pair(), state.settings)
    assert "hybrid" not in html and "auto" not in html and "D (10 M)" in html


def test_a_button_is_enabled_again_however_its_work_ends():
    import panel as pn

    button = pn.widgets.Button(label="Ask")
    with pytest.raises(RuntimeError):
        with button_disabled(button):
            assert button.disabled
            raise RuntimeError("out of memory")
    assert not button.disabled


def test_settings_panel_edits_the_prompt_and_sampling_fields_of_settings(state):
    """The panel's fields come from uikit.state.SETTINGS (the prompt and SAMPLING, in that order);
    the other settings (γ, the seed, the drafter) are not in it, and "Use these settings" stores
    every field it shows, with the ranges LabState gives them."""
    from uikit.panels import PANEL_FIELDS
    from uikit.state import SAMPLING, SETTINGS

    assert PANEL_FIELDS == ("prompt", *SAMPLING) and set(PANEL_FIELDS) <= set(SETTINGS)
    panel = SettingsPanel(state)
    assert list(panel.fields) == list(PANEL_FIELDS)
    assert not {"gamma", "seed", "variant"} & set(panel.fields)
    assert (panel.top_k.start, panel.top_k.end) == state.param.top_k.bounds == (0, 200)
    assert (panel.top_p.start, panel.top_p.end, panel.top_p.step) == (0.05, 1.0, 0.05)
    assert panel.temperature.step == 0.1 and panel.prompt.value == state.prompt
    panel.prompt.value, panel.temperature.value, panel.top_k.value, panel.top_p.value = "a cat", 0.9, 40, 0.8
    gamma, seed = state.gamma, state.seed
    assert panel.commit() is True
    assert (state.prompt, state.temperature, state.top_k, state.top_p) == ("a cat", 0.9, 40, 0.8)
    assert (state.gamma, state.seed) == (gamma, seed)
    assert "Saved for this session" in panel.message.object


def test_a_prompt_set_elsewhere_shows_in_the_settings_panel_and_survives_use_these_settings(state):
    panel = SettingsPanel(state)
    state.prompt = "a preset prompt"                         # the preset bar sets the state
    assert panel.prompt.value == "a preset prompt"
    panel.temperature.value = 0.5
    assert panel.commit() is True
    assert state.prompt == "a preset prompt" and state.temperature == 0.5


def test_badge_names_the_students_own_choice_of_draft_variant(state):
    badge = PairBadge(state)
    own = badge.__panel__().object
    state.variant = "random"
    assert "random draft (uniform) (your choice)" in badge.__panel__().object and badge.__panel__().object != own
    state.variant = "aligned"
    assert badge.__panel__().object == own


def test_every_open_badge_names_the_pair_after_a_switch(state):
    """The lecturer switches the pair for everyone: a page's results come from the new pair at its
    next action, so its badge must name the new pair at once (in its own page's document)."""
    from types import SimpleNamespace

    from bokeh.document import Document

    from uikit.panels import Badges

    class Page(Document):                    # a served page: its next-tick callbacks held here
        def __init__(self):
            super().__init__()
            self.ticks = []

        def add_next_tick_callback(self, callback):
            self.ticks.append(callback)

    old = state.service.pair
    badges = Badges()                        # a server's open badges (the shell adds each page's)
    here, served_badge = badges.add(PairBadge(state)), badges.add(PairBadge(state))
    PairBadge(state)                         # a badge no server holds (an exported page) is not asked
    served_badge.doc = Page()
    state.service = SimpleNamespace(pair=SimpleNamespace(
        target_label="new target", draft_label="new draft", target_params=10**8, draft_params=10**7,
        device="cpu", dtype="float32"))
    assert "tiny llama draft" in here.__panel__().object            # nothing tells a badge by itself
    assert badges.pair_switched() == 2
    assert "new draft" in here.__panel__().object and "tiny llama draft" not in here.__panel__().object
    assert "tiny llama draft" in served_badge.__panel__().object and len(served_badge.doc.ticks) == 1
    served_badge.doc.ticks.pop()()                            # the page's next tick: its own document
    assert "new draft" in served_badge.__panel__().object
    state.service = SimpleNamespace(pair=old)


def test_the_badge_and_who_guesses_agree(state):
    """The badge says what the pages draft with: the draft model by default (as chapter 4's Who
    guesses says), the student's own choice of who guesses once made, and never the pair's own
    drafting (`--pair lookup` drafts by lookup only in `python -m lab measure`)."""
    from uikit.words import WHO
    from uikit.presets import PresetBar
    badge, bar, own = PairBadge(state), PresetBar(state, drafters=True), state.service.pair.drafter
    state.service.pair.drafter = "lookup"            # the pair's own drafting, as `--pair lookup` loads it
    try:
        badge.refresh()
        assert WHO["model"] in bar.note.object and "who guesses" not in badge.__panel__().object
        assert "tiny llama draft (12 k)" in badge.__panel__().object
        state.drafter = "lookup"                     # the student switches Who guesses
        assert WHO["lookup"] in bar.note.object
        assert f"who guesses</span> {WHO['lookup']} (your choice" in badge.__panel__().object
        state.drafter = "model"
        assert "who guesses" not in badge.__panel__().object
    finally:
        state.service.pair.drafter = own
