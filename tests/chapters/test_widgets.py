"""Shared widgets: predict card, token strip, legend, settings panel, badge, busy line."""
import panel as pn
import param
import pytest
from panel.io.state import set_curdoc

from chapters import palette
from chapters.widgets import (Busy, Chip, PairBadge, PredictCard, SettingsPanel, Throttled, TokenStrip,
                              button_disabled, chips_html, legend, live_slider, show_text, takeaway_box)


def test_choice_card_reveals_only_after_commit_and_result(state):
    card = PredictCard(state, 3, "How many calls?", choices=["1", "5"], answer="1", explanation="One call reads all.")
    card.__panel__()
    assert "before you look" in card._verdict.object
    card.commit("5")
    assert "You said <b>5</b>" in card._verdict.object and card.correct is None
    card.commit("1")                                  # locked: a second answer changes nothing
    assert card.committed == "5"
    assert all(b.disabled for b in card._buttons)
    card.reveal()
    assert card.correct is False and "Not quite" in card._verdict.object and "One call reads all." in card._verdict.object
    assert state.answers[3] == {"answer": "5", "correct": False}


def test_reveal_before_commit_waits_for_the_answer(state):
    card = PredictCard(state, 1, "Why?", choices=["a", "b"], answer="b")
    card.reveal()
    assert "Commit an answer" in card._verdict.object
    card.commit("b")
    assert card.correct is True and "✓ Right." in card._verdict.object


def test_number_card_with_live_answer_and_tolerance(state):
    live = {"n": 7}
    card = PredictCard(state, 2, "How many?", answer=lambda: live["n"], tolerance=2, bounds=(0, 20),
                       explanation=lambda n: f"It was {n}.")
    card._number.value = 9
    card._lock.clicks += 1                            # the "Lock in" button
    assert card.committed == 9
    live["n"] = 12                                    # computed at reveal time, not stored
    card.reveal()
    assert card.correct is False and "It was 12." in card._verdict.object and "<b>12</b>" in card._verdict.object


def test_card_restores_a_previous_answer(state):
    state.answers = {4: {"answer": "x", "correct": True}}
    card = PredictCard(state, 4, "Whose?", choices=["x", "y"], answer="x")
    assert card.committed == "x"


def test_token_text_is_escaped_never_html():
    evil = '<img src=x onerror="alert(1)">'
    out = chips_html([Chip(evil, "draft", title=evil)])
    assert "<img" not in out and "&lt;img" in out


def test_every_chip_has_colour_icon_and_label():
    for state, (col, icon, label) in palette.TOKEN_STATES.items():
        html = chips_html([Chip("a", state)])
        assert f"chip-{state}" in html and label
        assert state in palette.UNDERLINE
        if state != "prompt":
            assert icon and icon in html


def test_show_text_makes_whitespace_visible():
    assert show_text(" cat") == " cat" and show_text(" ") == "␣" and show_text("\n") == "⏎"


def test_clickable_strip_sets_selected():
    strip = TokenStrip(chips=[Chip("a", "easy"), Chip("b", "hard")], clickable=True)
    strip.__panel__()
    assert len(strip._buttons.objects) == 2
    strip._buttons.objects[1].clicks += 1
    assert strip.selected == 1
    assert "selected" in strip._buttons.objects[1].css_classes


def test_plain_strip_updates_its_html():
    strip = TokenStrip(empty="nothing yet")
    assert "nothing yet" in strip._html.object
    strip.chips = [Chip("x", "kept")]
    assert "chip-kept" in strip._html.object


def test_legend_and_takeaway():
    assert "draft token kept" in legend(["kept"]).object
    assert "Takeaway" in takeaway_box("Checking is cheap <b>").object
    assert "&lt;b&gt;" in takeaway_box("Checking is cheap <b>").object


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


@pytest.mark.parametrize("slug", ["dilemma", "easy-words", "checking", "guess-check-keep", "questions"])
def test_registry_lists_parts_one_and_two(slug):
    from chapters.registry import page_by_slug, pages
    assert page_by_slug(slug) is not None
    assert [p.number for p in pages() if p.number] == list(range(1, 12))


def test_a_failing_model_call_is_one_sentence_and_the_page_stays_usable(state):
    import asyncio

    from chapters.base import Chapter

    def boom():
        raise RuntimeError("out of memory")

    ch = Chapter(state)
    assert asyncio.run(ch.run_model(boom)) is None
    assert "could not finish" in ch.problem.object and not ch.busy.active


def test_badge_says_when_the_lecturers_pair_was_refused(state):
    from chapters.widgets import badge_html

    class Pair:
        target_label, draft_label, target_params, draft_params = "T", "D", 10**8, 10**7
        device, dtype = "cpu", "float32"
        notes = {"warning": "The draft <x> uses a different vocabulary."}
    html = badge_html(Pair(), state.settings)
    assert "100 M" in html and "⚠" in html and "&lt;x&gt;" in html


def test_pair_loader_reports_ready_or_one_sentence(monkeypatch):
    from chapters import loading

    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    loader = loading.PairLoader()
    loader._load()
    assert loader.ready and loader.fraction == 1.0 and "Loaded" in loader.message

    def broken():
        raise RuntimeError("The target folder has no config.json; point to a saved model folder.")
    monkeypatch.setattr(loading.runtime, "service", broken)
    failing = loading.PairLoader()
    failing._load()
    assert not failing.ready and "no config.json" in failing.error


def test_a_button_is_enabled_again_however_its_work_ends():
    import panel as pn

    button = pn.widgets.Button(label="Ask")
    with pytest.raises(RuntimeError):
        with button_disabled(button):
            assert button.disabled
            raise RuntimeError("out of memory")
    assert not button.disabled


def test_the_settings_card_builds_its_widgets_when_first_opened(state):
    from chapters.shell import settings_card
    card = settings_card(state)
    assert card.collapsed and len(card.objects) == 0          # a page that never opens it pays nothing
    state.prompt = "the dog ran"
    card.collapsed = False
    (panel,) = card.objects
    prompt_box = panel.objects[0]
    assert "settings-panel" in panel.css_classes and prompt_box.value == "the dog ran"   # today's settings
    card.collapsed, card.collapsed = True, False
    assert card.objects == [panel]                            # built once


def test_lab_figures_have_no_tools_to_drag_a_plot_away():
    from chapters.widgets import static_figure
    fig = static_figure(height=100, width=100)
    assert fig.toolbar_location is None and fig.toolbar.tools == []


def test_figures_get_projector_type_sizes(make_chapter):
    from bokeh.models import Label

    from chapters.ch06_accept_rule import AcceptRuleChapter
    from chapters.widgets import figure_type_sizes, readable_figures, static_figure
    fig = static_figure(height=100, width=100, title="t")
    fig.line([0, 1], [0, 1], legend_label="a line")
    fig.legend.label_text_font_size = "10px"
    fig.add_layout(Label(x=0, y=0, text="small", text_font_size="9pt"))
    fig.add_layout(Label(x=0, y=0, text="big", text_font_size="20px"))
    readable_figures(pn.Column(pn.Row(fig)))
    sizes = {(type(m).__name__, n, getattr(m, "text", None)): v for (m, n), v in figure_type_sizes(fig).items()}
    assert sizes[("Legend", "label_text_font_size", None)] == "14.0px"
    assert sizes[("Label", "text_font_size", "small")] == "10.5pt"
    assert sizes[("Label", "text_font_size", "big")] == "20.0px"        # larger type is left alone
    assert all(float(v[:-2]) >= (14 if v.endswith("px") else 10.5) for v in sizes.values())
    # a chapter page's figures get the same floor (chapter 6 asks for 10 px legends)
    ch = make_chapter(AcceptRuleChapter)
    panes = [p.object for p in ch.__panel__().select(pn.pane.Bokeh)]
    assert panes and all(float(v[:-2]) >= 14 for f in panes for v in figure_type_sizes(f).values()
                         if v.endswith("px"))


class ServedDoc:
    """A served page's document, as far as Throttled sees it: timeouts are kept, run by the test."""
    session_context = object()

    def __init__(self):
        self.timeouts = []

    def add_timeout_callback(self, fn, ms):
        self.timeouts.append((fn, ms))


def test_throttled_runs_the_first_move_at_once_and_gathers_a_drag():
    calls, clock = [], [100.0]
    doc = ServedDoc()
    with set_curdoc(doc):
        redraw = Throttled(lambda: calls.append(clock[0]), gap=0.05, clock=lambda: clock[0])
        redraw()                                   # a key press: at once
        assert calls == [100.0] and doc.timeouts == []
        clock[0] = 100.01
        redraw(); redraw(); redraw()               # a drag within the gap: one call, at its end
        assert calls == [100.0] and len(doc.timeouts) == 1
        fn, ms = doc.timeouts[0]
        assert 39 <= ms <= 41
        clock[0] = 100.05
        fn()
        assert calls == [100.0, 100.05]
        clock[0] = 100.2                           # the next move, later than the gap: at once
        redraw()
        assert calls == [100.0, 100.05, 100.2] and len(doc.timeouts) == 1


def test_throttled_runs_at_once_outside_a_served_page():
    calls = []
    redraw = Throttled(lambda: calls.append(1), gap=10)
    redraw(); redraw()
    assert calls == [1, 1]


def test_live_slider_follows_its_parameter_without_panels_hold():
    class Knob(pn.viewable.Viewer):
        alpha = param.Number(default=0.5, bounds=(0, 1), step=0.01)
        gamma = param.Integer(default=4, bounds=(1, 12))

    knob = Knob()
    a, g = live_slider(knob.param.alpha), live_slider(knob.param.gamma)
    assert isinstance(a, pn.widgets.FloatSlider) and isinstance(g, pn.widgets.IntSlider)
    assert a._debounce == 0 and pn.widgets.FloatSlider._debounce > 0
    a.value, g.value = 0.7, 9
    assert (knob.alpha, knob.gamma) == (0.7, 9)
