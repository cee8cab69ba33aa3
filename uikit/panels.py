"""Panels every page shares: the working line, the takeaway box, the student's settings, the pair badge.

    busy = Busy(); with busy.working("The models are working…"): ...
    takeaway_box("…"); SettingsPanel(state); badges.add(PairBadge(state))
    badges.pair_switched()     # the lecturer switched the pair: every open page's badge names the new one
"""
from __future__ import annotations

import contextlib
import html
import re
import weakref

import panel as pn
import param
from panel.io.state import set_curdoc

from lab.prompts import PromptError, encode_prompt
from lab.pairs.variants import DEFAULT, DraftVariants
from uikit.words import WHO
from intercept import validate
from intercept.clicks import on_click
from uikit.actions import action
from intercept.pacing import served
from lab import i18n
from lab.i18n import N_
from uikit.figures import decimal_formatter
from uikit.language import gettext as _, page_language, say
from uikit.state import SAMPLING, SETTINGS, LabState
from uikit.styles import BOX_CSS


def takeaway_box(text: str) -> pn.pane.HTML:
    label = html.escape(_("Takeaway"))
    return pn.pane.HTML(f'<div class="takeaway"><div class="label">{label}</div>'
                        f'<p>{html.escape(text)}</p></div>', css_classes=["takeaway-pane"],
                        stylesheets=[BOX_CSS], sizing_mode="stretch_width", margin=(24, 0, 8, 0))


class Busy(pn.viewable.Viewer):
    """A visible "working…" line (spinner + text, announced to screen readers) beside the button
    that asked; after the work, `said` keeps one sentence there (a press the models refused), so
    the student reads why where they pressed, on the chapter page and on the tour alike."""
    message = param.String(default="")
    said = param.String(default="", doc="One sentence about the last press, shown while not working.")

    def __init__(self, **params):
        super().__init__(**params)
        self._pane = pn.pane.HTML(self._html(), stylesheets=[BOX_CSS], margin=(2, 0), min_height=28,
                                  sizing_mode="stretch_width")
        self.param.watch(lambda e: setattr(self._pane, "object", self._html()), ["message", "said"])

    def _html(self) -> str:
        if not self.message:
            if self.said:
                return f'<div class="busy" role="alert">{html.escape(self.said)}</div>'
            return '<div class="busy" aria-live="polite"></div>'
        return (f'<div class="busy" aria-live="polite"><span class="spin" aria-hidden="true"></span>'
                f'{html.escape(self.message)}</div>')

    def say(self, sentence: str) -> None:
        """Keep `sentence` on the line until the next work starts ("" clears it)."""
        self.said = sentence

    @property
    def active(self) -> bool:
        return bool(self.message)

    @contextlib.contextmanager
    def working(self, message: str = "working…"):
        self.said = ""
        self.message = message
        try:
            yield
        finally:
            self.message = ""

    def __panel__(self):
        return self._pane


@contextlib.contextmanager
def button_disabled(button):
    """Disable `button` while its own work runs, and enable it again however the work ends.

        with button_disabled(self.ask_button):
            result = await self.run_model(guesses, ...)
    """
    button.disabled = True
    try:
        yield
    finally:
        button.disabled = False


# The fields SettingsPanel edits, in SETTINGS' order: the prompt and the sampling settings. The other
# SETTINGS (γ, the seed, the drafter) are set where their effect is shown (a chapter's sliders, the
# preset bar), so the panel picks its fields from SETTINGS by name and a new setting stays out of it
# until it is named here.
PANEL_FIELDS = tuple(name for name in SETTINGS if name in ("prompt", *SAMPLING))
FIELD_LABELS = {"prompt": N_("Prompt (both models continue it)"), "temperature": N_("Temperature (0 = greedy)"),
                "top_k": N_("top-k (0 = off)"), "top_p": N_("top-p (1 = off)")}    # in the page's language


def field_widget(state: LabState, name: str):
    """The widget that edits setting `name` of `state`, starting at its value; a slider takes its
    range and step from LabState's parameter."""
    value, spec = getattr(state, name), state.param[name]
    if name == "prompt":
        return pn.widgets.TextAreaInput(label=_(FIELD_LABELS[name]), value=value, max_length=2000, rows=2,
                                        sizing_mode="stretch_width")
    start, end = spec.bounds
    if isinstance(spec, param.Integer):
        return pn.widgets.IntSlider(label=_(FIELD_LABELS[name]), start=start, end=end, value=value,
                                    sizing_mode="stretch_width")
    comma = decimal_formatter()       # the value as the page writes it ("0,70" on a Spanish page)
    return pn.widgets.FloatSlider(label=_(FIELD_LABELS[name]), start=start, end=end, step=spec.step, value=value,
                                  sizing_mode="stretch_width", **({} if comma is None else {"format": comma}))


class SettingsPanel(pn.viewable.Viewer):
    """The student's own prompt and sampling settings (this browser session only): a widget per
    PANEL_FIELDS name in `fields` (also an attribute of that name: `panel.prompt`, `panel.top_k`),
    stored in the state together by "Use these settings"."""

    def __init__(self, state: LabState, **params):
        super().__init__(**params)
        self.state = state
        self.apply = action(_("Use these settings"), "apply-settings", color="primary")
        self.message = pn.pane.HTML("", stylesheets=[BOX_CSS], sizing_mode="stretch_width")
        on_click(self.apply, lambda e: self.commit())
        self.fields = {name: field_widget(state, name) for name in PANEL_FIELDS}
        for name, widget in self.fields.items():
            setattr(self, name, widget)
            validate.guard(widget, self.say)            # a browser's bad value is said here
        # set elsewhere (a preset prompt): the panel shows it, so "Use these settings" keeps it
        state.param.watch(self._follow, list(PANEL_FIELDS))

    def _follow(self, *events) -> None:
        for event in events:
            self.fields[event.name].value = event.new

    def say(self, sentence: str) -> None:
        self.message.object = f'<div class="error" role="alert">{html.escape(sentence)}</div>'

    def commit(self) -> bool:
        """Check the prompt; store every field in the session state, or say what is wrong."""
        try:
            encode_prompt(self.state.service.pair.tokenizer, self.fields["prompt"].value)
        except PromptError as err:
            self.state.error = str(err)
            self.say(str(err))
            return False
        self.state.param.update(**{name: widget.value for name, widget in self.fields.items()}, error="")
        saved = _("Saved for this session: {settings}.").format(settings=sampling_words(self.state.settings))
        self.message.object = f'<div class="badge">{html.escape(saved)}</div>'
        return True

    def __panel__(self):
        return pn.Column(*self.fields.values(), self.apply, self.message,
                         sizing_mode="stretch_width", css_classes=["settings-panel"])


def human_count(n: int) -> str:
    if n >= 1e9:
        return f"{n / 1e9:.1f} B"
    if n >= 1e6:
        return f"{n / 1e6:.0f} M" if n >= 1e7 else f"{n / 1e6:.1f} M"
    if n >= 1e3:
        return f"{n / 1e3:.0f} k"
    return str(n)


def badge_html(pair, settings, variant: str = DEFAULT, drafter: str = "model", page_sampling: str = "") -> str:
    """The badge's HTML: what the pages draft with. `variant` is the student's draft variant
    (lab.pairs.variants), named when it is not the pair's own draft model; `drafter` the student's
    choice of who guesses (the preset bar's switch, on the pages that show it; the others use the
    draft model), named when it is not the draft model. The pair's own drafting (`pair.drafter`) is
    used only by `python -m lab measure`, which says it there. `page_sampling`: what the page on
    screen samples with when it is not `settings` (LabState.page_sampling), said first: one
    temperature per page, the one it uses."""
    own = variant == DEFAULT
    mine = html.escape(_("(your choice)"))
    drafting = (f'{html.escape(pair.draft_label)} ({human_count(pair.draft_params)})'
                if own else f'{html.escape(_(DraftVariants.label(pair, variant)))} {mine}')
    if drafter != "model":
        who, where = html.escape(_("who guesses")), html.escape(_("(your choice, where a page offers it)"))
        drafting += f' · <span class="dr">{who}</span> {html.escape(_(WHO[drafter]))} {where}'
    label, target, draft = (html.escape(s) for s in (_("model pair in use"), _("target"), _("draft")))
    size = html.escape(_("({size} parameters)").format(size=human_count(pair.target_params)))
    return (f'<div class="badge" role="note" aria-label="{label}">'
            f'<b>{target}</b> {html.escape(pair.target_label)} {size} · '
            f'<span class="dr">{draft}</span> {drafting} · '
            f'{html.escape(pair.device)} {html.escape(pair.dtype)} · '
            f'{sampling_html(settings, page_sampling)}{_pair_warning(pair)}</div>')


def sampling_html(settings, page_sampling: str = "") -> str:
    """The badge's sampling: the session's settings, or what this page uses instead and why."""
    if page_sampling and page_sampling != settings.describe():
        return html.escape(_("sampling on this page: {page} (your settings: {yours})")).format(
            page=f"<b>{html.escape(described_words(page_sampling))}</b>", yours=html.escape(sampling_words(settings)))
    return html.escape(_("sampling: {settings}")).format(settings=html.escape(sampling_words(settings)))


def sampling_words(settings) -> str:
    """`settings.describe()` (lab.core.sampling: "temperature 0.7, top-k 50") in the page's language;
    top-k and top-p are the libraries' names, in every language."""
    if settings.greedy:
        return _("greedy (temperature 0)")
    return described_words(settings.describe())


def described_words(described: str) -> str:
    """A `SamplingSettings.describe()` text (a page's, kept as text: LabState.page_sampling) in the
    page's language: its temperature translated, top-k and top-p as describe() words them."""
    if described == "greedy (temperature 0)":
        return _("greedy (temperature 0)")
    first, *rest = described.split(", ")
    if not first.startswith("temperature "):
        return described
    decimal = i18n.number_format(page_language()).get("decimal", ".")
    said = ", ".join([_("temperature {value}").format(value=first.removeprefix("temperature ")), *rest])
    return re.sub(r"(?<=\d)\.(?=\d)", decimal, said)      # "top-p 0,9" on a Spanish page



def _pair_warning(pair) -> str:
    """A lecturer's pair that was refused, or a provisional default, said in the badge."""
    note = (getattr(pair, "notes", None) or {}).get("warning")
    return f'<div class="error" role="note">⚠ {html.escape(say(note))}</div>' if note else ""


class PairBadge(pn.viewable.Viewer):
    """Which target and draft are loaded, their sizes, device, and the sampling settings in force.

    It follows the student's settings, draft variant and drafter, and the pair itself when the lecturer switches it
    for everyone (`Badges.pair_switched`, for the badges the shell added): a page's results then
    come from the new pair at the next action, and the badge beside them must name it at once."""

    def __init__(self, state: LabState, **params):
        super().__init__(**params)
        self.state = state
        self.doc = pn.state.curdoc if served() else None
        self._pane = pn.pane.HTML(self._html(), stylesheets=[BOX_CSS], sizing_mode="stretch_width",
                                  css_classes=["pair-badge"], margin=(2, 8))
        state.param.watch(lambda e: self.refresh(), [*SAMPLING, "variant", "drafter", "page_sampling", "on_screen"])

    def _html(self) -> str:
        return badge_html(self.state.service.pair, self.state.settings, self.state.variant, self.state.drafter,
                          self.state.shown_sampling())

    def refresh(self) -> None:
        self._pane.object = self._html()

    def _refresh_in_page(self) -> None:
        with set_curdoc(self.doc):     # Panel then updates this page's model directly
            self.refresh()

    def __panel__(self):
        return self._pane


class Badges:
    """Every open page's badge of one server (a closed page's goes with it): the shell adds each
    page's, and redraws them all when the lecturer switches the pair."""

    def __init__(self):
        self._badges: weakref.WeakSet = weakref.WeakSet()

    def add(self, badge: PairBadge) -> PairBadge:
        self._badges.add(badge)
        return badge

    def pair_switched(self) -> int:
        """Every open page's badge redrawn with the pair now in use; returns how many were asked.

        Each served badge is redrawn in its own page's document as a next-tick callback (which holds
        that document's lock: the switch finishes on another page's callback); a page that has gone
        is skipped."""
        badges = list(self._badges)
        for badge in badges:
            if badge.doc is None:
                badge.refresh()
                continue
            try:
                badge.doc.add_next_tick_callback(badge._refresh_in_page)
            except Exception:      # its page closed meanwhile
                self._badges.discard(badge)
        return len(badges)
