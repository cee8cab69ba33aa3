"""Drafters (who guesses the next tokens) and draft length policies (how many to guess).

The engine asks a drafter for up to γ tokens each round, each with the distribution q it was drawn
from, verifies them in one target call, and tells the drafter what was committed. Whatever the
drafter, the accept rule min(1, p(x)/q(x)) and the residual norm((p − q)+) keep the output exactly
the target's:

- `ModelDrafter` — the draft model samples x_i ~ q_i, one call per token (the lecture's draft).
- `LookupDrafter` — prompt lookup: the tokens that followed an earlier occurrence of the text's
  trailing n-gram (longest n first; the latest occurrence with γ tokens after it). q is one-hot on
  the proposed token, so a draft is kept with probability p(x) and a rejection samples p with x
  removed. Costs microseconds.
- `HybridDrafter` — lookup when the text repeats itself, the draft model otherwise.

A `DraftPolicy` chooses γ per round: constant (the lecture's), transformers' "heuristic" schedule
(+2 after a round that kept every draft, −1 otherwise), and an optional confidence stop (stop
drafting after a token whose draft probability is below a threshold, as transformers'
`assistant_confidence_threshold`). The number of drafts only decides how much is checked, never
what is accepted, so every policy is exact.

>>> LookupDrafter.find([5, 6, 7, 9, 5, 6], gamma=3)      # "5 6" occurred before: propose what followed
[7, 9, 5]
>>> LookupDrafter.find([1, 2, 3], gamma=3)               # nothing repeats
[]
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from lab.core.analytic import MAX_GAMMA
from lab.devices import exact_dtype
from lab.core.kv import CachedModel
from lab.core.sampling import SamplingSettings, probabilities, sample

DRAFTERS = ("model", "lookup", "hybrid")
SCHEDULES = ("constant", "heuristic", "auto")
LECTURE_POLICY = "constant"     # the lecture's round (chapters 4–9): the draft model guesses a fixed γ
MAX_NGRAM, MIN_NGRAM = 3, 1     # prompt lookup matches the text's last 3 tokens, else 2, else 1


def check_gamma(gamma, what: str = "γ (the draft length)") -> int:
    """`gamma` as an int, or ValueError in one sentence when it is not a whole number in 1..MAX_GAMMA."""
    if isinstance(gamma, bool) or not isinstance(gamma, (int, np.integer)) or not 1 <= gamma <= MAX_GAMMA:
        raise ValueError(f"{what} must be a whole number from 1 to {MAX_GAMMA}; got {gamma!r}.")
    return int(gamma)


@dataclass
class Guesses:
    """One round's guesses: tokens x_1..x_k, the q row each was drawn from, and its cost."""
    tokens: list[int] = field(default_factory=list)
    q_rows: list[torch.Tensor] = field(default_factory=list)     # (V,) each, after the settings
    seconds: list[float] = field(default_factory=list)           # time to propose each token
    source: str = "model"                                        # "model" | "lookup"
    sure: int | None = None      # with a confidence threshold: the model's guesses before its first unsure one


def one_hot(token: int, size: int, device="cpu") -> torch.Tensor:
    """q of a guess made without a model: all its probability on `token`, on `device` in the dtype
    probabilities are compared in there (lab.core.sampling)."""
    row = torch.zeros(size, dtype=exact_dtype(device), device=device)
    row[token] = 1.0
    return row


class ModelDrafter:
    """The draft model, with its own KV cache of the committed text minus its last token."""
    name = "model"

    def __init__(self, model):
        self.cache = CachedModel(model)

    def prefill(self, ids: list[int]) -> float:
        return self.cache.forward(ids[:-1])[1] if len(ids) > 1 else 0.0

    def propose(self, ids: list[int], gamma: int, settings: SamplingSettings, generator: torch.Generator,
                policy: "DraftPolicy | None" = None, caps: dict[str, int] | None = None) -> Guesses:
        """Up to γ draft calls (at most the policy's model_gamma, and caps["model"]), each sampling
        x_i ~ q_i given the text and x_1..x_{i-1}; with a confidence threshold, stop after a token
        the draft gave less than it (at temperature 1)."""
        policy = policy or DraftPolicy(min(gamma, MAX_GAMMA))
        threshold = policy.threshold
        guesses = Guesses(source="model", sure=0 if threshold > 0 else None)
        feed = ids[self.cache.length:]          # 1 token, or more after rounds drafted by lookup
        for _ in range(min(gamma, policy.model_gamma or gamma, (caps or {}).get("model", gamma))):
            logits, seconds = self.cache.forward(feed)                     # (len(feed), V)
            q = probabilities(logits[-1], settings)
            x = sample(q, generator)
            guesses.tokens.append(x); guesses.q_rows.append(q); guesses.seconds.append(seconds)
            feed = [x]
            if threshold > 0:
                if float(torch.softmax(logits[-1], -1)[x]) < threshold:
                    break
                guesses.sure += 1
        return guesses

    def commit(self, ids: list[int]) -> None:
        self.cache.rollback(len(ids) - 1)


class LookupDrafter:
    """Prompt lookup over the prompt and the text generated so far."""
    name = "lookup"

    def __init__(self, vocab_size: int, max_ngram: int = MAX_NGRAM, min_ngram: int = MIN_NGRAM,
                 device="cpu"):
        if not 1 <= min_ngram <= max_ngram <= 8:
            raise ValueError("Prompt lookup needs 1 ≤ min n-gram ≤ max n-gram ≤ 8.")
        self.vocab_size, self.max_ngram, self.min_ngram = vocab_size, max_ngram, min_ngram
        self.device = device                 # where the target's p rows are: q is compared with them

    @staticmethod
    def find(ids: list[int], gamma: int, max_ngram: int = MAX_NGRAM, min_ngram: int = MIN_NGRAM) -> list[int]:
        """Up to γ tokens that followed an earlier occurrence of the trailing n-gram (longest n first):
        the latest occurrence with γ tokens after it, else the one with the most. (The latest alone
        is often in the text just written, its copy cut short by the text's end: a list's previous
        item.)"""
        end = len(ids)
        for n in range(min(max_ngram, end - 1), min_ngram - 1, -1):
            tail, copy = ids[end - n:], None
            for start in range(end - n - 1, -1, -1):        # latest occurrence first
                if ids[start:start + n] == tail:
                    found = ids[start + n: start + n + gamma]
                    if copy is None or len(found) > len(copy):
                        copy = found
                    if len(copy) >= gamma:
                        break
            if copy is not None:
                return copy
        return []

    def prefill(self, ids: list[int]) -> float:
        return 0.0

    def propose(self, ids: list[int], gamma: int, settings: SamplingSettings, generator: torch.Generator,
                policy: "DraftPolicy | None" = None, caps: dict[str, int] | None = None) -> Guesses:
        start = time.perf_counter()
        # The copy found for the policy's γ, cut to this round's length (its cap, or what is left to write):
        # the copy an auto schedule priced and learns from (lab.core.adaptive), not a later occurrence
        # with only this round's few tokens after it.
        cap = min(gamma, (caps or {}).get("lookup", gamma))
        longest = max(gamma, policy.gamma if policy is not None else 0)
        tokens = self.find(ids, longest, self.max_ngram, self.min_ngram)[:cap] if cap > 0 else []
        share = (time.perf_counter() - start) / max(1, len(tokens))
        return Guesses(tokens, [one_hot(x, self.vocab_size, self.device) for x in tokens], [share] * len(tokens),
                     "lookup")

    def commit(self, ids: list[int]) -> None:
        pass


class HybridDrafter:
    """Lookup when the trailing n-gram occurred before, the draft model otherwise."""
    name = "hybrid"

    def __init__(self, lookup: LookupDrafter, model: ModelDrafter):
        self.lookup, self.model = lookup, model

    @property
    def cache(self) -> CachedModel:
        return self.model.cache

    def prefill(self, ids: list[int]) -> float:
        return self.model.prefill(ids)

    def propose(self, ids: list[int], gamma: int, settings: SamplingSettings, generator: torch.Generator,
                policy: "DraftPolicy | None" = None, caps: dict[str, int] | None = None) -> Guesses:
        found = self.lookup.propose(ids, gamma, settings, generator, policy, caps)
        return found if found.tokens else self.model.propose(ids, gamma, settings, generator, policy, caps)

    def commit(self, ids: list[int]) -> None:
        self.model.commit(ids)


def make_drafter(kind: str, draft_model, vocab_size: int, *, max_ngram: int = MAX_NGRAM,
                 min_ngram: int = MIN_NGRAM, device="cpu"):
    """The drafter named `kind` ("model", "lookup" or "hybrid") for a pair's draft model, its q rows
    on `device` (the pair's)."""
    if kind == "model":
        return ModelDrafter(draft_model)
    if kind == "lookup":
        return LookupDrafter(vocab_size, max_ngram, min_ngram, device)
    if kind == "hybrid":
        return HybridDrafter(LookupDrafter(vocab_size, max_ngram, min_ngram, device), ModelDrafter(draft_model))
    raise ValueError(f"The drafter must be one of {', '.join(DRAFTERS)}; got {kind!r}.")


@dataclass(frozen=True)
class DraftPolicy:
    """How many tokens to draft each round.

    gamma        the constant γ, or the heuristic schedule's starting γ (1..16)
    schedule     "constant", "heuristic" (+2 after a round that kept every draft, −1 otherwise) or
                 "auto" (each source drafts the length its recent α pays for, up to γ: lab.core.adaptive)
    threshold    stop drafting after a token the draft model gave probability < threshold (0: off)
    model_gamma  at most this many draft-model calls a round (None: γ); prompt lookup's drafts cost
                 nothing, the model's cost a call each, so a hybrid may propose long lookups and
                 short model drafts
    draft_cost   "auto" only: a draft-model call's price in one-position target calls (None: the
                 pair's measured c once its cost profile exists, else lab.core.adaptive.DRAFT_COST)
    """
    gamma: int = 4
    schedule: str = "constant"
    threshold: float = 0.0
    model_gamma: int | None = None
    draft_cost: float | None = None

    def __post_init__(self):
        check_gamma(self.gamma)
        if self.schedule not in SCHEDULES:
            raise ValueError(f"The draft length schedule must be one of {', '.join(SCHEDULES)}; got {self.schedule!r}.")
        if not isinstance(self.threshold, (int, float)) or not 0 <= self.threshold < 1:
            raise ValueError(f"The confidence threshold must be a number in [0, 1); got {self.threshold!r}.")
        if self.model_gamma is not None:
            check_gamma(self.model_gamma, "The draft model's γ")
        if self.draft_cost is not None and not 0 <= self.draft_cost <= 10:
            raise ValueError(f"A draft call's cost must be a number from 0 to 10 target calls; got {self.draft_cost!r}.")

    @classmethod
    def parse(cls, text: str, gamma: int = 4) -> "DraftPolicy":
        """"constant", "heuristic", "constant:8" (γ = 8 instead of `gamma`), "confidence",
        "confidence:0.3", "heuristic:6+confidence:0.3", "constant:12+model:3" (the draft model drafts
        at most 3 a round), "auto:12+cost:0.15" (a draft call costs 0.15 target calls)."""
        schedule, threshold, model_gamma, draft_cost = "constant", 0.0, None, None
        for part in filter(None, re.split(r"[+,\s]+", (text or "constant").strip().lower())):
            name, _, value = part.partition(":")
            if name in SCHEDULES:
                schedule = name
                if value:
                    if not value.isdigit():
                        raise ValueError(f"γ after {name!r} must be a whole number from 1 to {MAX_GAMMA}; got {value!r}.")
                    gamma = int(value)
            elif name == "model" and value.isdigit():
                model_gamma = int(value)
            elif name == "cost":
                try:
                    draft_cost = float(value)
                except ValueError:
                    raise ValueError(f"A draft call's cost must be a number; got {value!r}.") from None
            elif name == "confidence":
                try:
                    threshold = float(value) if value else DEFAULT_CONFIDENCE
                except ValueError:
                    raise ValueError(f"The confidence threshold must be a number; got {value!r}.") from None
            else:
                raise ValueError(f"Unknown draft length policy {part!r}; use constant[:γ], heuristic[:γ], "
                                 "auto[:γ], confidence[:threshold], model:γ, or heuristic+confidence.")
        return cls(gamma, schedule, threshold, model_gamma, draft_cost)

    def describe(self) -> str:
        text = {"constant": f"γ = {self.gamma}", "heuristic": f"heuristic γ (from {self.gamma})",
                "auto": f"γ paid for by the recent α (at most {self.gamma})"}[self.schedule]
        if self.model_gamma:
            text += f", the draft model at most {self.model_gamma}"
        if self.draft_cost is not None:
            text += f", a draft call priced at {self.draft_cost:g} target calls"
        return text + (f", stop below {self.threshold:g} confidence" if self.threshold else "")


DEFAULT_CONFIDENCE = 0.4


class GammaSchedule:
    """The γ of each round under a policy, updated with each round's outcome."""

    def __init__(self, policy: DraftPolicy):
        self.policy, self.gamma = policy, policy.gamma

    def caps(self, ids: list[int]) -> None:
        """No per-source limits: every source may propose γ."""
        return None

    def update(self, drafted: int, accepted: int, source: str = "model", ids: list[int] | None = None,
               sure: int | None = None) -> None:
        if self.policy.schedule == "heuristic" and drafted:
            # transformers' AssistedCandidateGenerator.update_candidate_strategy
            self.gamma = min(MAX_GAMMA, self.gamma + 2) if accepted == drafted else max(1, self.gamma - 1)
