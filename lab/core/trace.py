"""What a speculative (or plain) generation did, as plain dataclasses.

Data flows one way: models → engine → these traces → chapter views and tests. Everything a page
shows about a round — drafted tokens, p and q, the uniform draw, the verdict, the timing — is here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lab.core.sampling import SamplingSettings


def acceptance_rate(kept: int, rejected: int) -> float | None:
    """α, the per-guess acceptance rate, as the lecture's formula E = (1 − α^(γ+1)) / (1 − α) assumes it:
    the chance the target keeps a guess given that it kept the ones before it. Each guess the target
    judged was either kept or rejected, so α = kept ÷ (kept + rejected), where `rejected` counts the
    one rejected guess of each round that had a rejection. The guesses dropped after a rejection were
    never judged and count for nothing, and neither do rounds without guesses (plain steps). None when
    no guess was judged. (Kept ÷ all drafted guesses is lower: it counts the dropped ones as misses.)

    >>> acceptance_rate(15, 8)       # 15 kept in 17 rounds, 8 of which ended on a rejection
    0.6521739130434783
    """
    judged = kept + rejected
    return kept / judged if judged else None


@dataclass
class Candidate:
    """One entry of a model's top candidates at a position, for display."""
    token_id: int
    text: str
    prob: float


@dataclass
class Guess:
    """One guess of a round, at position i (0-based): x ~ q, then checked against p."""
    index: int
    token_id: int
    text: str
    q: float                      # q(x): the draft's probability of its own token
    p: float                      # p(x): the target's probability of the same token, same prefix
    accept_probability: float     # min(1, p / q)
    uniform: float | None         # the draw u ~ U[0, 1); None when never checked
    accepted: bool | None         # u < min(1, p/q); None when an earlier position was rejected
    draft_seconds: float          # wall time of the draft call that produced q here
    draft_top: list[Candidate] = field(default_factory=list)
    target_top: list[Candidate] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.p / self.q if self.q > 0 else float("inf")


@dataclass
class RoundTrace:
    """One round: γ draft calls, one target call, then the commit.

    A plain decoding step is a round with γ = 0 and `extra_kind == "target"`.
    """
    index: int
    prefix_ids: list[int]         # the committed text before this round (prompt included)
    gamma: int                    # guesses proposed this round (may shrink near max_new_tokens)
    guesses: list[Guess]
    n_accepted: int               # guesses kept before the first rejection
    extra_token_id: int           # the correction, the bonus, or the plain step's token
    extra_text: str
    extra_kind: str               # "correction" | "bonus" | "target"
    extra_top: list[Candidate]    # where the extra token was drawn from (residual or p), top-k
    target_seconds: float         # the one target call of this round
    emitted_ids: list[int]        # what this round commits, cut at EOS / max_new_tokens
    emitted_texts: list[str]
    stop_reason: str | None = None   # "eos" | "max_new_tokens" | None
    draft_source: str = "model"      # who drafted: "model" | "lookup" | "none" (no guesses this round)
    p_rows: np.ndarray | None = None        # (γ + 1, V) target p after settings, if kept
    q_rows: np.ndarray | None = None        # (γ, V) draft q after settings, if kept

    @property
    def draft_seconds(self) -> float:
        return sum(d.draft_seconds for d in self.guesses)

    @property
    def draft_calls(self) -> int:
        return len(self.guesses)

    @property
    def rejected_index(self) -> int | None:
        """Position of the first rejected guess, or None when all were kept."""
        return self.n_accepted if self.n_accepted < self.gamma else None

    @property
    def rejected(self) -> int:
        """1 when the target rejected one of this round's guesses, else 0 (only the first rejection
        counts: the guesses after it are dropped unchecked)."""
        return int(self.rejected_index is not None)

    @property
    def checked(self) -> int:
        """Guesses the target judged this round: the kept ones and the one it rejected, if any."""
        return self.n_accepted + self.rejected

    @property
    def seconds(self) -> float:
        return self.draft_seconds + self.target_seconds


@dataclass
class GenerationTrace:
    """A whole generation: prefill, then rounds until max_new_tokens or EOS."""
    mode: str                     # "speculative" | "plain" | "plain-draft" (the draft writing alone)
    prompt_ids: list[int]
    settings: SamplingSettings
    gamma: int
    seed: int
    max_new_tokens: int
    prefill_seconds: float        # target (and draft, if any) over the prompt
    rounds: list[RoundTrace] = field(default_factory=list)
    text: str = ""                # decoded new tokens
    drafter: str = ""             # "model" | "lookup" | "hybrid" ("" for plain decoding)
    policy: str = ""              # the draft length policy, described

    @property
    def new_ids(self) -> list[int]:
        return [t for r in self.rounds for t in r.emitted_ids]

    @property
    def target_calls(self) -> int:
        return len(self.rounds)

    @property
    def draft_calls(self) -> int:
        return sum(r.draft_calls for r in self.rounds)

    @property
    def drafted(self) -> int:
        return sum(r.gamma for r in self.rounds)

    @property
    def accepted(self) -> int:
        return sum(r.n_accepted for r in self.rounds)

    @property
    def rejected(self) -> int:
        """Rounds whose guesses met a rejection (one rejected guess each; those after it dropped)."""
        return sum(r.rejected for r in self.rounds)

    @property
    def alpha(self) -> float | None:
        """α, the per-guess acceptance rate: kept ÷ (kept + rejected) — see `acceptance_rate`."""
        return acceptance_rate(self.accepted, self.rejected)

    @property
    def kept_share(self) -> float | None:
        """Kept ÷ all drafted guesses, the dropped ones included ("share of guesses kept"): not α,
        which leaves out the guesses never checked (None when nothing was drafted)."""
        return self.accepted / self.drafted if self.drafted else None

    @property
    def tokens_per_round(self) -> float:
        return len(self.new_ids) / max(1, len(self.rounds))

    @property
    def decode_seconds(self) -> float:
        return sum(r.seconds for r in self.rounds)

    @property
    def mean_target_seconds(self) -> float:
        return sum(r.target_seconds for r in self.rounds) / max(1, len(self.rounds))

    @property
    def mean_draft_seconds(self) -> float | None:
        calls = self.draft_calls
        return sum(r.draft_seconds for r in self.rounds) / calls if calls else None
