"""The draft variants a student can switch between on the running pair (the lecture's aligned ⟷ weak
switch): which draft model guesses, on the one target.

- "aligned": the pair as it was started: its own draft and its own drafting (the default).
- "weak": the embedded target's first layers, never trained as a draft (`embedded:weak`, the
  registry's pair "weak"). Offered only when the registry has that pair on the running pair's target.
- "random": a draft whose q is uniform, so almost nothing is accepted, and whose greedy guesses are
  random tokens (`embedded:random`, or one made for any vocabulary in a moment:
  lab.pairs.draftmodels.make_random; a random draft prepared with all-zero logits, whose every
  greedy guess would be token 0, the end-of-text token, is replaced by one made afresh, as a loaded
  draft's layers are packed and cannot be edited: lab.pairs.packing).

Every variant shares the running pair's target and tokenizer: the same objects, so the target is in
memory once. Only the draft differs, and a teaching draft drafts every round at the lecture's
constant γ. A teaching draft is loaded the first time it is asked for (on the model worker) and kept
while the pair serves.

    variants = DraftVariants()
    variants.offered(pair)           # {"aligned": "", "weak": "why not…", "random": ""}   "" = offered
    variants.pair(pair, "random")    # a ModelPair drafting with the uniform draft, target shared
    variants.label(pair, "random")   # "random draft (uniform)", nothing loaded
"""
from __future__ import annotations

import threading
from dataclasses import replace

from lab.core.drafting import LECTURE_POLICY
from lab.pairs.modelpair import ModelPair

VARIANTS = ("aligned", "weak", "random")
DEFAULT = "aligned"
LABELS = {"weak": "weak draft (untrained)", "random": "random draft (uniform)"}


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"There is no draft variant {variant!r}; choose one of {', '.join(VARIANTS)}.")
    return variant


class DraftVariants:
    """The running pair's teaching drafts, loaded once each and kept until the pair changes."""

    def __init__(self, make=None):
        """`make(pair, variant)` builds a teaching draft's pair (default `with_draft`; a test passes
        one that counts the loads)."""
        self._make = make or with_draft
        self._lock = threading.Lock()
        self._owner: ModelPair | None = None     # the pair the kept variants belong to
        self._pairs: dict[str, ModelPair] = {}

    @staticmethod
    def offered(pair: ModelPair) -> dict[str, str]:
        """Variant → "" when `pair` can have it, else one sentence saying why not."""
        weak = "" if "weak" in pair.teaching_drafts else (
            "This pair has no weak draft (only the embedded SmolLM2 target has one); "
            "the aligned and the random draft are offered.")
        return {"aligned": "", "weak": weak, "random": ""}

    @staticmethod
    def label(pair: ModelPair, variant: str = DEFAULT) -> str:
        """The draft's name as pages show it, without loading anything (e.g. "random draft (uniform)")."""
        if check_variant(variant) == DEFAULT:
            return pair.draft_label
        return pair.teaching_drafts.get(variant, ("", ""))[1] or LABELS[variant]

    def pair(self, pair: ModelPair, variant: str = DEFAULT) -> ModelPair:
        """`pair` drafting with `variant`'s draft (the same target object). A teaching draft is loaded
        on first use: call from the model worker. Raises ValueError (one sentence) for a variant
        `pair` cannot have."""
        why = self.offered(pair)[check_variant(variant)]
        if why:
            raise ValueError(why)
        if variant == DEFAULT:
            return pair
        with self._lock:
            if self._owner is not pair:            # another pair now serves: its own drafts
                self._owner, self._pairs = pair, {}
            made = self._pairs.get(variant)
        if made is None:
            made = self._make(pair, variant)
            with self._lock:
                if self._owner is pair:
                    made = self._pairs.setdefault(variant, made)
        return made

    def loaded(self, pair: ModelPair, variant: str = DEFAULT) -> ModelPair | None:
        """`pair` drafting with `variant` if that needs no loading (the pair's own draft, or a teaching
        draft already loaded for it), else None. Safe on the event loop."""
        if variant == DEFAULT:
            return pair
        with self._lock:
            return self._pairs.get(variant) if self._owner is pair else None

    def clear(self) -> None:
        with self._lock:
            self._owner, self._pairs = None, {}


def all_zero_head(draft) -> bool:
    """Whether `draft`'s logits are all zero (a random draft prepared before its guesses were random)."""
    weight = getattr(draft.get_output_embeddings(), "weight", None)
    if weight is None:
        return False
    weight = weight.to_dense() if weight.is_mkldnn else weight      # a packed head (lab.pairs.packing)
    return not bool(weight.detach().any())


def _random_for(pair: ModelPair):
    """A random draft for `pair`'s vocabulary (lab.pairs.draftmodels.make_random: uniform q, random guesses)."""
    from lab.pairs.draftmodels import make_random
    cfg = pair.target.config
    from lab.devices import move
    draft = make_random(cfg.vocab_size, getattr(cfg, "bos_token_id", None), pair.eos_token_id,
                        getattr(cfg, "pad_token_id", None))
    return move(draft, pair.device, pair.dtype)              # beside the pair's target


def with_draft(pair: ModelPair, variant: str) -> ModelPair:
    """`pair` with its target, tokenizer and settings, drafting with the teaching draft `variant`."""
    ref = pair.teaching_drafts.get(variant, ("", ""))[0]
    if ref is None:                                  # the pair's own draft is this teaching draft
        draft = pair.draft
    elif ref:
        from lab.pairs.load import load_draft
        draft = load_draft(ref, pair)
    else:                                            # random, for any vocabulary
        draft = _random_for(pair)
    if variant == "random" and all_zero_head(draft):
        draft = _random_for(pair)    # prepared with all-zero logits (and loaded packed): made afresh instead
    return replace(pair, draft=draft, draft_label=DraftVariants.label(pair, variant), drafter="model",
                   policy=LECTURE_POLICY, notes={**pair.notes, "variant": variant})
