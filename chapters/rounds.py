"""What chapters 5, 8 and 9 share: the session's real speculative generation, shown a round at a time.

A `RoundChapter` asks the engine for the generation (`generation_for`, cached by the service), shows
round `round_index` of it, moves on with `next_round()`, and loads again when the student changes
the prompt or settings in the side panel. A subclass draws the round in `restart()`; the chapters
that step through a round (8, 9) add `advance()`, loading first through `ensure_generation()`.

    class FullRoundChapter(RoundChapter):
        def restart(self):                    # the round from its first step
            self.step = 0
            self._draw()
"""
from __future__ import annotations

import panel as pn
import param

from chapters.base import Chapter
from lab.experiments.casesearch import teaching_request, teaching_seed_steps
from lab.i18n import N_
from lab.core.sampling import SamplingSettings
from lab.core.trace import GenerationTrace, RoundTrace
from intercept.pacing import served
from uikit.language import gettext as _, number
from uikit.panels import sampling_words

MAX_NEW_TOKENS = 16     # a handful of rounds to step through; keeps a slow CPU responsive


# What a greedy session's rounds are sampled with on these pages: p and q must not be one-hot, yet
# the text should read as the models write it. Temperature 1 over the whole vocabulary draws a
# rare token often enough to make nonsense of a 16-token text; a slightly cooled nucleus
# (temperature 0.7, top-p 0.9, a common default for sampling text) keeps p and q real distributions
# over the tokens that matter and reads as written.
SHOWN_TEMPERATURE, SHOWN_TOP_P = 0.7, 0.9


def round_settings(state) -> SamplingSettings:
    """The student's settings; a greedy session is shown at SHOWN_TEMPERATURE with top-p SHOWN_TOP_P
    (their top-k kept) so that p and q are not one-hot."""
    return page_settings(state.settings, SHOWN_TEMPERATURE if state.settings.greedy else state.settings.temperature)


def page_settings(settings: SamplingSettings, temperature: float) -> SamplingSettings:
    """The student's `settings` at a page's `temperature`: a greedy session, which chose no nucleus,
    samples from top-p SHOWN_TOP_P (their top-k kept)."""
    top_p = SHOWN_TOP_P if settings.greedy and temperature > 0 else settings.top_p
    return SamplingSettings(temperature, settings.top_k, top_p)


def settings_note(settings: SamplingSettings, state) -> str:
    """What this page samples with, in the page's language (the same messages as chapter 5's)."""
    if state.settings.greedy and not settings.greedy:
        return _("Sampling: {settings} on this page — your session is greedy, which would make every p and q "
                 "one-hot (chapter 9's temperature slider goes down to greedy).").format(
            settings=sampling_words(settings))
    return _("Sampling: {settings}.").format(settings=sampling_words(settings))


def listed(items: list[str]) -> str:
    """Items in a row, in the page's language, separated so that a decimal comma (Spanish "0,45")
    cannot be read as the separator."""
    return ("; " if "," in number(0.5, 1) else ", ").join(items)


def teaching_round(generation: GenerationTrace) -> int:
    """The index of the round to show first: the first that keeps some guesses and then rejects one
    (kept prefix, one correction, the rest dropped: every move of a round), else the first with a
    rejection, else the first.

    >>> from types import SimpleNamespace as R
    >>> teaching_round(R(rounds=[R(index=0, guesses=[1, 2], n_accepted=0), R(index=1, guesses=[1, 2], n_accepted=1)]))
    1
    """
    rounds = generation.rounds
    both = [r.index for r in rounds if r.guesses and 0 < r.n_accepted < len(r.guesses)]
    rejected = [r.index for r in rounds if r.guesses and r.n_accepted < len(r.guesses)]
    return next(iter(both + rejected), 0)


def teaching_generation_steps(service, prompt_ids: list[int], *, settings: SamplingSettings, gamma: int,
                              first_seed: int, variant: str = "aligned"):
    """The generation these pages show, as a long job: at the first seed from the student's whose
    first teaching round reads as the models write (lab.experiments.casesearch.teaching_seed_steps)."""
    seed = yield from teaching_seed_steps(service, prompt_ids, settings=settings, gamma=gamma,
                                          max_new_tokens=MAX_NEW_TOKENS, first_seed=first_seed, variant=variant)
    return (yield from service.generation_steps(teaching_request(
        prompt_ids, settings=settings, gamma=gamma, seed=seed, max_new_tokens=MAX_NEW_TOKENS, variant=variant),
        keep_rows=True))


def seed_note(generation: GenerationTrace, state) -> str:
    """Says so when the rounds shown are not at the student's own seed, and why (in the page's language)."""
    if generation.seed == state.seed:
        return ""
    return " " + _("Seed {seed}, not your {yours}: the first from yours whose text reaches a round that keeps some "
                   "guesses and corrects one, with no rare draw on the way.").format(seed=generation.seed,
                                                                                    yours=state.seed)


async def generation_for(chapter: Chapter, settings: SamplingSettings) -> GenerationTrace | None:
    """The session's speculative generation (cached by the service), with p and q rows kept, at the
    seed `teaching_generation_steps` chooses from the student's. These
    pages show the draft model's q beside the target's p, so the draft model drafts γ tokens every
    round (the lecture's constant γ): the student's draft variant (aligned, weak or random) on a page
    with the preset bar, else the pair's own."""
    ids = chapter.prompt_ids()
    if ids is None:
        return None
    state = chapter.state
    return await chapter.run_model(
        teaching_generation_steps, state.service, ids, settings=settings, gamma=state.gamma, first_seed=state.seed,
        variant=chapter.variant, message=N_("Running the draft and the target…"))


class RoundChapter(Chapter):
    """A chapter page showing one round of the session's generation at a time."""

    round_index = param.Integer(default=0, doc="Which round of the generation is shown.")

    @classmethod
    def warmup(cls, student):
        """The one generation chapters 5, 8 and 9 share, at a new student's defaults."""
        return [("chapters 5, 8 and 9's rounds", teaching_generation_steps, (student.service, student.prompt_ids()),
                 dict(settings=round_settings(student), gamma=student.gamma, first_seed=student.seed))]

    def __init__(self, state, **params):
        super().__init__(state, **params)
        self.generation: GenerationTrace | None = None
        self.refresh_settings()
        if served():
            pn.state.onload(self.load)

    # ---- for subclasses ------------------------------------------------------------------------------
    def restart(self) -> None:
        """Draw the current round from its beginning."""
        raise NotImplementedError

    def refresh_settings(self) -> SamplingSettings:
        """The sampling settings of the next generation, kept in `settings` so notes describe the rounds shown."""
        self.settings = round_settings(self.state)
        self.say_sampling()
        return self.settings

    def say_sampling(self) -> None:
        """The badge says what this page samples with (one temperature per page, the one it uses)."""
        self.state.page_sampling = {**self.state.page_sampling, self.number: self.settings.describe()}

    def first_round(self, generation: GenerationTrace) -> int:
        """The round a class sees first (`teaching_round`)."""
        return teaching_round(generation)

    def _show_loaded(self, generation: GenerationTrace) -> None:
        """Show a generation that has just arrived (after an await), at the round that teaches."""
        self.show_generation(generation, self.first_round(generation))

    # ---- shared behaviour ----------------------------------------------------------------------------
    @property
    def round(self) -> RoundTrace | None:
        if self.generation is None or not self.generation.rounds:
            return None
        return self.generation.rounds[self.round_index]

    async def load(self) -> None:
        generation = await generation_for(self, self.refresh_settings())
        if generation is not None:
            self._show_loaded(generation)

    async def ensure_generation(self) -> bool:
        """Load the generation if there is none yet; False when it could not be made (problem shown)."""
        if self.generation is None:
            await self.load()
        return self.generation is not None

    def show_generation(self, generation: GenerationTrace, round_index: int = 0) -> None:
        self.generation = generation
        self.round_index = min(round_index, len(generation.rounds) - 1)
        self.restart()

    async def next_round(self) -> None:
        if self.generation is None:
            await self.load()
            return
        self.round_index = (self.round_index + 1) % len(self.generation.rounds)
        self.restart()

    async def _on_next_round(self, event):
        await self.next_round()

    async def on_settings_changed(self, changed):
        """The student changed their prompt, settings or draft variant: show the new rounds."""
        if self.generation is not None:
            self.generation = None
            await self.load()
