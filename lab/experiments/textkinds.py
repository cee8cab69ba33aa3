"""How predictable is a kind of text? α of the draft model per kind of text, measured.

For each kind (stories, facts, instructions, code, JSON, edits) a few held-out prompts
(models/heldout_prompts.json) are decoded speculatively by the lecture's drafting — the draft
model guessing a constant γ — at temperature 0, and pooled:

    α                 accepted drafts ÷ drafted tokens, over all the kind's prompts
    tokens per call   new tokens ÷ target calls (the analytic model's E, measured)

Greedy and seeded, so the figures depend on the pair and the prompts only: pages go through
`cached_kind` on the model worker, and a whole class shares one measurement per server.

    kinds = kind_prompts(per_kind=2)               # {"stories": [...], ..., "edit": [...]}
    result = measure_kind(pair, "code", kinds["code"])
"""
from __future__ import annotations

from dataclasses import dataclass

from lab.core.engine import generate
from lab.prompts import encode_prompt, heldout_prompts
from lab.core.sampling import GREEDY

KINDS = ("stories", "facts", "instructions", "code", "json", "edit")
LABELS = {"stories": "Stories", "facts": "Facts", "instructions": "Instructions", "code": "Code",
          "json": "JSON", "edit": "Edits", "yours": "Your prompt"}
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

    @classmethod
    def of_trace(cls, kind: str, prompt: str, trace) -> "KindResult":
        """One prompt's generation (lab.core.trace.GenerationTrace) as a result of its own."""
        return cls(kind, (prompt,), trace.drafted, trace.accepted, len(trace.new_ids), trace.target_calls)

    @property
    def label(self) -> str:
        return LABELS.get(self.kind, self.kind)

    @property
    def alpha(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

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
                 max_new_tokens: int = 32) -> KindResult:
    """Decode each prompt with the draft model guessing γ a round (greedy) and pool the counts."""
    drafted = accepted = tokens = calls = 0
    for text in prompts:
        trace = generate(pair, encode_prompt(pair.tokenizer, text), settings=GREEDY, gamma=gamma,
                         max_new_tokens=max_new_tokens, display_top=0, drafter=DRAFTER, policy=POLICY)
        drafted += trace.drafted
        accepted += trace.accepted
        tokens += len(trace.new_ids)
        calls += trace.target_calls
    return KindResult(kind, tuple(prompts), drafted, accepted, tokens, calls)


def cached_kind(service, kind: str, prompts: list[str], gamma: int = 4, max_new_tokens: int = 32,
                draft: str = "aligned") -> KindResult:
    """`measure_kind` on the service's pair with the student's `draft` (lab.pairs.variants), once per
    server (call on the model worker)."""
    key = ("textkinds", kind, tuple(prompts), gamma, max_new_tokens, draft)
    return service.cached(key, lambda: measure_kind(service.pair_for(draft), kind, list(prompts), gamma=gamma,
                                                    max_new_tokens=max_new_tokens))


def most_predictable(results: list[KindResult]) -> KindResult:
    """The kind with the highest α (the first of KINDS on a tie)."""
    return max(results, key=lambda r: (round(r.alpha, 9), -KINDS.index(r.kind) if r.kind in KINDS else -99))
