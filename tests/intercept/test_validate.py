"""Crafted widget values, as a page's own JavaScript could send them: clamped or refused with one
sentence, never a traceback (intercept.validate, installed once per process by its `install`)."""
import logging
import math

import panel as pn
import pytest
from panel.reactive import Syncable

from intercept import validate

CRAFTED = [-10**12, 10**30, 1e30, -1e30, float("nan"), float("inf"), -float("inf"), "12", "<script>",
           None, True, [1, 2], {"a": 1}, 2.5, -0.0]


@pytest.fixture(autouse=True)
def screened(monkeypatch):
    monkeypatch.setattr(Syncable, "_process_events", Syncable._process_events)    # as it was, after
    validate.install()


def widgets():
    return [pn.widgets.IntInput(label="Your answer", start=0, end=20, value=3),
            pn.widgets.IntSlider(label="top-k", start=0, end=200, value=0),
            pn.widgets.FloatSlider(label="Temperature", start=0, end=2, step=0.1, value=1.0),
            pn.widgets.TextInput(label="Context", value="the cat"),
            pn.widgets.TextAreaInput(label="Prompt", max_length=2000, value="x"),
            pn.widgets.Select(label="Size", options=[100, 1000], value=100),
            pn.widgets.RadioButtonGroup(options=["a", "b"], value="a")]


def _prop(widget):
    return "active" if isinstance(widget, pn.widgets.RadioButtonGroup) else "value"


@pytest.mark.parametrize("value", CRAFTED, ids=repr)
def test_no_crafted_value_raises_and_every_kept_value_is_valid(value):
    for widget in widgets():
        said = []
        validate.guard(widget, said.append)
        widget._process_events({_prop(widget): value})      # as Panel gets it from the browser
        v = widget.value
        if isinstance(widget, (pn.widgets.IntInput, pn.widgets.IntSlider, pn.widgets.FloatSlider)):
            assert v is None or (isinstance(v, (int, float)) and math.isfinite(v) and
                                 widget.start <= v <= widget.end), (widget, value, v)
        elif isinstance(widget, (pn.widgets.TextInput, pn.widgets.TextAreaInput)):
            assert isinstance(v, str) and len(v) <= 2000
        else:
            assert v in widget.options


def test_out_of_range_is_clamped_with_one_sentence():
    box = pn.widgets.IntInput(label="Your answer", start=0, end=20, value=3)
    said = []
    validate.guard(box, said.append)
    box._process_events({"value": 25})
    assert box.value == 20 and said == ["“Your answer” goes from 0 to 20; 25 is out of range, so it is set to 20."]
    box._process_events({"value": -10**12})
    assert box.value == 0 and "-1e+12 is out of range" in said[-1]
    box._process_events({"value": 1e30})                   # was a traceback: IntInput.value must be an integer
    assert box.value == 20 and "1e+30" in said[-1]
    box._process_events({"value": 7})
    assert box.value == 7 and len(said) == 3                 # a good value says nothing


def test_unusable_numbers_are_refused_and_the_widget_keeps_its_value():
    box = pn.widgets.IntInput(label="Your answer", start=0, end=20, value=3)
    said = []
    validate.guard(box, said.append)
    for value, why in [(float("nan"), "finite"), ("x", "takes a number"), (2.5, "whole number")]:
        box._process_events({"value": value})
        assert box.value == 3 and why in said[-1] and "keeps 3" in said[-1]


def test_long_text_is_cut_and_said():
    prompt = pn.widgets.TextAreaInput(label="Prompt", max_length=2000)
    said = []
    validate.guard(prompt, said.append)
    prompt._process_events({"value": "a" * 50_000, "value_input": "a" * 50_000})
    assert len(prompt.value) == 2000 and said == ["“Prompt” keeps at most 2000 characters; the rest of the "
                                                  "50000 was cut."]


def test_without_a_spot_of_its_own_the_page_or_the_log_says_it(caplog):
    slider = pn.widgets.FloatSlider(label="p(A)", start=0, end=1, value=0.5)
    with caplog.at_level(logging.INFO, logger="intercept.validate"):
        slider._process_events({"value": 7.0})
    assert slider.value == 1 and "out of range" in caplog.text
    doc = pn.state.curdoc or __import__("bokeh.document").document.Document()
    page = []
    validate.on_problems(page.append, doc)
    from panel.io.state import set_curdoc
    with set_curdoc(doc):
        slider._process_events({"value": -3.0})
    assert slider.value == 0 and "out of range" in page[-1]


def test_the_settings_card_says_it_next_to_its_widgets(state):
    from uikit.panels import SettingsPanel
    panel = SettingsPanel(state)
    panel.top_k._process_events({"value": 10**30})
    assert panel.top_k.value == 200 and "top-k" in panel.message.object and "out of range" in panel.message.object


def test_a_select_of_dict_options_takes_its_values_and_labels_and_refuses_others():
    menu = pn.widgets.Select(label="Pair for everyone", options={"gpt2 (needs download)": "gpt2", "tiny": "tiny"},
                             value="tiny")
    said = []
    validate.guard(menu, said.append)
    sent = dict(menu._process_param_change({"options": menu.options}))["options"]
    assert sent == [("gpt2", "gpt2 (needs download)"), ("tiny", "tiny")]   # the browser sends the value
    menu._process_events({"value": "gpt2"})
    assert menu.value == "gpt2" and said == []
    menu._process_events({"value": "tiny"})
    menu._process_events({"value": "gpt2 (needs download)"})              # a label, as Panel also maps
    assert menu.value == "gpt2" and said == []
    for crafted in ("nope", 5, ["gpt2"]):
        menu._process_events({"value": crafted})
        assert menu.value == "gpt2"
    assert said == ["“Pair for everyone” offers only its listed choices; it keeps 'gpt2 (needs download)'."] * 3


@pytest.mark.parametrize("props", [{"end": 10**9}, {"start": -5, "step": 1000}, {"disabled": False},
                                   {"max_length": 10**6}, {"labels": ["x", "y", "z"]}, {"options": ["1", "2"]},
                                   {"title": "<b>boss</b>"}], ids=repr)
def test_a_widgets_own_settings_are_refused_from_the_browser(props):
    """Only a widget's value may come from the browser: a patch to its limits, labels, options or
    `disabled` is refused in one sentence and the widget keeps its settings (and its value rules)."""
    for widget in widgets() + [pn.widgets.Button(label="Draw", disabled=True)]:
        before = {name: getattr(widget, name) for name in ("start", "end", "step", "disabled", "max_length",
                                                           "options", "name") if name in widget.param}
        said = []
        validate.guard(widget, said.append)
        widget._process_events(dict(props))
        assert {name: getattr(widget, name) for name in before} == before, widget
        assert len(said) == 1 and "may change only its value" in said[0] and sorted(props)[0] in said[0]


def test_a_refused_limit_does_not_let_a_value_past_the_old_one():
    slider = pn.widgets.IntSlider(label="top-k", start=0, end=200, value=0)
    said = []
    validate.guard(slider, said.append)
    slider._process_events({"end": 10**9, "value": 10**8})
    assert slider.end == 200 and slider.value == 200 and len(said) == 1
    assert "refused" in said[0] and "set to 200" in said[0]
