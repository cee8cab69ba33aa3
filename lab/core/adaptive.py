"""The "auto" draft length: guess only where guessing is expected to beat a plain step, with a bound.

Speculative decoding is slower than plain decoding when the guesses are mostly wrong: every round
pays for its draft calls and for checking the extra positions, and gets back little. `AutoSchedule`
keeps, for each way of guessing (prompt lookup, the draft model), the recent per-guess acceptance
α = kept ÷ (kept + rejected) of the request's rounds, and before each round prices every length k
(0…γ) a source could guess:

    rate(k) = E[tokens] / cost = (1 − α^(k+1)) / (1 − α)  ÷  (v(k + 1) + (c + o)·k + opening)

in one-position target calls: v(n) a verify pass over n positions, c a draft-model call (0 for
lookup), o the engine's own work per guess (its q row and accept test: OVERHEAD), and the opening,
what a round that guesses pays once: the engine's own work in the round (ROUND_SECONDS) and the
draft model's catch-up on the tokens committed while it was silent (c·(v(m) − 1) for m
tokens). A plain step (k = 0) gives one token for one call: rate 1.

The worst case is bounded by construction, not by tuning:

- **A silent round is a plain step.** When no source pays, the round checks one position and calls
  no draft model; the round that next uses it catches its cache up, and is priced with that.
- **Pessimistic α.** A source drafts only when its rate at the *lower* confidence bound of α (Wilson,
  Z standard errors, on the decayed counts) beats a plain step by MARGIN: luck starts nothing.
- **A budget for losses.** `loss` is what the rounds that guessed cost beyond the tokens they
  brought (a plain step's worth each); guessing goes on only while it is within BUDGET of the priced
  time so far (`spent`), so where nothing pays the guesses lose at most that and one round. Rounds
  that pay make it negative. Lookup alone, once the text has `proven` it right more often than not,
  copies past the budget: an early miss does not hold back a copy that is right again.
- **Probes from the budget.** Lookup's α is learned every round from what it would have proposed,
  the draft model's only from rounds it drafts: silenced, it is probed with one guess when even a
  rejected one keeps the loss within the budget (an opening probe tries it on a new text); a probe
  kept whole is followed by one twice as long, a rejected one by one guess again.

With a confidence threshold ("auto:12+confidence:0.7") the draft model guesses while sure, up to γ,
and stops after its first unsure guess; α is learned from its sure guesses and `start` from how often
its first guess is sure (`confident_option`). A probe guesses as many as the budget covers; the
opening probe (one guess) is credited, never charged: the first token after a prompt is often missed.

Every decision depends on the prices, the committed text and the draft model's own guesses alone
(never on this run's timings or the target's draws): the output is exactly the target's, and a seeded
run repeats. The prices are the pair's cost profile (lab.speed.costs.CostProfile) once measured, its
verify passes read as one robust line (`verify_line`), else the constants below; a policy may price
the draft call itself ("auto:12+cost:0.3").

>>> s, text = AutoSchedule(gamma=8), [1, 2, 3, 4] * 10     # a text that repeats itself
>>> s.caps(text[:6])                 # nothing known: lookup's α at its prior's lower bound, 0.52
{'lookup': 3, 'model': 0}
>>> for n in range(6, 30, 4):        # rounds that commit 4 tokens each, lookup's guess right
...     _ = s.caps(text[:n]); s.update(0, 0, "none", text[:n + 4])
>>> s.caps(text[:30])                # α's lower bound near 1 now: a whole copy of γ (from 4 tokens earlier)
{'lookup': 8, 'model': 0}
>>> AutoSchedule(gamma=8, sources=("model",), draft_cost=1.5).caps(text[:6])    # a draft call dearer than a step
{'lookup': 0, 'model': 0}

`schedule_for(policy, profile, drafter)` is how the engine gets any policy's schedule: this one for
"auto", lab.core.drafting's GammaSchedule for "constant" and "heuristic".
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Callable

from lab.core.drafting import MAX_NGRAM, MIN_NGRAM, DraftPolicy, GammaSchedule, LookupDrafter

# The prices before the pair's cost profile is measured, in one-position target calls: the embedded
# pair on a 2-core CPU (packed layers, lab.pairs.packing), where a target pass over n positions costs about
# 1 + 0.06 (n − 1) and a call of the distilled draft about 0.16.
POSITION_COST = 0.06
DRAFT_COST = 0.16
OVERHEAD = 0.02        # the engine's work per guess beyond the model calls (a q row over the vocabulary, the accept test)
# the engine's own work in a round of lookup, of the draft model (its cache fed and cut back), in seconds
ROUND_SECONDS, UNIT = (0.0, 0.005), 0.05      # (bench/roundcost.py, dev prompts); UNIT: the embedded target's call
MARGIN = 0.03          # a round must promise 3% more tokens per unit of cost than a plain step
DECAY = 0.8            # the weight an older round keeps each round (about the last 5 rounds count)
PRIOR = (1.0, 1.0)     # (kept, rejected) pseudo-counts: α's mean starts at 0.5, its lower bound at 0.21
Z = 1.0                # α's lower bound: Z standard errors below the mean (Wilson)
LOOKUP_PRIOR, LOOKUP_Z = (2.0, 1.0), 0.5    # lookup's: α's mean starts at ⅔, its lower bound (Z 0.5) at 0.52
BUDGET = 0.02          # probes of a silenced draft model lose at most 2% of the decoding's priced time
SOURCES = {"model": ("model",), "lookup": ("lookup",), "hybrid": ("lookup", "model")}   # who a drafter asks


def expected_rate(alpha: float, k: int, draft_cost: float, verify: Callable[[int], float],
                  start: float = 0.0) -> float:
    """Expected tokens per unit of cost of a round of k guesses (k = 0: a plain step, 1.0); `start`
    is paid once by a round that guesses at all (its opening: AutoSchedule.opening)."""
    tokens = k + 1 if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
    return tokens / (verify(k + 1) + draft_cost * k + (start if k else 0.0))


def best_length(alpha: float, cap: int, draft_cost: float, position_cost: float = POSITION_COST,
                verify: Callable[[int], float] | None = None, start: float = 0.0) -> int:
    """The k in 0..cap with the most expected tokens per unit of cost (ties: the shorter); a verify
    pass over n positions costs verify(n) (default 1 + position_cost·(n − 1))."""
    verify = verify or (lambda n: 1 + position_cost * (n - 1))
    return max(range(cap + 1), key=lambda k: (expected_rate(alpha, k, draft_cost, verify, start) - 1e-12 * k))


def lower_bound(kept: float, rejected: float, z: float = Z) -> float:
    """Wilson's lower confidence bound on kept ÷ (kept + rejected), z standard errors down."""
    n = kept + rejected
    if n <= 0:
        return 0.0
    p, zz = kept / n, z * z
    centre = p + zz / (2 * n)
    spread = z * (p * (1 - p) / n + zz / (4 * n * n)) ** 0.5
    return max(0.0, (centre - spread) / (1 + zz / n))


@dataclass(frozen=True)
class Prices:
    """What the auto policy prices a round with, in one-position target calls."""
    draft_call: float                 # one draft-model call
    verify: tuple[float, ...]         # [n − 1]: a verify pass over n positions (verify[0] = 1)
    source: str                       # "profile" (the pair's measured cost profile) or "constants"
    rounds: tuple[float, float]       # the engine's own work in a round of lookup, of the draft model

    def verify_units(self, n: int) -> float:
        """A verify pass over n positions; past the measured ones, on the line through the last two."""
        if n <= len(self.verify):
            return self.verify[n - 1]
        last, step = self.verify[-1], (self.verify[-1] - self.verify[-2]) if len(self.verify) > 1 else POSITION_COST
        return last + max(0.0, step) * (n - len(self.verify))


def verify_line(profile) -> tuple[float, float]:
    """(v(2), the cost of each position past 2) read from the profile's verify passes as one robust
    line: checking two positions costs a step up from one (other kernels on the CPU: about 1.15 on
    the embedded pair), each further position little. The slope is the median of the slopes between
    every two passes of 2 or more positions, v(2) the median of what each pass says it is on that
    slope (Theil and Sen): one noisy timing moves no price; neither below a plain step's cost."""
    points = [(n, profile.verify_units(n)) for n in range(2, profile.max_positions + 1)]
    if not points:
        return 1 + POSITION_COST, POSITION_COST
    slopes = [(vb - va) / (b - a) for i, (a, va) in enumerate(points) for b, vb in points[i + 1:]]
    slope = max(0.0, median(slopes)) if slopes else POSITION_COST
    return max(1.0, median([v - slope * (n - 2) for n, v in points])), slope


def prices(profile=None, draft_cost: float | None = None, positions: int = 17) -> Prices:
    """The prices of the pair's cost profile (a lab.speed.costs.CostProfile, or None before it is measured:
    the constants); a verify pass over n ≥ 2 positions on the profile's `verify_line`; `draft_cost`
    (a policy's "+cost:X") prices the draft call instead."""
    (two, slope), n = (((1 + POSITION_COST, POSITION_COST), positions) if profile is None
                       else (verify_line(profile), profile.max_positions))
    verify = (1.0,) + tuple(two + slope * (k - 2) for k in range(2, n + 1))
    call = (DRAFT_COST if profile is None else profile.c) if draft_cost is None else draft_cost
    unit = UNIT if profile is None else profile.unit
    return Prices(call, verify, "constants" if profile is None else "profile", tuple(s / unit for s in ROUND_SECONDS))


class _Estimate:
    """α of one source: kept and rejected guesses, older rounds weighing less; its lower bound z
    standard errors down (None: the module's Z)."""

    def __init__(self, prior: tuple[float, float] = PRIOR, z: float | None = None):
        (self.kept, self.rejected), self.z = prior, z

    @property
    def alpha(self) -> float:
        """The mean: kept ÷ (kept + rejected)."""
        return self.kept / (self.kept + self.rejected)

    @property
    def lower(self) -> float:
        """What a round is priced with: the lower confidence bound of α."""
        return lower_bound(self.kept, self.rejected, Z if self.z is None else self.z)

    @property
    def proven(self) -> bool:
        """Whether this text has shown the source right more often than wrong: α's lower bound one
        standard error down at least ½ (its prior alone never is)."""
        return lower_bound(self.kept, self.rejected, 1.0) >= 0.5

    def add(self, kept: int, rejected: int) -> None:
        self.kept = DECAY * self.kept + kept
        self.rejected = DECAY * self.rejected + rejected


def prices_with_profile(policy: DraftPolicy | str | None) -> bool:
    """Whether `policy` (a DraftPolicy or its text) is priced with the pair's cost profile: "auto"."""
    policy = DraftPolicy.parse(policy) if isinstance(policy, str) or policy is None else policy
    return policy.schedule == "auto"


def schedule_for(policy: DraftPolicy, profile=None, drafter: str = "hybrid") -> GammaSchedule | AutoSchedule:
    """The per-decoding state of `policy` (its draft length round by round): an AutoSchedule for
    "auto", priced with the pair's cost profile `profile` (None: the constants) for the sources of
    `drafter` ("model", "lookup" or "hybrid"), else a GammaSchedule (constant or heuristic)."""
    if policy.schedule == "auto":
        return AutoSchedule(policy.gamma, policy.draft_cost, pricing=prices(profile, policy.draft_cost),
                            sources=SOURCES[drafter], threshold=policy.threshold)
    return GammaSchedule(policy)


class AutoSchedule:
    """Per-round draft lengths for each source, from the lower bound of its recent α, and probes of
    a silenced draft model paid from a budget (see the module's text)."""

    def __init__(self, gamma: int, draft_cost: float | None = None, max_ngram: int = MAX_NGRAM,
                 min_ngram: int = MIN_NGRAM, pricing: Prices | None = None,
                 sources: tuple[str, ...] = SOURCES["hybrid"], threshold: float = 0.0):
        self.prices = pricing or prices(None, draft_cost)
        self.threshold = threshold     # the draft model guesses while sure (the module's text)
        self.start = _Estimate()       # the model rounds whose first guess it was sure of
        self.gamma, self.draft_cost, self.sources = gamma, self.prices.draft_call, tuple(sources)
        self.max_ngram, self.min_ngram = max_ngram, min_ngram
        self.alpha = {"lookup": _Estimate(LOOKUP_PRIOR, LOOKUP_Z), "model": _Estimate()}
        self.spent = 0.0               # the priced time of the rounds so far (target-call units)
        self.loss = 0.0                # what the rounds that guessed cost beyond the tokens they brought
        self.tried = False             # whether the draft model has guessed on this text yet
        self.probe_length = 1          # guesses of the next probe: doubled after a probe kept whole
        self.choice = "plain"          # this round: "lookup", "model", "probe" or "plain"
        self._guess: list[int] = []    # what lookup would propose this round
        self._at = 0                   # where that guess starts in the text
        self._model_at: int | None = None   # the text's length when the draft model last caught up

    def opening(self, source: str, ids: list[int]) -> float:
        """What a round in which `source` guesses pays once: the engine's work, and the draft model's
        catch-up (its first call reads the m tokens committed since it drafted: c·(v(m) − 1))."""
        if source != "model":
            return self.prices.rounds[0]
        m = len(ids) - (len(ids) if self._model_at is None else self._model_at) + 1
        return self.prices.rounds[1] + (self.draft_cost * (self.prices.verify_units(m) - 1) if m > 1 else 0.0)

    def round_cost(self, source: str, k: int, ids: list[int]) -> float:
        """The priced time of a round in which `source` guesses k tokens (k = 0: a plain step, 1)."""
        if k == 0:
            return 1.0
        per_guess = OVERHEAD + (self.draft_cost if source == "model" else 0.0)
        return self.prices.verify_units(k + 1) + per_guess * k + self.opening(source, ids)

    def options(self, ids: list[int]) -> dict[str, tuple[int, float]]:
        """Each source's best length this round and its rate at α's lower bound (a plain step: 1.0)."""
        if self._model_at is None:
            self._model_at = len(ids)          # the draft model was prefilled with the prompt
        self._guess, self._at = LookupDrafter.find(ids, self.gamma, self.max_ngram, self.min_ngram), len(ids)
        verify, found = self.prices.verify_units, {}
        for source, cap, cost, start in (("lookup", len(self._guess), OVERHEAD, self.opening("lookup", ids)),
                                         ("model", self.gamma, self.draft_cost + OVERHEAD, self.opening("model", ids))):
            if source in self.sources and cap:
                alpha = self.alpha[source].lower
                k = best_length(alpha, cap, cost, verify=verify, start=start)
                found[source] = (k, expected_rate(alpha, k, cost, verify, start))
        if "model" in found and self.threshold:
            found["model"] = self.confident_option(ids)
        return found

    def confident_option(self, ids: list[int]) -> tuple[int, float]:
        """With a confidence threshold: (γ, the rate of a round at the lower bounds of `start` and
        α): a sure start as a round of the best length for α plus the unsure guess, else one guess."""
        cost, verify, opening = self.draft_cost + OVERHEAD, self.prices.verify_units, self.opening("model", ids)
        alpha, sure = self.alpha["model"].lower, self.start.lower
        k = best_length(alpha, self.gamma - 1, cost, verify=verify, start=opening) or 1
        sure_tokens = k + 1 if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
        tokens = sure * sure_tokens + (1 - sure)
        spent = sure * (verify(k + 2) + cost * (k + 1)) + (1 - sure) * (verify(2) + cost) + opening
        return self.gamma, tokens / spent

    def may_probe(self, ids: list[int]) -> bool:
        """Whether a probe of the draft model fits the budget even if it is rejected (the
        first, of a draft model never tried on this text, is the opening one: always), and only
        where the draft model's guesses could pay at all."""
        if "model" not in self.sources or not self.could_pay(ids):
            return False
        worst = self.round_cost("model", self.probe_length, ids) - 1
        return not self.tried or self.loss + worst <= BUDGET * (self.spent + worst + 1)

    def probe_cap(self, ids: list[int]) -> int:
        """A probe's guesses: `probe_length`, or with a confidence threshold the most the budget covers."""
        if not self.threshold:
            return self.probe_length
        def fits(k: int) -> bool:
            cost = self.round_cost("model", k, ids)
            return self.loss + cost - 1 <= BUDGET * (self.spent + cost)
        return max((k for k in range(self.probe_length, self.gamma + 1) if fits(k)), default=self.probe_length)

    def could_pay(self, ids: list[int]) -> bool:
        """Whether the draft model's guesses could beat a plain step at all, were every one kept."""
        verify, cost, opening = self.prices.verify_units, self.draft_cost + OVERHEAD, self.opening("model", ids)
        k = best_length(1.0, self.gamma, cost, verify=verify, start=opening)
        return expected_rate(1.0, k, cost, verify, opening) >= 1 + MARGIN

    def caps(self, ids: list[int]) -> dict[str, int]:
        """How many tokens each source may propose this round, given the committed text: the best
        source its best length when that beats a plain step by MARGIN at α's lower bound, else none
        (a plain step), or a probe of the draft model (one guess, more after kept ones) when the probe
        budget allows it."""
        found = self.options(ids)
        caps = {"lookup": 0, "model": 0}
        best = max(found, key=lambda source: found[source][1], default=None)
        if (best is not None and found[best][0] > 0 and found[best][1] >= 1 + MARGIN
                and (best == "lookup" and self.alpha["lookup"].proven or self.loss <= BUDGET * self.spent)):
            caps[best], self.choice = found[best][0], best
            if best == "model" and self.probe_cap(ids) > caps["model"] and self.may_probe(ids):
                caps["model"], self.choice = self.probe_cap(ids), "probe"     # the longer probe, paid for
        elif self.may_probe(ids):
            caps["model"], self.choice = self.probe_cap(ids), "probe"
        else:
            self.choice = "plain"
        return caps

    def update(self, drafted: int, accepted: int, source: str = "model", ids: list[int] | None = None,
               sure: int | None = None) -> None:
        """Learn from the round just committed (`ids`: the text after it; `sure`: with a confidence
        threshold, how many of the draft model's guesses came before the first it was unsure of)."""
        before = ids[:self._at] if ids is not None and drafted else []     # the text the round started from
        cost = self.round_cost(source, drafted, before)
        self.spent += cost
        if drafted:
            lost = cost - (accepted + 1)      # (a confident opening probe: credited, never charged)
            self.loss += min(lost, 0.0) if self.threshold and self.choice == "probe" and not self.tried else lost
        if source == "model" and drafted:
            if sure is None:
                self.alpha["model"].add(accepted, int(accepted < drafted))
            else:       # a confidence threshold: whether its first guess was sure, α of its sure guesses
                self.start.add(int(sure > 0), int(sure == 0))
                if sure:
                    self.alpha["model"].add(min(accepted, sure), int(accepted < sure))
            if self.choice == "probe":
                self.probe_length = min(self.gamma, 2 * drafted) if accepted == drafted else 1
            if ids is not None:     # its cache: the text but the last token (and the last guess, all kept)
                self._model_at = len(ids) - (accepted == drafted)
            self.tried = True
        if self._guess and ids is not None:
            # Lookup's guess, proposed or not, against the text the round committed.
            known = ids[self._at:self._at + len(self._guess)]
            kept = next((i for i, (x, y) in enumerate(zip(self._guess, known)) if x != y), len(known))
            self.alpha["lookup"].add(kept, int(kept < len(known)))
        self._guess = []
