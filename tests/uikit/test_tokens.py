"""Token chips, strips, legends: escaped text, colour plus a second cue."""

from uikit import palette
from uikit.panels import takeaway_box
from uikit.tokens import Chip, TokenStrip, chips_html, legend, show_text


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
    assert len(strip.buttons) == 2
    strip.buttons[1].clicks += 1
    assert strip.selected == 1
    assert "selected" in strip.buttons[1].css_classes and "selected" not in strip.buttons[0].css_classes
    strip.clickable = False
    assert strip.buttons == [] and "chip-hard" in strip.html


def test_plain_strip_updates_its_html():
    strip = TokenStrip(empty="nothing yet")
    assert "nothing yet" in strip.html
    strip.chips = [Chip("x", "kept")]
    assert "chip-kept" in strip.html


def test_legend_and_takeaway():
    assert "draft token kept" in legend(["kept"]).object
    assert "Takeaway" in takeaway_box("Checking is cheap <b>").object
    assert "&lt;b&gt;" in takeaway_box("Checking is cheap <b>").object
