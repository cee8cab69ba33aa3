"""How predictable is a kind of text? α of the draft model per kind of text, measured.

For each kind (stories, facts, instructions, code, JSON, edits) a few held-out prompts
(models/heldout_prompts.json) are decoded speculatively by the lecture's drafting — the draft
model guessing a constant γ — at temperature 0, and pooled:

    α                 the per-guess acceptance rate, kept ÷ (kept + rejected) guesses over all the
                      kind's prompts (lab.core.trace.acceptance_rate; dropped guesses not counted)
    tokens per call   new tokens ÷ target calls (the analytic model's E, measured)

Greedy and seeded, so the figures depend on the pair and the prompts only: pages go through
`cached_kind` on the model worker, and a whole class shares one measurement per server.

    kinds = kind_prompts(per_kind=2)               # {"stories": [...], ..., "edit": [...]}
    result = measure_kind(pair, "code", kinds["code"])
    be = break_even(profile, gamma=4)              # the α below which drafting is slower here
    most_predictable(results)                      # the highest α (chapter 13 says it in words)
"""
from __future__ import annotations

from dataclasses import dataclass

from lab.core.engine import generate
from lab.core.request import REQUEST_TOKENS, Request
from lab.prompts import encode_prompt, heldout_prompts
from lab.core.sampling import GREEDY
from lab.core.trace import acceptance_rate
from lab.speed.request import measured_break_even

KINDS = ("stories", "facts", "instructions", "code", "json", "edit")
DRAFTER, POLICY = "model", "constant"       # the lecture's drafting: the draft model, constant γ


@dataclass(frozen=True)
class KindResult:
    """One kind of text (or the student's prompt), pooled over its prompts."""
    kind: str
    prompts: tuple[str, ...]
    drafted: int
    accepted: int
    new_tokens: int
    target_calls: int
    rejected: int                 # rounds that ended on a rejected guess (one rejected guess each)

    @classmethod
    def of_trace(cls, kind: str, prompt: str, trace) -> "KindResult":
        """One prompt's generation (lab.core.trace.GenerationTrace) as a result of its own."""
        return cls(kind, (prompt,), trace.drafted, trace.accepted, len(trace.new_ids), trace.target_calls,
                   trace.rejected)

    @property
    def alpha(self) -> float:
        """α, kept ÷ (kept + rejected) (0 when no guess was judged)."""
        return acceptance_rate(self.accepted, self.rejected) or 0.0

    @property
    def judged(self) -> int:
        """Guesses the target judged: kept or rejected (the dropped ones after a rejection not)."""
        return self.accepted + self.rejected

    @property
    def tokens_per_call(self) -> float:
        return self.new_tokens / max(1, self.target_calls)


def kind_prompts(per_kind: int = 2) -> dict[str, list[str]]:
    """The first `per_kind` held-out prompts of each kind, in KINDS order."""
    sets = heldout_prompts()
    missing = [k for k in KINDS if k not in sets]
    if missing:
        raise ValueError(f"The held-out prompt set lacks the kinds {', '.join(missing)}.")
    return {k: sets[k][:per_kind] for k in KINDS}


def measure_kind(pair, kind: str, prompts: list[str], *, gamma: int = 4,
                 max_new_tokens: int = REQUEST_TOKENS) -> KindResult:
    """Decode each prompt with the draft model guessing γ a round (greedy) and pool the counts."""
    drafted = accepted = rejected = tokens = calls = 0
    for text in prompts:
        request = Request(encode_prompt(pair.tokenizer, text), drafter=DRAFTER, policy=POLICY, gamma=gamma,
                          settings=GREEDY, max_new_tokens=max_new_tokens)
        trace = generate(pair, request, display_top=0)
        drafted += trace.drafted
        accepted += trace.accepted
        rejected += trace.rejected
        tokens += len(trace.new_ids)
        calls += trace.target_calls
    return KindResult(kind, tuple(prompts), drafted, accepted, tokens, calls, rejected)


def cached_kind(service, kind: str, prompts: list[str], gamma: int = 4, max_new_tokens: int = REQUEST_TOKENS,
                variant: str = "aligned") -> KindResult:
    """`measure_kind` on the service's pair with the student's draft `variant` (lab.pairs.variants), once per
    server (call on the model worker)."""
    key = ("textkinds", kind, tuple(prompts), gamma, max_new_tokens, variant)
    return service.cached(key, lambda: measure_kind(service.pair_for(variant), kind, list(prompts), gamma=gamma,
                                                    max_new_tokens=max_new_tokens))


def most_predictable(results: list[KindResult]) -> KindResult:
    """The kind with the highest α (the first of KINDS on a tie)."""
    return max(results, key=lambda r: (round(r.alpha, 9), -KINDS.index(r.kind) if r.kind in KINDS else -99))


# The kinds with a fixed structure (syntax, a copy of the prompt) and those whose words are free: the
# lecture's argument says the first should be the predictable ones; chapter 13 says whether they were.
STRUCTURED, FREE = ("code", "json", "edit"), ("stories", "facts", "instructions")


def break_even(profile, gamma: int, c: float | None = None) -> float:
    """The α at which γ draft-model guesses a round break even on this machine: the one break-even
    every verdict names (lab.speed.request.measured_break_even), at the profile's measured c unless
    given, rounded as pages print it (chapter 10's slider gives the same α); nan when no α does."""
    return measured_break_even(profile, gamma, round(profile.c if c is None else c, 2))
