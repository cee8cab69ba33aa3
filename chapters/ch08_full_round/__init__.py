"""Chapter 8 — a full round, stepped position by position from one real `RoundTrace`.

Step 0 shows the γ drafts; each following step checks one position (p, q, p/q, u, keep/reject);
the last step writes the correction from the residual, or the bonus token when all were kept.
Nothing is recomputed here: every number is the engine's, revealed one step at a time.

The question asks about a round that keeps all γ drafts, which a few sampled rounds may never
show: "Show a round where every draft is kept" tries seeds on the model worker
(lab.experiments.casesearch) and shows the first such round, stepped to its end. The verdict is
revealed only once such a round has been on the page.
"""
from __future__ import annotations

import html

import panel as pn
import param

from chapters.rounds import MAX_NEW_TOKENS, RoundChapter, round_settings, seed_note, settings_note
from lab.experiments.casesearch import (SeedSearch, all_kept_key, all_kept_steps, cached_all_kept, luck,
                                       teaching_request)
from lab.core.trace import RoundTrace
from intercept.clicks import on_click
from uikit.actions import action
from lab.i18n import N_
from uikit.language import Translated, gettext as _, ngettext, number
from uikit.panels import sampling_words
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, TABLE_CSS
from uikit.tokens import Chip, TokenStrip, legend

from chapters.ch08_full_round.words import (explain_html, found_html, guesser, luck_html, no_case_html,  # noqa: F401
                                           table_html)

QUESTION_GAMMA = 4
FIND_LABEL = N_("Show a round where every draft is kept")   # the tour points at this button by its label

# chapters.bridge.QUESTIONS' question this page answers, its kicker (chapters.registry.kicker): marked
# here for the catalog (tests/i18n checks it is the bridge's)
KICKER = (N_("How do the pieces fit together?"),)


def extra_words(kind: str) -> str:
    """The tooltip of the token a round ends with, by its kind (RoundTrace.extra_kind)."""
    if kind == "correction":
        return _("the target's correction, from the residual")
    return _("bonus token from the target") if kind == "bonus" else _("written by the target")


def round_steps(r: RoundTrace) -> int:
    """Steps of a round: the drafts, one per checked position, then the correction or bonus."""
    checked = sum(d.uniform is not None for d in r.guesses)
    return 1 + checked + 1


def checked_after(r: RoundTrace, step: int) -> int:
    """How many positions have been checked after `step` steps."""
    return min(max(0, step - 1), sum(d.uniform is not None for d in r.guesses))


def chips_after(r: RoundTrace, step: int, prefix: str) -> list[Chip]:
    """The text so far after `step` steps of round r (0 = nothing revealed yet)."""
    chips = [Chip(prefix, "prompt", _("the text before this round"))]
    checked = checked_after(r, step)
    for d in r.guesses[:checked]:
        if d.accepted:
            chips.append(Chip(d.text, "kept", _("kept: u = {u} < {threshold}").format(
                u=number(d.uniform, 3), threshold=number(d.accept_probability, 3))))
    if step >= round_steps(r):
        chips = chips[:1] + [Chip(t, "kept") for t in r.emitted_texts[:-1]]
        if len(r.emitted_ids) == r.n_accepted + 1:          # not cut short by an end-of-text token
            kind = "fixed" if r.extra_kind == "correction" else ("bonus" if r.extra_kind == "bonus" else "target")
            chips.append(Chip(r.extra_text, kind, extra_words(r.extra_kind)))
        else:
            chips.append(Chip(r.emitted_texts[-1], "kept"))
    return chips


class FullRoundChapter(RoundChapter):
    number = 8
    slug = "full-round"
    part = "III"
    kicker = Translated("Question 4 · a full round")
    title = Translated("Keep the prefix, correct once, drop the rest.")
    intro = Translated("Now the three moves from Part II with real numbers. Check the draft tokens left to right: "
                       "everything before the first rejection is kept, the rejected position is corrected from "
                       "the residual, and later drafts are thrown away because their context is now wrong.")
    takeaway = Translated("Each target call commits 1 to γ + 1 tokens — more when the draft is good.")
    tour_parts = ("step_button", "next_button", "restart_button", "round_note", "drafts_strip", "table",
                  "explain", "text_strip")    # what shell/tour/steps.py shows
    question = Translated("All γ = 4 draft tokens are accepted. How many tokens does this round add to the text?")

    presets = True
    step = param.Integer(default=0, doc="Steps revealed of the current round.")
    case_seen = param.Boolean(default=False, doc="A round keeping every draft has been shown to its end.")

    @classmethod
    def warmup(cls, student):
        """The shared rounds, then the default request's round keeping every draft and its generation,
        so "Show a round where every draft is kept" answers at once on its first press (the tour too)."""
        return super().warmup(student) + [
            ("chapter 8's round keeping every draft", all_kept_steps, (student.service, student.prompt_ids()),
             dict(settings=round_settings(student), gamma=student.gamma, max_new_tokens=MAX_NEW_TOKENS,
                  first_seed=student.seed, variant="aligned"))]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.step_button = action(_("Step"), "step", color="primary", width=120)
        on_click(self.step_button, self._on_step)
        self.next_button = action(_("Next round"), "next-round", width=140)
        on_click(self.next_button, self._on_next_round)
        self.restart_button = action(_("Restart this round"), "restart-round", color="light", width=190)
        on_click(self.restart_button, lambda e: self.restart())
        self.round_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS],
                                       css_classes=["round-note"])
        self.drafts_strip = TokenStrip(empty=_("Press Step: the draft proposes γ tokens."))
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, BOX_CSS])
        self.explain = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, BOX_CSS])
        self.text_strip = TokenStrip(empty="")
        self.find_button = action(_(FIND_LABEL), "find-round", color="primary", width=330)
        on_click(self.find_button, self._on_find)
        self.case_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self._searches: dict = {}       # (prompt, settings, γ, seed) → its SeedSearch, resumed on each press

    def make_predict(self):
        return PredictCard(
            self.state, 8, self.question, answer=lambda: QUESTION_GAMMA + 1, bounds=(0, 10),
            explanation=_("The {gamma} kept drafts, plus one bonus token: the target pass already returned p at "
                          "position {next}, so sampling from it is free.").format(gamma=QUESTION_GAMMA,
                                                                                next=QUESTION_GAMMA + 1),
            hint=_("Now press “{button}” below (or step through rounds) and watch what such a round "
                   "adds.").format(button=_(FIND_LABEL)))

    # ---- data ----------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.round is not None and self.step >= round_steps(self.round)

    def restart(self) -> None:
        self.step = 0
        self._draw()

    async def advance(self) -> None:
        """One step of the round (loading the generation first if needed)."""
        if await self.ensure_generation() and not self.done:
            self.step += 1
            self._draw()

    async def _on_step(self, event):
        await self.advance()

    async def show_all_kept(self) -> bool:
        """Search seeds for a round keeping all γ drafts at the student's settings and show it to its
        end; False (with one sentence) when none was found or the models could not run. A search cut
        short by its time limit goes on from the round where it stopped when pressed again."""
        ids = self.prompt_ids()
        if ids is None:
            return False
        state, settings, variant = self.state, self.refresh_settings(), self.variant
        request = dict(settings=settings, gamma=state.gamma, max_new_tokens=MAX_NEW_TOKENS, first_seed=state.seed,
                       variant=variant)
        key, searches = all_kept_key(ids, **request), self._searches

        def search():          # on the model worker: the class's round found before, or search on
            if key not in searches:
                searches[key] = SeedSearch(state.service.pair_for(variant), ids, settings=settings, gamma=state.gamma,
                                           max_new_tokens=MAX_NEW_TOKENS, first_seed=state.seed)
            return cached_all_kept(state.service, ids, search=searches[key], **request)
        found = await self.run_model(search, message=N_("Trying seeds until a round keeps every draft…"))
        if found is None:
            return False
        if found.seed is None:
            self.case_note.object = no_case_html(found, state.gamma, sampling_words(settings))
            return False
        generation = await self.run_model(
            state.service.generation_steps, teaching_request(ids, settings=settings, gamma=state.gamma, seed=found.seed,
                                                             max_new_tokens=MAX_NEW_TOKENS, variant=variant),
            keep_rows=True, message=N_("Running the draft and the target…"))
        if generation is None:
            return False
        self.case_note.object = found_html(found, state.gamma)
        self.show_generation(generation, found.index)
        self.step = round_steps(self.round)
        self._draw()
        return True

    async def _on_find(self, event):
        await self.show_all_kept()

    # ---- views ---------------------------------------------------------------------------------------
    def _draw(self):
        r = self.round
        if r is None:
            return
        tok = self.state.service.pair.tokenizer
        prefix = tok.decode(r.prefix_ids)
        n = len(self.generation.rounds)
        head = _("Round {n} of {rounds} (seed {seed}) · {who} · step {step} of {steps}.").format(
            n=r.index + 1, rounds=n, seed=self.generation.seed, who=guesser(r), step=self.step, steps=round_steps(r))
        self.round_note.object = (
            f"<p class='speclab-formula'>{html.escape(head)} {html.escape(settings_note(self.settings, self.state))}"
            f"{html.escape(seed_note(self.generation, self.state))}</p>")
        self.step_button.disabled = self.done
        checked = checked_after(r, self.step)
        chips = []
        if self.step >= 1:
            for d in r.guesses:
                if d.index < checked:
                    state = "kept" if d.accepted else "rejected"
                elif self.done and d.uniform is None:
                    state = "dropped"
                else:
                    state = "draft"
                chips.append(Chip(d.text, state, _("draft guess {n}").format(n=d.index + 1)))
        self.drafts_strip.chips = chips
        self.table.object = table_html(r, self.step, checked, self.done)
        self.explain.object = explain_html(r, self.step, checked, self.done)
        if self.done:
            self.explain.object += luck_html(luck(r, self.generation.alpha))
        self.text_strip.chips = chips_after(r, self.step, prefix)
        if self.done and r.gamma > 0 and r.n_accepted == r.gamma:
            self.case_seen = True
        if self.case_seen and self.predict is not None:
            self.predict.reveal()

    # ---- page ----------------------------------------------------------------------------------------
    def body(self):
        return pn.Column(
            pn.Row(self.step_button, self.next_button, self.restart_button, self.find_button, self.busy),
            self.case_note, self.round_note,
            legend(["draft", "kept", "rejected", "fixed", "bonus", "dropped"],
                   {"draft": _("drafted, not checked yet")}),
            "#### " + _("The draft's guesses"), self.drafts_strip,
            self.table, self.explain,
            "#### " + _("Text so far"),
            pn.Column(self.text_strip, css_classes=["text-so-far"], sizing_mode="stretch_width"),
            sizing_mode="stretch_width")
