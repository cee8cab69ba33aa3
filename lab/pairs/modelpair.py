"""The model pair the engine and the pages see: a target and a draft sharing one tokenizer, with the
pair's default drafting. How it was found and loaded is lab.pairs.load's business."""
from __future__ import annotations

from dataclasses import dataclass, field

from lab.pairs.packing import parameter_count


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
    drafter: str = "model"    # who drafts by default: "model", "lookup" or "hybrid" (lab.core.drafting)
    policy: str = "constant"  # the default draft length policy (lab.core.drafting.DraftPolicy.parse)
    notes: dict = field(default_factory=dict)
    # teaching drafts a student may switch to (lab.pairs.variants): name → (reference, label), the
    # reference None where it is this pair's own draft; "random" is made for any vocabulary anyway
    teaching_drafts: dict = field(default_factory=dict)

    @property
    def target_params(self) -> int:
        return parameter_count(self.target)

    @property
    def draft_params(self) -> int:
        return parameter_count(self.draft)

    @property
    def eos_token_id(self) -> int | None:
        return getattr(self.tokenizer, "eos_token_id", None)
