"""What a request's figures mean, as figures: the verdict word (faster, level or slower than plain
decoding, beyond the profile's timing noise), the lecture's formula at the request's α, γ and c, the
terms of the gap between the two (lab.speed.gap) and the projection to a lecture-scale pair. Mixed
into lab.speed.request.Outcome, whose figures (speedup, alpha, c, the profile, …) they read; the
pages say them in words, in the page's language (uikit.verdicts).

    outcome.verdict_word()       # "faster", "level" or "slower"
    outcome.gap_terms()          # [] when the formula agrees with the measured speed-up
"""
from __future__ import annotations

from lab.core import analytic
from lab.speed import gap as gap_terms

LEVEL = 0.01                 # speed-ups within 1% of 1× (or the profile's noise, if more) are "level"
NOISY = 0.5                  # past this noise (±50%) a speed-up on the profile tells nothing either way
AGREE = 0.05                 # the formula agrees with a measured speed-up within this much
# The lecture-scale pair of the projection: a draft call 5% of a target call and a verify pass that
# costs one target call whatever γ, as with a 1B draft for an 8B target on a GPU.
PROJECTED_C = 0.05


class OutcomeVerdict:
    """The figures behind an Outcome's verdict (see the module's text)."""

    @property
    def noise(self) -> float:
        """The profile's measured noise: how far repeated timings of one call spread (its median run
        over its fastest, less 1), at least LEVEL. A speed-up between 1 / (1 + noise) and 1 + noise
        cannot be told from level on this profile."""
        return max(LEVEL, self.profile.spread)

    def verdict_word(self) -> str:
        """"faster", "level" (within the profile's noise of 1×, either way) or "slower"."""
        s = self.speedup
        if 1 / (1 + self.noise) < s < 1 + self.noise:
            return "level"
        return "faster" if s > 1 else "slower"

    def projection(self) -> float:
        """These rounds' speed-up on a lecture-scale pair: the same tokens per target call, each
        model guess costing PROJECTED_C (a copied one still free) and a verify pass one call."""
        guesses = sum(len(r.guesses) for r in self.spec.rounds if r.draft_source == "model")
        return self.tokens_per_call / (1 + PROJECTED_C * guesses / max(1, self.target_calls))

    def formula_round(self) -> tuple[float, float]:
        """(E, 1 + γc): the formula's tokens and cost of a round at the request's α, γ and c as printed."""
        g, a = self.mean_gamma, round(self.alpha or 0.0, 2)
        return float(analytic.expected_tokens(a, g)), float(analytic.round_cost(g, round(self.c, 2)))

    def agrees(self) -> bool:
        """The formula's speed-up at the request's α, γ, c is within AGREE of the measured one."""
        return abs(self.predicted() - self.speedup) < AGREE

    def gap_terms(self, verify_ref: float = 1.0) -> list[gap_terms.Term]:
        """Why the measured rounds differ from the formula's rounds of `verify_ref` + γc (the lecture's
        1 + γc; the break-even's v(γ + 1) + γc): the terms that account for it (lab.speed.gap), largest
        first."""
        return gap_terms.named(self, verify_ref)

    def break_even_verify(self) -> float:
        """The verify pass the break-even α already counts: this machine's over γ + 1 positions."""
        return self.profile.verify_units(min(self.mean_gamma + 1, self.profile.max_positions))
