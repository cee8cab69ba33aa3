"""One request: what to write and how, the one object the engine, the decoder, measure, the model
service and its cache keys carry.

A request is (prompt, mode, writer, sampling settings, seed, new tokens, drafter, draft length policy,
γ, draft variant). It is frozen and hashable, so it is its own cache key (serving.service): a request
asked twice is computed once. A variation is a `replace(...)`:

    request = Request(ids, gamma=4, max_new_tokens=12)
    trace = generate(pair, request)                           # lab.core.engine
    plain = generate(pair, request.plain())                   # the target alone, same length
    other = generate(pair, replace(request, drafter="lookup"))

`drafter`, `policy` and `gamma` None draft as the pair does (lab.pairs.modelpair.ModelPair's
`drafter` and `policy`, γ the policy's); a page's request names all three (uikit.state.LabState).
`variant` names the draft model the pair drafts with (lab.pairs.variants); the decoder is handed
that pair (serving.service.ModelService.pair_for picks it) and does not read the field.

>>> r = Request([5, 6, 7], drafter="lookup", gamma=3)
>>> r.prompt_ids, r.max_new_tokens == REQUEST_TOKENS
((5, 6, 7), True)
>>> r.plain() == Request((5, 6, 7), mode="plain")
True
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lab.core.sampling import GREEDY, SamplingSettings

if TYPE_CHECKING:
    from lab.core.drafting import DraftPolicy

REQUEST_TOKENS = 32      # the new tokens of a request unless it says otherwise: every live page's length


@dataclass(frozen=True)
class Request:
    """What to write (prompt, settings, seed, length) and how (plain or drafted: who guesses, how many)."""
    prompt_ids: tuple[int, ...]           # a list given is kept as a tuple
    drafter: str | None = None            # who guesses: "model" | "lookup" | "hybrid"; None: the pair's
    policy: DraftPolicy | str | None = None                 # how many: DraftPolicy or its text (lab.core.drafting); None: the pair's
    gamma: int | None = None              # replaces the policy's γ when given
    settings: SamplingSettings = GREEDY
    seed: int = 0
    max_new_tokens: int = REQUEST_TOKENS
    variant: str = "aligned"              # the draft variant: aligned, weak or random (lab.pairs.variants)
    mode: str = "speculative"             # or "plain": one model writes alone, one call per token
    writer: str = "target"                # plain decoding's model: "target", or "draft" (chapter 1's race)

    def __post_init__(self):
        object.__setattr__(self, "prompt_ids", tuple(self.prompt_ids))   # hashable: the request is its own key

    def plain(self, writer: str = "target") -> "Request":
        """The same prompt, settings, seed and length decoded by `writer` alone (`key()`'s form)."""
        return replace(self, mode="plain", writer=writer).key()

    def key(self) -> "Request":
        """The request as its result depends on it: plain decoding drops the drafting (and the draft
        variant too when the target writes), so every page asking for the same text shares it."""
        if self.mode != "plain":
            return self
        return replace(self, drafter=None, policy=None, gamma=None,
                       variant=self.variant if self.writer == "draft" else "aligned")
