"""The preset bar: preset prompts in one click, the switch of draft variant (the aligned, a weak or a
random draft model: the lecture's switch), and on the pages that draft live the switch of drafter, who
guesses (the draft model, copying from the text, or both), so a lecturer shows drafting win and lose
live and names what won.

A chapter whose class sets `presets = True` shows the bar at the top of its body (chapters.base).
The controls only set the student's state (`prompt`, `variant`, `drafter`): the chapter redoes its
results through its `on_settings_changed` hook, like any change in the settings panel. The variant
switch offers the draft variants the running pair can have (lab.pairs.variants) and says which one it
cannot. On a preset the bar says who wins, measured: the student's request on it with each drafter
(`measure()`, on the model worker; the server's warm-up has the defaults), never in fixed words.

    bar = PresetBar(state, drafters=True)
    bar.choose("edit")                    # what a click on "Edit a record" does
    bar.variant_switch.value = "random"   # the random draft model guesses from now on
    bar.drafter_switch.value = "lookup"   # guesses are copied from the text from now on
    await bar.measure()                   # "Measured here, copying from the text wins: α = 0.82, 2.93× …"
"""
from __future__ import annotations

import html
import logging

import panel as pn
import param

from lab.experiments.presets import MEASURED_DRAFTERS, PRESETS, preset_by_key, preset_for_prompt, winner
from lab.prompts import PromptError
from lab.i18n import N_
from uikit.language import gettext as _, number
from uikit.words import CONTROL, WHO
from lab.pairs.variants import DEFAULT, DraftVariants
from intercept.clicks import on_click
from intercept.pacing import served
from uikit.state import SETTINGS, LabState
from uikit.styles import BOX_CSS, sheet

# English messages, shown in the page's language
VARIANT_LABELS = {"aligned": N_("aligned"), "weak": N_("weak"), "random": N_("random")}
VARIANT_NOTES = {
    "aligned": N_("the pair's own draft model ({label})"),
    "weak": N_("the target's first two layers, never trained to draft"),
    "random": N_("every token equally likely, so almost nothing is kept"),
}
VARIANT_SAID = (("aligned", N_("<b>aligned draft</b>: {note}.")), ("weak", N_("<b>weak draft</b>: {note}.")),
                ("random", N_("<b>random draft</b>: {note}.")))
# lab.experiments.presets' words (each preset's label and what it is, its drafters' names), marked
# here for the catalog: the bar shows them in the page's language (tests/i18n checks they are all here)
PRESET_WORDS = (N_("Edit a record"), N_("a record to write again with one change, its rest already in the prompt"),
                N_("Story opening"), N_("the opening of a story, free to go anywhere"),
                N_("Code"), N_("a function's header and docstring, its body to write"),
                N_("JSON"), N_("the start of a JSON object: keys, quotes and commas around free values"))
DRAFTER_NAMES = (("model", N_("the draft model")), ("lookup", N_("copying from the text")))
# lab.pairs.variants.DraftVariants.offered's sentences, marked here for the catalog
VARIANT_WHY = (N_("This pair has no weak draft (only the embedded SmolLM2 target has one); the aligned and the random "
                  "draft are offered."),)
log = logging.getLogger(__name__)


def reading(outcomes: dict) -> str:
    """Who wins on this request (lab.experiments.presets.reading's sentence) in the page's language:
    the winner with its α and speed-up, then the other drafters'."""
    if not outcomes:
        return ""

    def figures(d) -> str:
        return _("{who} keeps α = {alpha}, {speedup}×").format(
            who=_(dict(DRAFTER_NAMES)[d]), alpha=number(outcomes[d].alpha or 0, 2), speedup=number(outcomes[d].speedup, 2))
    best = winner(outcomes)
    ordered = sorted(outcomes, key=lambda d: -outcomes[d].speedup)
    if best is None:
        return _("Measured here, no guesser beats plain decoding: {figures}.").format(
            figures="; ".join(figures(d) for d in ordered))
    rest = "; ".join(figures(d) for d in ordered if d != best)
    said = dict(who=_(dict(DRAFTER_NAMES)[best]), alpha=number(outcomes[best].alpha or 0, 2),
                speedup=number(outcomes[best].speedup, 2), others=rest)
    return (_("Measured here, {who} wins: α = {alpha}, {speedup}× plain decoding's speed; {others}.") if rest
            else _("Measured here, {who} wins: α = {alpha}, {speedup}× plain decoding's speed.")).format(**said)


class PresetBar(pn.viewable.Viewer):
    """Preset prompt buttons, the aligned / weak / random draft variant switch and (`drafters`) the
    switch of drafter, who guesses, for one student."""

    state = param.ClassSelector(class_=LabState)

    def __init__(self, state: LabState, drafters: bool = False, **params):
        super().__init__(state=state, **params)
        offered = DraftVariants.offered(state.service.pair)
        self.missing = "\n".join(sorted({why for why in offered.values() if why}))
        if offered.get(state.variant):               # a variant kept from another pair's page
            state.variant = DEFAULT
        self.buttons = {}
        for preset in PRESETS:
            button = pn.widgets.Button(label=_(preset.label), color="light", margin=(2, 3),
                                       stylesheets=[sheet("presets")], css_classes=["preset", f"preset-{preset.key}"])
            on_click(button, lambda event, key=preset.key: self.choose(key))
            self.buttons[preset.key] = button
        self.variant_switch = pn.widgets.RadioButtonGroup(
            options={_(VARIANT_LABELS[v]): v for v, why in offered.items() if not why}, value=state.variant,
            color="primary", variant="outline", margin=(2, 3), stylesheets=[sheet("presets")],
            css_classes=["variant-switch"])
        self.variant_switch.param.watch(lambda e: setattr(self.state, "variant", e.new), "value")
        self.drafter_switch = pn.widgets.RadioButtonGroup(
            options={_(CONTROL[k]): k for k in CONTROL}, value=state.drafter, color="primary", variant="outline",
            margin=(2, 3), stylesheets=[sheet("presets")], css_classes=["drafter-switch"], visible=drafters)
        self.drafter_switch.param.watch(lambda e: setattr(self.state, "drafter", e.new), "value")
        self._view = None
        self.note = pn.pane.HTML("", stylesheets=[BOX_CSS, sheet("presets")], sizing_mode="stretch_width",
                                 margin=(0, 5))
        self._measured: tuple = ()       # the requests `reading` was measured for
        self._outcomes: dict = {}        # drafter → Outcome, measured for `_measured`
        self._asked: tuple = ()          # the requests a measurement is under way for
        state.param.watch(self._sync, sorted({"prompt", "variant", "drafter", *SETTINGS}))
        self._sync()

    def wait_for_answer(self, card) -> None:
        """Say who wins on a preset only once the student has answered `card` (the chapter's
        predict card), seen the chapter's result, or the lecturer revealed it: the winner may be
        that question's answer."""
        self._card = card
        card.param.watch(self._sync, ["committed", "ready", "class_revealed"])
        self._sync()

    def _winner_hidden(self) -> bool:
        card = getattr(self, "_card", None)
        return card is not None and card.committed is None and not card.ready and not card.class_revealed

    def choose(self, key: str) -> None:
        """Make preset `key`'s prompt the student's prompt (the chapter redoes its results)."""
        self.state.param.update(prompt=preset_by_key(key).prompt, error="")

    def _sync(self, *events) -> None:
        """Mark the chosen preset, variant and drafter, and say what to expect from them."""
        chosen = preset_for_prompt(self.state.prompt)
        for key, button in self.buttons.items():
            button.color = "primary" if chosen and chosen.key == key else "light"
        self.variant_switch.value, self.drafter_switch.value = self.state.variant, self.state.drafter
        wins = ("<i>" + html.escape(_("Answer the question above first; then this bar says who wins here."))
                + "</i>" if self._winner_hidden() else self._who_wins())
        said = [_("<b>{preset}</b>: {what}. {who_wins}").format(
            preset=html.escape(_(chosen.label)), what=html.escape(_(chosen.what)), who_wins=wins)] if chosen else []
        if self.drafter_switch.visible:
            said.append(_("<b>Who guesses</b>: {who}.").format(who=html.escape(_(WHO[self.state.drafter]))))
        if self.state.drafter != "lookup" or not self.drafter_switch.visible:
            note = _(VARIANT_NOTES[self.state.variant]).format(label=self.state.service.pair.draft_label)
            said.append(_(dict(VARIANT_SAID)[self.state.variant]).format(note=html.escape(note)))
        if self.missing:
            said.append(html.escape(" ".join(_(why) for why in self.missing.split("\n"))))
        self.note.object = f'<div class="preset-note" aria-live="polite">{" ".join(said)}</div>'

    def requests(self) -> tuple:
        """The student's request on the chosen preset with each drafter (empty off a preset)."""
        if preset_for_prompt(self.state.prompt) is None:
            return ()
        try:
            ids = self.state.prompt_ids()
        except PromptError:
            return ()
        return tuple(self.state.request(ids, drafter=d, variant=self.state.variant) for d in MEASURED_DRAFTERS)

    def _who_wins(self) -> str:
        """The measured reading of the chosen preset (HTML), or that it is being measured."""
        wanted = self.requests()
        if wanted and wanted == self._measured:
            return html.escape(reading(self._outcomes))     # in the language of the page it is shown on
        if wanted and served() and wanted != self._asked:
            self._asked = wanted
            pn.state.execute(self.measure)
        return "<i>" + html.escape(_("Measuring who wins on it…")) + "</i>" if wanted else ""

    async def measure(self) -> str:
        """Measure the chosen preset with each drafter on the model worker (cached per request: the
        warm-up has the defaults, a class shares the rest) and show who wins; returns the reading."""
        wanted = self.requests()
        if not wanted or wanted == self._measured:
            return reading(self._outcomes) if wanted else ""
        service, outcomes = self.state.service, {}
        try:
            for request in wanted:
                outcomes[request.drafter] = await service.run_as(self.state.owner, service.outcome, request)
        except Exception as err:          # the queue is full or the models failed: the page goes on
            log.info("preset bar: who wins not measured (%s)", err)
            self._asked = ()
            return ""
        if wanted != self.requests():     # the student moved on meanwhile
            return ""
        self._measured, self._outcomes = wanted, outcomes
        self._sync()
        return reading(outcomes)

    def __panel__(self):
        if self._view is not None:
            return self._view
        bar_label = '<span class="bar-label">{}</span>'.format
        label = pn.pane.HTML(bar_label(html.escape(_("Try"))), stylesheets=[sheet("presets")], margin=(6, 2))
        variant = pn.pane.HTML(bar_label(html.escape(_("Draft"))), stylesheets=[sheet("presets")],
                               margin=(6, 2, 6, 14))
        who = pn.pane.HTML(bar_label(html.escape(_("Who guesses"))), stylesheets=[sheet("presets")],
                           margin=(6, 2, 6, 14), visible=self.drafter_switch.visible)
        # each label wraps with its buttons, never to the end of the line before them
        group = lambda *items, **kw: pn.FlexBox(*items, flex_wrap="nowrap", align_items="center", margin=0, **kw)  # noqa: E731
        row = pn.FlexBox(pn.FlexBox(label, *self.buttons.values(), flex_wrap="wrap", align_items="center", margin=0),
                         group(who, self.drafter_switch, visible=self.drafter_switch.visible),
                         group(variant, self.variant_switch), flex_wrap="wrap", align_items="center",
                         sizing_mode="stretch_width", margin=0)
        self._view = pn.Column(row, self.note, sizing_mode="stretch_width", css_classes=["preset-bar"],
                               margin=(0, 0, 6, 0))
        return self._view
