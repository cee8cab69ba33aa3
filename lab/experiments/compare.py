"""Side-by-side looks at the two models that are not rounds: one teacher-forced pass each.

Chapter 2 asks, for every token the target wrote, what the draft's first guess would have been
given the same prefix; chapter 7 needs p and q for one context.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from lab.core.engine import DISPLAY_TOP, top_candidates
from lab.pairs.modelpair import ModelPair
from lab.core.sampling import SamplingSettings, probabilities
from lab.core.trace import Candidate

RAW = SamplingSettings(temperature=1.0)   # the models' own distributions, no warping


@dataclass
class PositionGuess:
    """Position i of the target's text: its token, and the draft's first guess there."""
    index: int
    token_id: int
    text: str
    draft_guess_id: int
    draft_guess_text: str
    draft_top: list[Candidate]
    target_top: list[Candidate]

    @property
    def easy(self) -> bool:
        return self.draft_guess_id == self.token_id


@torch.inference_mode()
def _rows(model, prompt_ids: list[int], continuation: list[int], settings) -> torch.Tensor:
    """One teacher-forced pass: the model's distribution before each continuation token, (n, V)."""
    ids = torch.tensor([prompt_ids + continuation], device=model.device)
    logits = model(input_ids=ids).logits[0, len(prompt_ids) - 1: -1].float()
    return probabilities(logits, settings)


def first_guesses(pair: ModelPair, prompt_ids: list[int], target_ids: list[int],
                  k: int = DISPLAY_TOP) -> list[PositionGuess]:
    """For each of the target's tokens, the draft's argmax given the same prefix (one draft pass)."""
    q = _rows(pair.draft, prompt_ids, target_ids, RAW)     # (n, V)
    p = _rows(pair.target, prompt_ids, target_ids, RAW)    # (n, V)
    tok = pair.tokenizer
    out = []
    for i, token in enumerate(target_ids):
        guess = int(q[i].argmax())
        out.append(PositionGuess(i, token, tok.decode([token]), guess, tok.decode([guess]),
                                 top_candidates(q[i], tok, k), top_candidates(p[i], tok, k)))
    return out


def next_token_distributions(pair: ModelPair, prompt_ids: list[int],
                             settings: SamplingSettings = RAW) -> tuple[torch.Tensor, torch.Tensor]:
    """p and q (each (V,), float64, on the CPU) for the token after `prompt_ids`, after the sampling settings."""
    with torch.inference_mode():
        ids = torch.tensor([prompt_ids], device=pair.target.device)
        p = probabilities(pair.target(input_ids=ids).logits[0, -1].float(), settings)
        q = probabilities(pair.draft(input_ids=ids).logits[0, -1].float(), settings)
    return p.cpu(), q.cpu()


def token_probability(pair: ModelPair, prompt_ids: list[int], token_ids: list[int],
                      settings: SamplingSettings = RAW) -> list[float]:
    """The target's probability of each of `token_ids` given the text before it (teacher-forced)."""
    p = _rows(pair.target, prompt_ids, token_ids, settings)
    return [float(p[i, t]) for i, t in enumerate(token_ids)]
