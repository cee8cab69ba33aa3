"""The model pair: a target and a draft sharing one tokenizer, loaded once per process.

The engine and the pages only ever see a `ModelPair`; how it was found (the embedded default, a
registry name, a hub id, a local folder) is the loader's business.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class PairError(Exception):
    """A pair that cannot be used; `str(err)` is one sentence for a lecturer: what happened and what to do."""


@dataclass
class ModelPair:
    target: object            # transformers PreTrainedModel, eval mode, inference only
    draft: object             # transformers PreTrainedModel, same vocabulary as the target
    tokenizer: object         # the tokenizer both share
    name: str = "custom"      # registry name, or "custom"
    target_label: str = "target"
    draft_label: str = "draft"
    device: str = "cpu"
    dtype: str = "float32"
    notes: dict = field(default_factory=dict)

    @property
    def target_params(self) -> int:
        return sum(p.numel() for p in self.target.parameters())

    @property
    def draft_params(self) -> int:
        return sum(p.numel() for p in self.draft.parameters())

    @property
    def eos_token_id(self) -> int | None:
        return getattr(self.tokenizer, "eos_token_id", None)
