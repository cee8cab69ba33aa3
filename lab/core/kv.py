"""A causal LM with its KV cache: the engine's and every drafter's view of a model.

The cache always holds a prefix of the committed text; `rollback` crops it after a rejection. A
call's input ids go to the model's own device, its logits come back there in float32, and its wall
time is read with the device synchronised (a GPU runs kernels asynchronously): every timing of the
lab (lab.speed.timing, lab.speed.costs, lab.speed.measure) is a sum of these.
"""
from __future__ import annotations

import time

import torch

from lab.devices import sync


class CachedModel:
    """A causal LM and its KV cache; `length` is how many tokens the cache holds."""

    def __init__(self, model):
        self.model = model
        self.device = getattr(model, "device", None) or torch.device("cpu")
        self.cache = None
        self.length = 0

    @torch.inference_mode()
    def forward(self, ids: list[int]) -> tuple[torch.Tensor, float]:
        """Run the model over `ids` after the cached prefix; logits (len(ids), V) in float32 on the
        model's device, and the call's wall time."""
        input_ids = torch.tensor([ids], device=self.device)                  # (1, T)
        sync(self.device)                  # work queued before this call is not this call's time
        start = time.perf_counter()
        out = self.model(input_ids=input_ids, past_key_values=self.cache, use_cache=True)
        sync(self.device)
        seconds = time.perf_counter() - start
        self.cache = out.past_key_values
        self.length += len(ids)
        return out.logits[0].float(), seconds

    def rollback(self, length: int) -> None:
        """Drop cache entries past `length` tokens (the drafts a rejection threw away)."""
        if self.length > length:
            self.cache.crop(length - self.length)   # transformers ≥ 5: a negative count removes
            self.length = length
