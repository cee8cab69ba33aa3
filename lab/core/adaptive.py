"""The "auto" draft length: draft only as many tokens as are expected to pay for themselves.

Speculative decoding is slower than plain decoding when the guesses are mostly wrong: every round
pays for its draft calls and for checking the extra positions, and gets back little. `AutoSchedule`
keeps, for each way of guessing (prompt lookup, the draft model), an estimate of α from the recent
rounds, and before each round lets that source propose the number of tokens k (0…γ) with the most
expected tokens per unit of cost:

    E[tokens] / cost = (1 − α^(k+1)) / (1 − α)  ÷  (v(k + 1) + c·k)

in one-position target calls: v(n) a verify pass over n positions and c a draft-model call (0 for
lookup). A round of k = 0 is one plain target call (cost 1), so a source drafts only where drafting
is expected to beat plain decoding. The prices are the pair's measured cost profile (lab.speed.costs:
`profile.verify_units(n)` and `profile.c`) once it is measured, so the policy stops drafting where
drafting loses on this machine, packed or dense; before that, the constants below. A policy may
price the draft call itself ("auto:12+cost:0.3"). Prompt lookup costs nothing to ask, so its α is
learned every round from what it would have proposed; the draft model's α only from rounds it
drafts, so a silenced draft model proposes one token every PROBE_EVERY rounds to find out whether
the text got easier.

Every decision depends on the prices and the committed text alone (never on this run's timings or
on this round's draws), so the output stays exactly the target's and a seeded run repeats exactly.

>>> s, text = AutoSchedule(gamma=8), [1, 2, 3, 4] * 10     # a text that repeats itself
>>> s.caps(text[:6])                 # α = 0.5 to start with: a few tokens from either source
{'lookup': 3, 'model': 1}
>>> for n in range(6, 30, 4):        # rounds that commit 4 tokens each, lookup's guess right
...     _ = s.caps(text[:n]); s.update(0, 0, "none", text[:n + 4])
>>> s.caps(text[:30])["lookup"]
8

`schedule_for(policy, profile)` is how the engine gets any policy's schedule: this one for "auto",
lab.core.drafting's GammaSchedule for "constant" and "heuristic".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lab.core.drafting import MAX_NGRAM, MIN_NGRAM, DraftPolicy, GammaSchedule, LookupDrafter

# The prices before the pair's cost profile is measured, in one-position target calls: the embedded
# pair on a 2-core CPU (packed layers, lab.pairs.packing), where a target pass over n positions costs about
# 1 + 0.06 (n − 1) and a call of the distilled draft about 0.16.
POSITION_COST = 0.06
DRAFT_COST = 0.16
DECAY = 0.8            # the weight an older round keeps each round (about the last 5 rounds count)
PRIOR = (1.0, 1.0)     # (kept, rejected) pseudo-counts: α starts at 0.5
PROBE_EVERY = 8        # rounds between one-token probes of a silenced draft model


def best_length(alpha: float, cap: int, draft_cost: float, position_cost: float = POSITION_COST,
                verify: Callable[[int], float] | None = None) -> int:
    """The k in 0..cap with the most expected tokens per unit of cost (ties: the shorter); a verify
    pass over n positions costs verify(n) (default 1 + position_cost·(n − 1))."""
    verify = verify or (lambda n: 1 + position_cost * (n - 1))

    def rate(k: int) -> float:
        tokens = k + 1 if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
        return tokens / (verify(k + 1) + draft_cost * k)
    return max(range(cap + 1), key=lambda k: (rate(k) - 1e-12 * k))


@dataclass(frozen=True)
class Prices:
    """What the auto policy prices a round with, in one-position target calls."""
    draft_call: float                 # one draft-model call
    verify: tuple[float, ...]         # [n − 1]: a verify pass over n positions (verify[0] = 1)
    source: str                       # "profile" (the pair's measured cost profile) or "constants"

    def verify_units(self, n: int) -> float:
        """A verify pass over n positions; past the measured ones, on the line through the last two."""
        if n <= len(self.verify):
            return self.verify[n - 1]
        last, step = self.verify[-1], (self.verify[-1] - self.verify[-2]) if len(self.verify) > 1 else POSITION_COST
        return last + max(0.0, step) * (n - len(self.verify))

    def describe(self) -> str:
        where = "this machine's measured cost profile" if self.source == "profile" else "fixed estimates"
        return f"a draft call {self.draft_call:.2f} and a check of 5 positions {self.verify_units(5):.2f} target calls ({where})"


def prices(profile=None, draft_cost: float | None = None, positions: int = 17) -> Prices:
    """The prices of the pair's cost profile (a lab.speed.costs.CostProfile, or None before it is measured:
    the constants); `draft_cost` (a policy's "+cost:X") prices the draft call instead."""
    if profile is None:
        return Prices(DRAFT_COST if draft_cost is None else draft_cost,
                      tuple(1 + POSITION_COST * (n - 1) for n in range(1, positions + 1)), "constants")
    verify = tuple(profile.verify_units(n) for n in range(1, profile.max_positions + 1))
    return Prices(profile.c if draft_cost is None else draft_cost, verify, "profile")


class _Estimate:
    """α of one source: kept and rejected guesses, older rounds weighing less."""

    def __init__(self):
        self.kept, self.rejected = PRIOR

    @property
    def alpha(self) -> float:
        return self.kept / (self.kept + self.rejected)

    def add(self, kept: int, rejected: int) -> None:
        self.kept = DECAY * self.kept + kept
        self.rejected = DECAY * self.rejected + rejected


def prices_with_profile(policy: DraftPolicy | str | None) -> bool:
    """Whether `policy` (a DraftPolicy or its text) is priced with the pair's cost profile: "auto"."""
    policy = DraftPolicy.parse(policy) if isinstance(policy, str) or policy is None else policy
    return policy.schedule == "auto"


def schedule_for(policy: DraftPolicy, profile=None) -> GammaSchedule | AutoSchedule:
    """The per-decoding state of `policy` (its draft length round by round): an AutoSchedule for
    "auto", priced with the pair's cost profile `profile` (None: the constants), else a
    GammaSchedule (constant or heuristic)."""
    if policy.schedule == "auto":
        return AutoSchedule(policy.gamma, policy.draft_cost, pricing=prices(profile, policy.draft_cost))
    return GammaSchedule(policy)


class AutoSchedule:
    """Per-round draft lengths for each source, from its recent α (see the module's text)."""

    def __init__(self, gamma: int, draft_cost: float | None = None, max_ngram: int = MAX_NGRAM,
                 min_ngram: int = MIN_NGRAM, pricing: Prices | None = None):
        self.prices = pricing or prices(None, draft_cost)
        self.gamma, self.draft_cost = gamma, self.prices.draft_call
        self.max_ngram, self.min_ngram = max_ngram, min_ngram
        self.alpha = {"lookup": _Estimate(), "model": _Estimate()}
        self.since_model = 0           # rounds since the draft model last drafted
        self._guess: list[int] = []    # what lookup would propose this round
        self._at = 0                   # where that guess starts in the text

    def caps(self, ids: list[int]) -> dict[str, int]:
        """How many tokens each source may propose this round, given the committed text."""
        self._guess, self._at = LookupDrafter.find(ids, self.gamma, self.max_ngram, self.min_ngram), len(ids)
        verify = self.prices.verify_units
        model = best_length(self.alpha["model"].alpha, self.gamma, self.draft_cost, verify=verify)
        if model == 0 and self.since_model >= PROBE_EVERY:
            model = 1
        return {"lookup": best_length(self.alpha["lookup"].alpha, self.gamma, 0.0, verify=verify), "model": model}

    def update(self, drafted: int, accepted: int, source: str = "model", ids: list[int] | None = None) -> None:
        """Learn from the round just committed (`ids`: the text after it)."""
        if source == "model" and drafted:
            self.alpha["model"].add(accepted, int(accepted < drafted))
            self.since_model = 0
        else:
            self.since_model += 1
        if self._guess and ids is not None:
            # Lookup's guess, proposed or not, against the text the round committed.
            known = ids[self._at:self._at + len(self._guess)]
            kept = next((i for i, (x, y) in enumerate(zip(self._guess, known)) if x != y), len(known))
            self.alpha["lookup"].add(kept, int(kept < len(known)))
        self._guess = []
