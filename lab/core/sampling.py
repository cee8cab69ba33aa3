"""p and q exactly as the library makes them, the accept rule, and the residual.

Both models' logits go through the same transformers logits warpers (temperature, top-k, top-p),
so "p and q after the sampling settings" in this lab is what `generate()` itself applies.
Temperature 0 means greedy: a one-hot on the argmax. Whatever the models' dtype (bfloat16 on a GPU),
the warpers run in float32 and the probabilities, the accept rule and the residual in float64 (float32
on Apple's MPS, which has none: lab.devices.exact_dtype), on the device the logits are on; draws use
the caller's generator on its own device (the engine's is a CPU one, so a seed draws the same
uniforms on every device).

>>> import torch
>>> p = torch.tensor([0.6, 0.4], dtype=torch.float64)
>>> q = torch.tensor([0.8, 0.2], dtype=torch.float64)
>>> round(accept_probability(p, q, 0), 6)   # the draft is too eager about token 0
0.75
>>> [round(x, 6) for x in residual(p, q).tolist()]   # what the correction samples from
[0.0, 1.0]
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from lab.devices import exact_dtype


@dataclass(frozen=True)
class SamplingSettings:
    """The decoding settings in force for both models; validated like transformers' own warpers."""

    temperature: float = 0.0   # 0 = greedy
    top_k: int = 0             # 0 = off
    top_p: float = 1.0         # 1 = off

    def __post_init__(self):
        t, k, p = self.temperature, self.top_k, self.top_p
        if not isinstance(t, (int, float)) or math.isnan(t) or not 0 <= t <= 10:
            raise ValueError(f"Temperature must be a number from 0 to 10 (0 means greedy); got {t!r}.")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"top-k must be a whole number ≥ 0 (0 switches it off); got {k!r}.")
        if not isinstance(p, (int, float)) or math.isnan(p) or not 0 < p <= 1:
            raise ValueError(f"top-p must be a number in (0, 1] (1 switches it off); got {p!r}.")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def describe(self) -> str:
        if self.greedy:
            return "greedy (temperature 0)"
        parts = [f"temperature {self.temperature:g}"]
        if self.top_k:
            parts.append(f"top-k {self.top_k}")
        if self.top_p < 1:
            parts.append(f"top-p {self.top_p:g}")
        return ", ".join(parts)

    def warpers(self) -> LogitsProcessorList:
        """The library's warpers, in the order `generate()` applies them."""
        warpers = LogitsProcessorList()
        if self.temperature != 1.0:
            warpers.append(TemperatureLogitsWarper(self.temperature))
        if self.top_k:
            warpers.append(TopKLogitsWarper(self.top_k))
        if self.top_p < 1.0:
            warpers.append(TopPLogitsWarper(self.top_p))
        return warpers


GREEDY = SamplingSettings()


def probabilities(logits: torch.Tensor, settings: SamplingSettings = GREEDY) -> torch.Tensor:
    """Logits (..., V) → probabilities (..., V) after the sampling settings, in float64 (float32 on
    MPS) on the logits' device.

    Rows are independent, so the γ + 1 positions of a verify pass are warped like a batch.
    """
    rows = logits.reshape(-1, logits.shape[-1]).float()                  # (N, V)
    exact = exact_dtype(rows.device)
    if settings.greedy:
        probs = torch.zeros_like(rows, dtype=exact)
        probs.scatter_(1, rows.argmax(dim=-1, keepdim=True), 1.0)
    else:
        no_ids = torch.empty((rows.shape[0], 0), dtype=torch.long, device=rows.device)   # the warpers ignore them
        probs = torch.softmax(settings.warpers()(no_ids, rows).to(exact), dim=-1)
    return probs.reshape(logits.shape)


def accept_probability(p: torch.Tensor, q: torch.Tensor, token: int) -> float:
    """min(1, p(x) / q(x)) for a token x drawn from q (Leviathan et al., 2023, Alg. 1)."""
    qx = float(q[token])
    if qx <= 0:          # x cannot have been drawn from q; never keep it
        return 0.0
    return min(1.0, float(p[token]) / qx)


def residual(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """norm((p − q)+): the part of p that q did not cover, where corrections are drawn from.

    When q covers p everywhere (p ≤ q, so p == q) no rejection can happen; p itself is returned
    instead of dividing by zero.
    """
    excess = torch.clamp(p - q, min=0)
    total = excess.sum()
    return p.clone() if total <= 0 else excess / total


def sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> int:
    """One token id from a probability row (V,), drawn on the generator's device. A one-hot row (a
    greedy p or q) is its token, no draw made: torch's draw of one token reads a random number for
    every entry of the vocabulary, the most time a greedy round spent outside the models."""
    top = int(probs.argmax())
    if float(probs[top]) == 1.0:
        return top
    if generator is not None and probs.device != generator.device:
        probs = probs.to(generator.device)
    return int(torch.multinomial(probs, 1, generator=generator))
