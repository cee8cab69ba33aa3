"""One request, one measurement: the numbers every live page shows for the same request.

A request (lab.core.request.Request: draft variant, drafter, draft length policy, γ, prompt, sampling
settings, seed, new tokens) is what a page asks for. Its `Outcome` decodes it plainly and
speculatively (ModelService's cached generations) and prices both with the pair's one cost profile (lab.speed.costs, lab.speed.timeline.schedule), so chapters
4, 10, 11, 12 and 13 and the tour show the same α, target calls, tokens per call and speed-up for it:

    α                 the per-guess acceptance rate: kept ÷ (kept + rejected) guesses, the dropped
                      ones not counted (lab.core.trace.acceptance_rate), as the lecture's E assumes
    share kept        kept ÷ all drafted guesses, dropped ones included (`kept_share`; not α)
    tokens per call   new tokens ÷ target calls
    c                 a guess's mean cost in one-position target calls (a copied guess: about 0)
    speed-up          plain decoding's decode time ÷ drafting's, every call priced by the profile

    request = Request(ids, drafter="model", policy="constant", gamma=4)     # lab.core.request
    outcome = Outcome.of(request, plain_trace, spec_trace, profile)
    outcome.speedup, outcome.verdict_word(), outcome.projection()     # in words: uikit.verdicts
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from lab.core import analytic
from lab.speed.costs import CostProfile
from lab.core.sampling import GREEDY, SamplingSettings
from lab.core.request import Request
from lab.speed.timeline import Schedule, schedule
from lab.speed.verdicts import OutcomeVerdict
from lab.core.trace import GenerationTrace

def measured_break_even(profile: CostProfile, gamma: int, c: float) -> float:
    """The least α (to 0.001) at which E / (γc + v(γ + 1)), with `profile`'s verify cost, reaches 1;
    nan when no α does. Chapter 10's read-out and every verdict name this one break-even."""
    alphas = np.linspace(0, 1, 1001)
    above = np.nonzero(profile.speedup(alphas, gamma, c) >= 1)[0]
    return float(alphas[above[0]]) if above.size else float("nan")


@dataclass(frozen=True)
class Outcome(OutcomeVerdict):
    """A request decoded both ways and priced by the pair's cost profile: its figures here, what they
    mean in lab.speed.verdicts, in words in uikit.verdicts."""
    request: Request
    plain: GenerationTrace
    spec: GenerationTrace
    profile: CostProfile
    timed: Schedule = field(repr=False)
    earlier_speedup: float | None = None   # this request priced by the profile this one replaced
    earlier_verdict: str | None = None     # and its verdict word then ("faster", "level", "slower")

    @classmethod
    def of(cls, request: Request, plain: GenerationTrace, spec: GenerationTrace, profile: CostProfile,
           earlier: "Outcome | None" = None) -> "Outcome":
        """Price both generations by `profile`; `earlier`: the same request priced by the profile
        this one replaced (the machine re-timed), whose figure the page then names."""
        before = (earlier.speedup, earlier.verdict_word()) if earlier is not None else (None, None)
        return cls(request, plain, spec, profile, schedule(plain, spec, profile), *before)

    @property
    def alpha(self) -> float | None:
        return self.spec.alpha

    @property
    def kept_share(self) -> float | None:
        """Kept ÷ all drafted guesses ("share of guesses kept"), the dropped ones counted: not α."""
        return self.spec.kept_share

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
        return Counter(r.draft_source if r.guesses else "none" for r in self.spec.rounds)

    @property
    def mean_gamma(self) -> int:
        """γ of the request's rounds: the constant γ, or else the mean guesses of the rounds that
        guessed, rounded (1 at least)."""
        policy = self.request.policy
        schedule = getattr(policy, "schedule", None) or str(policy).split("+")[0].split(":")[0]
        if schedule == "constant" and self.request.gamma is not None:
            return self.request.gamma
        guessed = [len(r.guesses) for r in self.spec.rounds if r.guesses]
        return max(1, min(analytic.MAX_GAMMA, round(sum(guessed) / max(1, len(guessed)))))

    @property
    def round_cost(self) -> float:
        """A round's mean time in one-position target calls: its guesses and its verify pass."""
        return self.timed.decode_time("draft + verify") / max(1, self.target_calls)

    @property
    def verify_cost(self) -> float:
        """A verify pass's mean cost in one-position target calls."""
        passes = [e - s for lane, s, e, kind in self.timed.blocks if lane == "draft + verify" and kind == "target"]
        return sum(passes) / max(1, len(passes))

    def predicted(self) -> float:
        """The lecture's formula E / (1 + γc) at the measured α and c as pages print them (two
        decimals, where chapter 10 sets its sliders) and the request's γ."""
        return float(analytic.speedup(round(self.alpha or 0.0, 2), self.mean_gamma, round(self.c, 2)))

    def break_even(self) -> float:
        """The α at which this request's drafting would break even on this machine: E equal to
        γc + v(γ + 1) with the profile's verify cost, at c as pages print it (two decimals, where
        chapter 10 sets its slider, so its read-out gives the same α); nan when no α does."""
        return measured_break_even(self.profile, self.mean_gamma, round(self.c, 2))
