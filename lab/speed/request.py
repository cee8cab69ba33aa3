"""One request, one measurement: the numbers every live page shows for the same request.

A request is (pair's draft, drafter, draft-length policy, γ, prompt, sampling settings, seed, new
tokens). Its `Outcome` decodes it plainly and speculatively (ModelService's cached generations) and
prices both with the pair's one cost profile (lab.speed.costs, lab.speed.timeline.schedule), so chapters
4, 10, 11, 12 and 13 and the tour show the same α, target calls, tokens per call and speed-up for it:

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

from lab.core import analytic
from lab.speed.costs import CostProfile
from lab.core.sampling import GREEDY, SamplingSettings
from lab.speed.timeline import REQUEST_TOKENS, Schedule, schedule
from lab.core.trace import GenerationTrace

LEVEL = 0.01                 # speed-ups within 1% of 1× (or the profile's noise, if more) are "level"
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
    policy: str = "constant"              # how many: lab.core.drafting.DraftPolicy text; `gamma` replaces its γ
    gamma: int = 4
    settings: SamplingSettings = GREEDY
    seed: int = 0
    max_new_tokens: int = REQUEST_TOKENS
    draft: str = "aligned"                # the student's draft model (lab.pairs.variants)

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


def measured_break_even(profile: CostProfile, gamma: int, c: float) -> float:
    """The least α (to 0.001) at which E / (γc + v(γ + 1)), with `profile`'s verify cost, reaches 1;
    nan when no α does. Chapter 10's read-out and every verdict name this one break-even."""
    alphas = np.linspace(0, 1, 1001)
    above = np.nonzero(profile.speedup(alphas, gamma, c) >= 1)[0]
    return float(alphas[above[0]]) if above.size else float("nan")


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
    earlier_speedup: float | None = None   # this request priced by the profile this one replaced
    earlier_verdict: str | None = None     # and its verdict word then ("faster", "level", "slower")

    @classmethod
    def of(cls, request: Request, plain: GenerationTrace, spec: GenerationTrace, profile: CostProfile,
           earlier: "Outcome | None" = None) -> "Outcome":
        """Price both generations by `profile`; `earlier`: the same request priced by the profile
        this one replaced (the machine re-timed), whose figure the page then names."""
        before = (earlier.speedup, earlier.verdict_word()) if earlier is not None else (None, None)
        return cls(request, plain, spec, profile, schedule(plain, spec, profile), *before)

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
        """γ of the request's rounds: the constant γ, or else the mean guesses of the rounds that
        guessed, rounded (1 at least)."""
        if self.request.policy.split("+")[0].split(":")[0] == "constant":
            return self.request.gamma
        guessed = [len(r.drafts) for r in self.spec.rounds if r.drafts]
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
        """The lecture's formula E / (1 + γc) at the measured α and c as pages print them (two
        decimals, where chapter 10 sets its sliders) and the request's γ."""
        return float(analytic.speedup(round(self.alpha or 0.0, 2), self.mean_gamma, round(self.c, 2)))

    def break_even(self) -> float:
        """The α at which this request's drafting would break even on this machine: E equal to
        γc + v(γ + 1) with the profile's verify cost, at c as pages print it (two decimals, where
        chapter 10 sets its slider, so its read-out gives the same α); nan when no α does."""
        return measured_break_even(self.profile, self.mean_gamma, round(self.c, 2))

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
        guesses = sum(len(r.drafts) for r in self.spec.rounds if r.draft_source == "model")
        return self.tokens_per_call / (1 + PROJECTED_C * guesses / max(1, self.target_calls))

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
                why = (f"guesses were kept in runs (whole rounds kept, or none), so a round gave more than "
                       f"α = {a:.2f} alone predicts")
            else:
                why = f"α = {a:.2f} is above the break-even α = {be:.2f} for c = {self.c:.2f} at γ = {self.mean_gamma}"
                why += " (with this machine's verify cost)"
            return f"Faster here ({s:.2f}×): {head}; {why}."
        k = min(self.mean_gamma + 1, self.profile.max_positions)
        v = self.profile.verify_units(k)
        why = ("no α breaks even at this cost" if np.isnan(be) else
               f"α = {a:.2f} is below the break-even α = {be:.2f} for c = {self.c:.2f} at γ = {self.mean_gamma} "
               "(with this machine's verify cost)" if a < be else f"the guesses kept came too unevenly to pay, though α = {a:.2f} is above the "
               f"break-even α = {be:.2f}")
        verify = f", and a verify pass over {k} positions costs {v:.2f} target calls on this machine, not 1" \
            if v > 1.05 else ""
        return f"Slower here ({s:.2f}×): {head}; {why}{verify}."

    def _formula_round(self) -> tuple[float, float]:
        """(E, 1 + γc): the formula's tokens and cost of a round at the request's α, γ and c as printed."""
        g, a = self.mean_gamma, round(self.alpha or 0.0, 2)
        return float(analytic.expected_tokens(a, g)), float(analytic.round_cost(g, round(self.c, 2)))

    def gap_reasons(self) -> list[str]:
        """Why the measured rounds differ from the formula's: their tokens, their cost (none: they agree)."""
        e, cost = self._formula_round()
        reasons = []
        if self.tokens_per_call > e * 1.05:
            reasons.append("guesses are kept in runs, not independently with one α as the formula assumes")
        elif self.tokens_per_call < e * 0.95:
            reasons.append("the rounds kept fewer tokens than independent guesses with this α would")
        if self.round_cost > cost * 1.05:
            reasons.append(f"a verify pass costs {self.verify_cost:.2f} target calls here, where the formula counts 1")
        elif self.round_cost < cost * 0.95:
            reasons.append("rounds guessed fewer than γ (the text's end, or a source with nothing to copy)")
        return reasons

    def gap(self) -> str:
        """Why the lecture's formula predicts another speed-up than the one measured ("" when they agree)."""
        predicted = self.predicted()
        if abs(predicted - self.speedup) < 0.05:
            return ""
        (e, cost), reasons = self._formula_round(), self.gap_reasons()
        return (f"The formula predicts {predicted:.2f}× from E = {e:.2f} tokens for a round of 1 + γc = {cost:.2f}; "
                f"measured, a round gave {self.tokens_per_call:.2f} tokens for {self.round_cost:.2f}"
                + (": " + " and ".join(reasons) if reasons else "") + ".")

    def projection_sentence(self) -> str:
        """The projection, labelled with its assumptions."""
        return (f"Projection, not a measurement: the same rounds ({self.tokens_per_call:.2f} tokens per target "
                f"call) on a pair whose draft call costs {PROJECTED_C:g} of a target call and whose verify pass "
                f"costs one call (a 1B draft for an 8B target on a GPU) would run {self.projection():.2f}×.")
