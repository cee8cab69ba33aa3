"""The preset bar: preset prompts in one click, the switch between the aligned, a weak and a random
draft (the lecture's switch), and on the pages that draft live the switch of who guesses (the draft model, copying
from the text, or both), so a lecturer shows drafting win and lose live and names what won.

A chapter whose class sets `presets = True` shows the bar at the top of its body (chapters.base).
The controls only set the student's state (`prompt`, `draft`, `drafter`): the chapter redoes its results
through its `on_settings_changed` hook, like any change in the settings panel. The switch offers the
drafts the running pair can have (lab.pairs.variants) and says which one it cannot.

    bar = PresetBar(state)
    bar.choose("edit")            # what a click on "Edit a record" does
    bar.switch.value = "random"   # the random draft drafts from now on
    bar.guesser.value = "lookup"  # guesses are copied from the text from now on (PresetBar(state, guessers=True))
"""
from __future__ import annotations

import html

import panel as pn
import param

from lab.experiments.presets import PRESETS, preset_by_key, preset_for_prompt
from lab.speed.request import CONTROL, WHO
from lab.pairs.variants import DEFAULT, DraftVariants
from uikit.clicks import on_click
from uikit.state import LabState
from uikit.styles import BOX_CSS, sheet

SWITCH_LABELS = {"aligned": "aligned", "weak": "weak", "random": "random"}
DRAFT_NOTES = {
    "aligned": "the pair's own draft model ({label})",
    "weak": "the target's first two layers, never trained to draft",
    "random": "every token equally likely, so almost nothing is kept",
}


class PresetBar(pn.viewable.Viewer):
    """Preset prompt buttons, the aligned / weak / random draft switch and (`guessers`) the switch of
    who guesses, for one student."""

    state = param.ClassSelector(class_=LabState)

    def __init__(self, state: LabState, guessers: bool = False, **params):
        super().__init__(state=state, **params)
        offered = DraftVariants.offered(state.service.pair)
        self.missing = " ".join(sorted({why for why in offered.values() if why}))
        if offered.get(state.draft):                 # a draft kept from another pair's page
            state.draft = DEFAULT
        self.buttons = {}
        for preset in PRESETS:
            button = pn.widgets.Button(label=preset.label, color="light", margin=(2, 3),
                                       stylesheets=[sheet("presets")], css_classes=["preset"])
            on_click(button, lambda event, key=preset.key: self.choose(key))
            self.buttons[preset.key] = button
        self.switch = pn.widgets.RadioButtonGroup(
            options={SWITCH_LABELS[v]: v for v, why in offered.items() if not why}, value=state.draft,
            color="primary", variant="outline", margin=(2, 3), stylesheets=[sheet("presets")],
            css_classes=["draft-switch"])
        self.switch.param.watch(lambda e: setattr(self.state, "draft", e.new), "value")
        self.guesser = pn.widgets.RadioButtonGroup(
            options={CONTROL[k]: k for k in CONTROL}, value=state.drafter, color="primary", variant="outline",
            margin=(2, 3), stylesheets=[sheet("presets")], css_classes=["drafter-switch"], visible=guessers)
        self.guesser.param.watch(lambda e: setattr(self.state, "drafter", e.new), "value")
        self._view = None
        self.note = pn.pane.HTML("", stylesheets=[BOX_CSS, sheet("presets")], sizing_mode="stretch_width",
                                 margin=(0, 5))
        state.param.watch(self._sync, ["prompt", "draft", "drafter"])
        self._sync()

    def choose(self, key: str) -> None:
        """Make preset `key`'s prompt the student's prompt (the chapter redoes its results)."""
        self.state.param.update(prompt=preset_by_key(key).prompt, error="")

    def _sync(self, *events) -> None:
        """Mark the chosen preset and draft, and say what to expect from them."""
        chosen = preset_for_prompt(self.state.prompt)
        for key, button in self.buttons.items():
            button.color = "primary" if chosen and chosen.key == key else "light"
        self.switch.value, self.guesser.value = self.state.draft, self.state.drafter
        said = [f"<b>{html.escape(chosen.label)}</b>: {html.escape(chosen.why)}"] if chosen else []
        if self.guesser.visible:
            said.append(f"<b>Who guesses</b>: {html.escape(WHO[self.state.drafter])}.")
        if self.state.drafter != "lookup" or not self.guesser.visible:
            note = DRAFT_NOTES[self.state.draft].format(label=self.state.service.pair.draft_label)
            said.append(f"<b>{html.escape(self.state.draft)} draft</b>: {html.escape(note)}.")
        if self.missing:
            said.append(html.escape(self.missing))
        self.note.object = f'<div class="preset-note" aria-live="polite">{" ".join(said)}</div>'

    def __panel__(self):
        if self._view is not None:
            return self._view
        label = pn.pane.HTML('<span class="bar-label">Try</span>', stylesheets=[sheet("presets")], margin=(6, 2))
        draft = pn.pane.HTML('<span class="bar-label">Draft</span>', stylesheets=[sheet("presets")],
                             margin=(6, 2, 6, 14))
        who = pn.pane.HTML('<span class="bar-label">Who guesses</span>', stylesheets=[sheet("presets")],
                           margin=(6, 2, 6, 14), visible=self.guesser.visible)
        row = pn.FlexBox(label, *self.buttons.values(), who, self.guesser, draft, self.switch, flex_wrap="wrap",
                         align_items="center", sizing_mode="stretch_width", margin=0)
        self._view = pn.Column(row, self.note, sizing_mode="stretch_width", css_classes=["preset-bar"],
                               margin=(0, 0, 6, 0))
        return self._view
