"""Will my pair pay off? α, c and the speed-up of a pair, measured side by side on one prompt.

Used by `python -m lab measure` and by chapter 10's "use my models".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from lab import analytic
from lab.engine import generate
from lab.pair import ModelPair
from lab.sampling import GREEDY, SamplingSettings
from lab.trace import GenerationTrace


@dataclass
class Measurement:
    target: str
    draft: str
    gamma: int
    new_tokens: int
    alpha: float
    tokens_per_round: float
    c: float                      # mean draft call ÷ mean target call
    predicted_speedup: float      # analytic model from the measured α, γ, c
    measured_speedup: float       # plain decode time ÷ speculative decode time
    matches_target_greedy: bool | None
    text: str
    plain_seconds: float
    speculative_seconds: float
    mean_target_seconds: float
    mean_draft_seconds: float
    settings: str

    def as_dict(self) -> dict:
        return asdict(self)


def measure(pair: ModelPair, prompt_ids: list[int], *, gamma: int = 4,
            settings: SamplingSettings = GREEDY, max_new_tokens: int = 64, seed: int = 0,
            warmup: bool = True) -> tuple[Measurement, GenerationTrace, GenerationTrace]:
    """Plain target decoding and speculative decoding of the same prompt and length, timed."""
    if warmup:   # first calls pay one-off allocation costs; keep them out of both timings
        generate(pair, prompt_ids, gamma=gamma, settings=settings, max_new_tokens=min(4, max_new_tokens))
    # No display candidates: both timings are of decoding alone.
    plain = generate(pair, prompt_ids, mode="plain", settings=settings, seed=seed,
                     max_new_tokens=max_new_tokens, display_top=0)
    spec = generate(pair, prompt_ids, gamma=gamma, settings=settings, seed=seed,
                    max_new_tokens=max_new_tokens, display_top=0)
    alpha = spec.alpha or 0.0
    # c compares a draft call with a one-position target call, as in the analytic model.
    c = (spec.mean_draft_seconds or 0.0) / plain.mean_target_seconds
    m = Measurement(
        target=pair.target_label, draft=pair.draft_label, gamma=gamma, new_tokens=len(spec.new_ids),
        alpha=alpha, tokens_per_round=spec.tokens_per_round, c=c,
        predicted_speedup=float(analytic.speedup(alpha, gamma, c)),
        measured_speedup=plain.decode_seconds / spec.decode_seconds,
        matches_target_greedy=(spec.new_ids == plain.new_ids) if settings.greedy else None,
        text=spec.text, plain_seconds=plain.decode_seconds, speculative_seconds=spec.decode_seconds,
        mean_target_seconds=plain.mean_target_seconds, mean_draft_seconds=spec.mean_draft_seconds or 0.0,
        settings=settings.describe())
    return m, plain, spec
