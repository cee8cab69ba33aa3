"""What a request's figures mean, in the lab's words: the verdict (faster, level or slower than plain
decoding, and why), why the lecture's formula predicts another speed-up, and the projection to a
lecture-scale pair. Mixed into lab.speed.request.Outcome, whose figures (speedup, alpha, c, the
profile, …) these sentences read.

    outcome.verdict()        # "Faster here (1.42×): a round gave 2.10 tokens and cost …"
    outcome.gap()            # "" when the formula agrees with the measured speed-up
"""
from __future__ import annotations

import numpy as np

from lab.core import analytic
from lab.speed import gap as gap_terms

LEVEL = 0.01                 # speed-ups within 1% of 1× (or the profile's noise, if more) are "level"
# The lecture-scale pair of the projection: a draft call 5% of a target call and a verify pass that
# costs one target call whatever γ, as with a 1B draft for an 8B target on a GPU.
PROJECTED_C = 0.05


class OutcomeWords:
    """The sentences about an Outcome's figures (see the module's text)."""

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

    def retimed(self) -> str:
        """One line when the machine was re-timed since this request was last priced and that changed
        its verdict, as "This machine re-timed: now 0.86× (slower), was 1.16× (faster)."; else ""."""
        if self.earlier_speedup is None or self.earlier_verdict == self.verdict_word():
            return ""
        return (f"This machine re-timed: now {self.speedup:.2f}× ({self.verdict_word()}), was "
                f"{self.earlier_speedup:.2f}× ({self.earlier_verdict}).")

    def projection(self) -> float:
        """These rounds' speed-up on a lecture-scale pair: the same tokens per target call, each
        model guess costing PROJECTED_C (a copied one still free) and a verify pass one call."""
        guesses = sum(len(r.guesses) for r in self.spec.rounds if r.draft_source == "model")
        return self.tokens_per_call / (1 + PROJECTED_C * guesses / max(1, self.target_calls))

    def who(self) -> str:
        """Who guessed, with counts when more than one source did: "copied from the text in 9 rounds,
        the draft model in 3"."""
        n = self.sources
        parts = [f"copied from the text in {n['lookup']} round{'s' * (n['lookup'] != 1)}" if n["lookup"] else "",
                 f"the draft model in {n['model']} round{'s' * (n['model'] != 1)}" if n["model"] else "",
                 f"no guess in {n['none']} round{'s' * (n['none'] != 1)}" if n["none"] else ""]
        return ", ".join(p for p in parts if p) or "no rounds"

    def _spent(self) -> str:
        """What a round spent: "3.6 draft calls at c = 0.14 and a verify pass of 1.20"."""
        guesses = self.spec.drafted / max(1, self.target_calls)
        drafting = (f"{guesses:.1f} guesses at {self.c:.2f} each" if guesses else "no guesses")
        return f"{drafting} and a verify pass of {self.verify_cost:.2f}"

    def verdict(self) -> str:
        """One sentence: faster, level or slower than plain decoding here, and why, in the lab's terms.
        The speed-up is tokens per round ÷ a round's cost, both measured, so the reasons given are
        those two figures and what set them."""
        s, a, be = self.speedup, self.alpha or 0.0, self.break_even()
        head = (f"a round gave {self.tokens_per_call:.2f} tokens and cost {self.round_cost:.2f} target calls' "
                f"time ({self._spent()})")
        word = self.verdict_word()
        if word == "level":
            noise = (f"within this machine's timing noise (±{100 * self.noise:.0f}%)" if self.noise > LEVEL
                     else "within 1%")
            return (f"Level with plain decoding here ({s:.2f}×, {noise}): {head}, so the guesses kept about "
                    "pay for themselves.")
        if word == "faster":
            if self.sources["lookup"] * 2 >= self.target_calls:
                why = f"{self.sources['lookup']} of {self.target_calls} rounds copied their guesses from the text, " \
                      "which costs no model call"
            elif np.isnan(be) or a < be:
                why = (f"though α = {a:.2f} is below the break-even α = {be:.2f}" if not np.isnan(be) else
                       "though by the formula no α breaks even at this cost") + ": " + self.against_break_even()
            else:
                why = f"α = {a:.2f} is above the break-even α = {be:.2f} for c = {self.c:.2f} at γ = {self.mean_gamma}"
                why += " (with this machine's verify cost)"
            return f"Faster here ({s:.2f}×): {head}; {why}."
        k = min(self.mean_gamma + 1, self.profile.max_positions)
        v = self.profile.verify_units(k)
        why = ("no α breaks even at this cost" if np.isnan(be) else
               f"α = {a:.2f} is below the break-even α = {be:.2f} for c = {self.c:.2f} at γ = {self.mean_gamma} "
               "(with this machine's verify cost)" if a < be else f"though α = {a:.2f} is above the break-even "
               f"α = {be:.2f}: " + self.against_break_even())
        verify = f", and a verify pass over {k} positions costs {v:.2f} target calls on this machine, not 1" \
            if v > 1.05 else ""
        return f"Slower here ({s:.2f}×): {head}; {why}{verify}."

    def _formula_round(self) -> tuple[float, float]:
        """(E, 1 + γc): the formula's tokens and cost of a round at the request's α, γ and c as printed."""
        g, a = self.mean_gamma, round(self.alpha or 0.0, 2)
        return float(analytic.expected_tokens(a, g)), float(analytic.round_cost(g, round(self.c, 2)))

    def gap_reasons(self) -> list[str]:
        """Why the measured rounds differ from the formula's 1 + γc rounds, derived from the terms
        that account for it (lab.speed.gap), each with its numbers, largest first."""
        return gap_terms.reasons(self)

    def against_break_even(self) -> str:
        """Why the measured rounds beat (or miss) the break-even α, which already counts this
        machine's verify pass over γ + 1 positions: the terms beyond it (lab.speed.gap)."""
        k = min(self.mean_gamma + 1, self.profile.max_positions)
        return "; ".join(gap_terms.reasons(self, verify_ref=self.profile.verify_units(k)))

    def gap(self) -> str:
        """Why the lecture's formula predicts another speed-up than the one measured ("" when they agree)."""
        predicted = self.predicted()
        if abs(predicted - self.speedup) < 0.05:
            return ""
        (e, cost), reasons = self._formula_round(), self.gap_reasons()
        return (f"The formula predicts {predicted:.2f}× from E = {e:.2f} tokens for a round of 1 + γc = {cost:.2f}; "
                f"measured, a round gave {self.tokens_per_call:.2f} tokens for {self.round_cost:.2f}"
                + (": " + "; ".join(reasons) if reasons else "") + ".")

    def formula_sentence(self) -> str:
        """The formula at the request's α, γ, c against the measured rounds: why they differ (`gap`),
        or that they agree, with the numbers either way."""
        e, cost = self._formula_round()
        return self.gap() or (f"The formula predicts {self.predicted():.2f}× from E = {e:.2f} tokens for a round "
                              f"of 1 + γc = {cost:.2f}; measured, a round gave {self.tokens_per_call:.2f} tokens "
                              f"for {self.round_cost:.2f}: {self.speedup:.2f}×, as predicted.")

    def projection_sentence(self) -> str:
        """The projection, labelled with its assumptions."""
        return (f"Projection, not a measurement: the same rounds ({self.tokens_per_call:.2f} tokens per target "
                f"call) on a pair whose draft call costs {PROJECTED_C:g} of a target call and whose verify pass "
                f"costs one call (a 1B draft for an 8B target on a GPU) would run {self.projection():.2f}×.")
