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
    assert "tiny llama target" in badge._pane.object and "greedy" in badge._pane.object
    state.temperature = 0.8
    assert "temperature 0.8" in badge._pane.object


def test_busy_line_shows_while_working():
    busy = Busy()
    with busy.working("thinking…"):
        assert busy.active and "thinking…" in busy._pane.object
    assert not busy.active


def test_badge_says_when_the_lecturers_pair_was_refused(state):
    from uikit.panels import badge_html

    class Pair:
        target_label, draft_label, target_params, draft_params = "T", "D", 10**8, 10**7
        device, dtype = "cpu", "float32"
        notes = {"warning": "The draft <x> uses a different vocabulary."}
    html = badge_html(Pair(), state.settings)
    assert "100 M" in html and "⚠" in html and "&lt;x&gt;" in html


def test_a_button_is_enabled_again_however_its_work_ends():
    import panel as pn

    button = pn.widgets.Button(label="Ask")
    with pytest.raises(RuntimeError):
        with button_disabled(button):
            assert button.disabled
            raise RuntimeError("out of memory")
    assert not button.disabled
