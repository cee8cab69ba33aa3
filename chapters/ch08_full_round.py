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
from lab.experiments.casesearch import (Found, Luck, SeedSearch, all_kept_key, all_kept_steps, cached_all_kept,
                                       luck, teaching_request)
from lab.core.trace import RoundTrace
from intercept.clicks import on_click
from uikit.predict import PredictCard
from uikit.styles import BOX_CSS, TABLE_CSS
from uikit.tokens import Chip, TokenStrip, legend, show_text

QUESTION_GAMMA = 4
FIND_LABEL = "Show a round where every draft is kept"   # the tour points at this button by its label


def round_steps(r: RoundTrace) -> int:
    """Steps of a round: the drafts, one per checked position, then the correction or bonus."""
    checked = sum(d.uniform is not None for d in r.guesses)
    return 1 + checked + 1


def checked_after(r: RoundTrace, step: int) -> int:
    """How many positions have been checked after `step` steps."""
    return min(max(0, step - 1), sum(d.uniform is not None for d in r.guesses))


def chips_after(r: RoundTrace, step: int, prefix: str) -> list[Chip]:
    """The text so far after `step` steps of round r (0 = nothing revealed yet)."""
    chips = [Chip(prefix, "prompt", "the text before this round")]
    checked = checked_after(r, step)
    for d in r.guesses[:checked]:
        if d.accepted:
            chips.append(Chip(d.text, "kept", f"kept: u = {d.uniform:.3f} < {d.accept_probability:.3f}"))
    if step >= round_steps(r):
        chips = chips[:1] + [Chip(t, "kept") for t in r.emitted_texts[:-1]]
        if len(r.emitted_ids) == r.n_accepted + 1:          # not cut short by an end-of-text token
            kind = "fixed" if r.extra_kind == "correction" else ("bonus" if r.extra_kind == "bonus" else "target")
            chips.append(Chip(r.extra_text, kind, f"{r.extra_kind} token from the target"))
        else:
            chips.append(Chip(r.emitted_texts[-1], "kept"))
    return chips


class FullRoundChapter(RoundChapter):
    number = 8
    slug = "full-round"
    part = "III"
    kicker = "Question 4 · a full round"
    title = "Keep the prefix, correct once, drop the rest."
    intro = ("Now the three moves from Part II with real numbers. Check the draft tokens left to right: "
             "everything before the first rejection is kept, the rejected position is corrected from "
             "the residual, and later drafts are thrown away because their context is now wrong.")
    takeaway = "Each target call commits 1 to γ + 1 tokens — more when the draft is good."
    tour_parts = ("step_button", "next_button", "restart_button", "round_note", "drafts_strip", "table",
                  "explain", "text_strip")    # what shell/tour/steps.py shows
    question = "All γ = 4 draft tokens are accepted. How many tokens does this round add to the text?"

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
        self.step_button = pn.widgets.Button(label="Step", color="primary", width=120)
        on_click(self.step_button, self._on_step)
        self.next_button = pn.widgets.Button(label="Next round", width=140)
        on_click(self.next_button, self._on_next_round)
        self.restart_button = pn.widgets.Button(label="Restart this round", color="light", width=190)
        on_click(self.restart_button, lambda e: self.restart())
        self.round_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self.drafts_strip = TokenStrip(empty="Press Step: the draft proposes γ tokens.")
        self.table = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, BOX_CSS])
        self.explain = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS, BOX_CSS])
        self.text_strip = TokenStrip(empty="")
        self.find_button = pn.widgets.Button(label=FIND_LABEL, color="primary", width=330)
        on_click(self.find_button, self._on_find)
        self.case_note = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[TABLE_CSS])
        self._searches: dict = {}       # (prompt, settings, γ, seed) → its SeedSearch, resumed on each press

    def make_predict(self):
        return PredictCard(
            self.state, 8, self.question, answer=lambda: QUESTION_GAMMA + 1, bounds=(0, 10),
            explanation=(f"The {QUESTION_GAMMA} kept drafts, plus one bonus token: the target pass already "
                         f"returned p at position {QUESTION_GAMMA + 1}, so sampling from it is free."),
            hint=f"Now press “{FIND_LABEL}” below (or step through rounds) and watch what such a round adds.")

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
        found = await self.run_model(search, message="Trying seeds until a round keeps every draft…")
        if found is None:
            return False
        if found.seed is None:
            self.case_note.object = no_case_html(found, state.gamma, settings.describe())
            return False
        generation = await self.run_model(
            state.service.generation_steps, teaching_request(ids, settings=settings, gamma=state.gamma, seed=found.seed,
                                                             max_new_tokens=MAX_NEW_TOKENS, variant=variant),
            keep_rows=True, message="Running the draft and the target…")
        if generation is None:
            return False
        self.case_note.object = (f"<p class='speclab-formula' role='status'>Seed {found.seed}, round "
                                 f"{found.index + 1}: all {state.gamma} drafts kept (found after "
                                 f"{_seeds(found.tried)}, {found.rounds} round{'s' if found.rounds != 1 else ''} "
                                 "checked): a round picked for the question, not a typical one.</p>")
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
        self.round_note.object = (
            f"<p class='speclab-formula'>Round {r.index + 1} of {n} (seed {self.generation.seed}) · "
            f"{guesser(r)} · step "
            f"{self.step} of {round_steps(r)}. {html.escape(settings_note(self.settings, self.state))}"
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
                chips.append(Chip(d.text, state, f"draft guess {d.index + 1}"))
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
                   {"draft": "drafted, not checked yet"}),
            "#### The draft's guesses", self.drafts_strip,
            self.table, self.explain,
            "#### Text so far", pn.Column(self.text_strip, css_classes=["text-so-far"], sizing_mode="stretch_width"),
            sizing_mode="stretch_width")


def guesser(r: RoundTrace) -> str:
    """Who guesses this round, in words: these pages draft with the draft model at the student's γ."""
    if r.gamma == 0:
        return "no guesses this round: the target writes one token"
    return f"the draft model guesses γ = {r.gamma} token{'s' if r.gamma != 1 else ''}"


def _share(x: float) -> str:
    return "less than 1%" if x < 0.01 else f"about {x:.0%}"


def luck_html(lk: Luck | None) -> str:
    """How the round just stepped through compares with a typical one of its generation: said
    whenever it is not typical (every draft kept against the odds, a guess the target would never
    write, a rare correction), so a lucky round is not read as the rule."""
    if lk is None:
        return ""
    typical = f"a typical round of this generation (α = {lk.alpha:.2f}) keeps about {lk.expected_kept:.1f} of {lk.gamma}"
    if lk.lucky:
        text = (f"A lucky round: at α = {lk.alpha:.2f} a round keeps all {lk.gamma} drafts only "
                f"{_share(lk.all_kept)} of the time; {typical}.")
    elif lk.kept == lk.gamma:
        text = f"At α = {lk.alpha:.2f} a round keeps all {lk.gamma} drafts {_share(lk.all_kept)} of the time."
    elif lk.hopeless is not None:
        i, p = lk.hopeless
        text = (f"An unlucky round: the target gives guess {i + 1} p = {p:.3f}, a token it would almost never "
                f"write here, so that guess was sure to be rejected; {typical}.")
    else:
        text = f"This round kept {lk.kept}; {typical}."
    if lk.rare_correction is not None:
        text += (f" The correction “{show_text(lk.rare_correction)}” is none of the residual's five "
                 "likeliest tokens: a rare draw.")
    return f"<p class='speclab-formula luck' role='note'>{html.escape(text)}</p>"


def _ratio(p: float, q: float) -> str:
    return "∞" if q <= 0 else f"{p / q:.3f}"


def _seeds(n: int) -> str:
    return f"{n} seed{'s' if n != 1 else ''}"


def no_case_html(found: Found, gamma: int, settings: str) -> str:
    """One sentence: no round kept every draft in the rounds checked, and what to do."""
    if found.timed_out:
        what = (f"No round kept all γ = {gamma} drafts in the {found.rounds} round"
                f"{'s' if found.rounds != 1 else ''} checked so far at {html.escape(settings)}; press the "
                "button again to search on, or lower the temperature (or γ) in the side panel.")
    else:
        what = (f"None of {_seeds(found.tried)} gave a round keeping all γ = {gamma} drafts at "
                f"{html.escape(settings)}; lower the temperature (or γ) in the side panel and try again.")
    return f"<p class='speclab-formula' role='status'>{what}</p>"


def table_html(r: RoundTrace, step: int, checked: int, done: bool) -> str:
    """The checks table after `step` steps: the engine's p, q, p/q, u and verdict per checked position."""
    if step == 0:
        return ""
    rows = []
    for d in r.guesses:
        head = f"<tr><td>{d.index + 1}</td><td>{html.escape(show_text(d.text))}</td>"
        if d.index < checked:
            verdict = "✓ keep" if d.accepted else "✗ reject"
            rows.append(f"{head}<td>{d.p:.3f}</td><td>{d.q:.3f}</td><td>{_ratio(d.p, d.q)}</td>"
                        f"<td>{d.accept_probability:.3f}</td><td>{d.uniform:.3f}</td><td><b>{verdict}</b></td></tr>")
        elif done and d.uniform is None:
            rows.append(f"{head}<td colspan='6'>– dropped: its context contained a rejected guess</td></tr>")
        else:
            rows.append(f"{head}<td colspan='6'>not checked yet (q = {d.q:.3f})</td></tr>")
    return ("<table class='speclab-table'><thead><tr><th>i</th><th>draft x</th><th>p(x)</th><th>q(x)</th>"
            "<th>p / q</th><th>keep if u &lt; min(1, p/q)</th><th>u</th><th>verdict</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def explain_html(r: RoundTrace, step: int, checked: int, done: bool) -> str:
    """One sentence on what the latest step did."""
    if step == 0:
        return (f"<p class='speclab-formula'>Each <b>Step</b> makes one move: first {guesser(r)}, "
                "and one target call scores them all, then the guesses are checked left to right.</p>")
    if step == 1:
        return (f"<p class='speclab-formula'>The draft model guessed {r.gamma} token{'s' if r.gamma != 1 else ''}, "
                "each sampled from its q. One target call has scored them all. Step to check them left to "
                "right.</p>")
    if not done:
        d = r.guesses[checked - 1]
        rel = "&lt;" if d.accepted else "≥"
        return (f"<p class='speclab-formula'>Position {d.index + 1}: u = {d.uniform:.3f} {rel} "
                f"min(1, {d.p:.3f} / {d.q:.3f}) = {d.accept_probability:.3f} → "
                f"<b>{'keep' if d.accepted else 'reject'}</b>.</p>")
    top = ", ".join(f"{html.escape(show_text(c.text))} {c.prob:.2f}" for c in r.extra_top[:5])
    extra = f"<b>{html.escape(show_text(r.extra_text))}</b>"
    if r.extra_kind == "correction":
        j = r.n_accepted
        dropped = r.gamma - j - 1
        msg = (f"Guess {j + 1} was rejected, so the target writes position {j + 1} itself, sampling from "
               f"the residual (p − q)+ normalised ({top}): {extra}."
               + (f" The {dropped} later draft{'s' if dropped != 1 else ''} are dropped." if dropped else ""))
    elif r.extra_kind == "bonus":
        msg = (f"All {r.gamma} drafts kept — and the target pass already returned p at position "
               f"{r.gamma + 1} ({top}), so a bonus token comes free: {extra}.")
    else:
        msg = f"No drafts this round; the target wrote {extra}."
    added = len(r.emitted_ids)
    return (f"<p class='speclab-formula'>{msg} This round adds <b>{added}</b> token"
            f"{'s' if added != 1 else ''} for one target call.</p>")
