"""One request, one measurement: the numbers every live page shows for the same request.

A request is (pair's draft, drafter, draft-length policy, γ, prompt, sampling settings, seed, new
tokens). Its `Outcome` decodes it plainly and speculatively (ModelService's cached generations) and
prices both with the pair's one cost profile (lab.costs, lab.timeline.schedule), so chapters 4, 10,
11, 12 and 13 and the tour show the same α, target calls, tokens per call and speed-up for it:

    α                 kept guesses ÷ guesses
    tokens per call   new tokens ÷ target calls
    c                 a guess's mean cost in one-position target calls (a copied guess: about 0)
    speed-up          plain decoding's decode time ÷ drafting's, every call priced by the profile

    request = Request(tuple(ids), drafter="model", gamma=4)
    outcome = Outcome.of(request, plain_trace, spec_trace, profile)
    outcome.speedup, outcome.verdict(), outcome.projection()
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from lab import analytic
from lab.costs import CostProfile
from lab.sampling import GREEDY, SamplingSettings
from lab.timeline import REQUEST_TOKENS, Schedule, schedule
from lab.trace import GenerationTrace

LEVEL = 0.01                 # speed-ups within 1% of 1× are "level", not faster or slower
# The lecture-scale pair of the projection: a draft call 5% of a target call and a verify pass that
# costs one target call whatever γ, as with a 1B draft for an 8B target on a GPU.
PROJECTED_C = 0.05
WHO = {"model": "the draft model", "lookup": "copying from the text (prompt lookup)",
       "hybrid": "copying from the text where it repeats, the draft model otherwise"}
CONTROL = {"model": "draft model", "lookup": "copy from the text", "hybrid": "both"}   # the switch's words
SCHEDULE_WORDS = {"constant": "γ = {g} guesses a round", "heuristic": "γ adapting from {g} (+2 after a round "
                  "that kept every guess, −1 after a miss)", "auto": "as many guesses (up to {g}) as their recent "
                  "hit rate pays for"}


@dataclass(frozen=True)
class Request:
    """What a page asks the pair to write, and how it drafts."""
    prompt_ids: tuple[int, ...]
    drafter: str = "model"                # who guesses: "model" | "lookup" | "hybrid"
    policy: str = "constant"              # how many: lab.drafting.DraftPolicy text; `gamma` replaces its γ
    gamma: int = 4
    settings: SamplingSettings = GREEDY
    seed: int = 0
    max_new_tokens: int = REQUEST_TOKENS
    draft: str = "aligned"                # the student's draft model (lab.variants)

    def generation(self) -> dict:
        """The keyword arguments of ModelService.generation_steps for the speculative run."""
        return dict(mode="speculative", settings=self.settings, gamma=self.gamma, seed=self.seed,
                    max_new_tokens=self.max_new_tokens, drafter=self.drafter, policy=self.policy, draft=self.draft)

    def plain(self) -> dict:
        """The same for the target decoding alone (one call per token)."""
        return dict(mode="plain", settings=self.settings, seed=self.seed, max_new_tokens=self.max_new_tokens)

    def describe(self) -> str:
        """Who guesses and how many, in words: "the draft model, γ = 4 guesses a round"."""
        return f"{WHO[self.drafter]}, {policy_words(self.policy, self.gamma)}"


def policy_words(policy: str, gamma: int) -> str:
    """A draft-length policy text ("constant", "heuristic+confidence:0.4", …) in words."""
    parts = policy.split("+")
    words = SCHEDULE_WORDS.get(parts[0].split(":")[0], parts[0]).format(g=gamma)
    for extra in parts[1:]:
        name, _, value = extra.partition(":")
        if name == "confidence":
            words += f", stopping after a guess the draft gives under {float(value or 0.4):.0%}"
    return words


@dataclass(frozen=True)
class Outcome:
    """A request decoded both ways and priced by the pair's cost profile."""
    request: Request
    plain: GenerationTrace
    spec: GenerationTrace
    profile: CostProfile
    timed: Schedule = field(repr=False)

    @classmethod
    def of(cls, request: Request, plain: GenerationTrace, spec: GenerationTrace, profile: CostProfile) -> "Outcome":
        return cls(request, plain, spec, profile, schedule(plain, spec, profile))

    # --- the figures every page shows ---
    @property
    def alpha(self) -> float | None:
        return self.spec.alpha

    @property
    def target_calls(self) -> int:
        return self.spec.target_calls

    @property
    def plain_calls(self) -> int:
        return self.plain.target_calls

    @property
    def tokens_per_call(self) -> float:
        return self.spec.tokens_per_round

    @property
    def speedup(self) -> float:
        return self.timed.decode_speedup

    @property
    def c(self) -> float:
        """A guess's mean cost in one-position target calls (a model call c, a copy about 0)."""
        guesses = [end - start for _, start, end, kind in self.timed.blocks if kind == "draft"]
        return sum(guesses) / len(guesses) if guesses else 0.0

    @property
    def exact(self) -> bool | None:
        """The very same tokens as plain decoding (greedy); None when sampling."""
        return self.spec.new_ids == self.plain.new_ids if self.request.settings.greedy else None

    @property
    def sources(self) -> Counter:
        """Rounds by who guessed: "model", "lookup" or "none" (a round without guesses)."""
        return Counter(r.draft_source if r.drafts else "none" for r in self.spec.rounds)

    @property
    def mean_gamma(self) -> int:
        """The rounds' mean number of guesses, rounded (1 at least)."""
        return max(1, min(analytic.MAX_GAMMA, round(self.spec.drafted / max(1, self.spec.target_calls))))

    # --- what the figures mean ---
    def who(self) -> str:
        """Who guessed, with counts when more than one source did: "copied from the text in 9 rounds,
        the draft model in 3"."""
        n = self.sources
        parts = [f"copied from the text in {n['lookup']} round{'s' * (n['lookup'] != 1)}" if n["lookup"] else "",
                 f"the draft model in {n['model']} round{'s' * (n['model'] != 1)}" if n["model"] else "",
                 f"no guess in {n['none']} round{'s' * (n['none'] != 1)}" if n["none"] else ""]
        return ", ".join(p for p in parts if p) or "no rounds"

    def predicted(self) -> float:
        """The lecture's formula E / (1 + γc) at the measured α, the rounds' mean γ and this c."""
        return float(analytic.speedup(self.alpha or 0.0, self.mean_gamma, self.c))

    def break_even(self) -> float:
        """The α at which this request's drafting would break even on this machine: E equal to
        γc + v(γ + 1) with the profile's verify cost; nan when no α does."""
        alphas = np.linspace(0, 1, 1001)
        above = np.nonzero(self.profile.speedup(alphas, self.mean_gamma, self.c) >= 1)[0]
        return float(alphas[above[0]]) if above.size else float("nan")

    def projection(self) -> float:
        """The analytic speed-up of the measured α on a lecture-scale pair: a draft call PROJECTED_C
        of a target call (a copied guess still free) and a verify pass costing one call."""
        n = self.sources
        model_share = n["model"] / max(1, n["model"] + n["lookup"])
        return float(analytic.speedup(self.alpha or 0.0, self.mean_gamma, PROJECTED_C * model_share))

    def verdict(self) -> str:
        """One sentence: faster, level or slower than plain decoding here, and why, in the lab's terms."""
        s, k = self.speedup, min(self.mean_gamma + 1, self.profile.max_positions)
        v = self.profile.verify_units(k)
        copied = self.sources["lookup"]
        if abs(s - 1) < LEVEL:
            return f"Level with plain decoding here ({s:.2f}×): the guesses kept just pay for the drafting."
        if s > 1:
            why = (f"{copied} of {self.target_calls} rounds copied their guesses from the text, which costs "
                   f"no model call" if copied * 2 >= self.target_calls else
                   f"α = {self.alpha:.2f} is above the break-even α = {self.break_even():.2f} for c = {self.c:.2f}")
            return (f"Faster here ({s:.2f}×): each target call gave {self.tokens_per_call:.2f} tokens instead of 1, "
                    f"because {why}.")
        be = self.break_even()
        below = ("no α breaks even at this cost" if np.isnan(be) else
                 f"α = {self.alpha or 0:.2f} is below the break-even α = {be:.2f}")
        return (f"Slower here ({s:.2f}×): {below} for c = {self.c:.2f} and γ = {self.mean_gamma}, and a verify "
                f"pass over {k} positions costs {v:.2f} target calls on this machine, not 1.")

    def gap(self) -> str:
        """Why the lecture's formula predicts another speed-up than the one measured ("" when they agree)."""
        predicted, k = self.predicted(), min(self.mean_gamma + 1, self.profile.max_positions)
        if abs(predicted - self.speedup) < 0.05:
            return ""
        return (f"The formula predicts {predicted:.2f}× because it counts a verify pass over γ + 1 = {k} "
                f"positions as one target call and treats every guess as kept with the same α; here a pass costs "
                f"{self.profile.verify_units(k):.2f} calls and the rounds are what they were.")

    def projection_sentence(self) -> str:
        """The projection, labelled with its assumptions."""
        return (f"Projection, not a measurement: with the same α = {self.alpha or 0:.2f} on a pair whose draft "
                f"call costs {PROJECTED_C:g} of a target call and whose verify pass costs one call (a 1B draft for "
                f"an 8B target on a GPU), the formula gives {self.projection():.2f}×.")
