"""How long measuring a pair's cost profile (lab.speed.costs.measure_profile) will take on this machine,
estimated from three quick calls before it starts — for a progress bar's "about N s left".

measure_profile times, in RUNS + 1 interleaved rounds (the first a warm-up), one target call over
each of 1…POSITIONS new positions, one draft call and one prefill of PREFILL_TOKENS tokens. The probe
times a target call over 1 and over POSITIONS positions and a draft call; a call over k positions is
taken to lie on the line through the first two, the prefill on the same line at PREFILL_TOKENS.

    seconds = profile_seconds(*probe(pair))     # on the model worker
    got = profile_with_eta(pair, on_estimate, service.profiles.of)   # on the model worker: on_estimate(seconds),
                                                # then the service's shared profile (measured if need be)
"""
from __future__ import annotations

from lab.speed import costs
from lab.speed.costs import POSITIONS, PREFILL_TOKENS, RUNS
from lab.core.kv import CachedModel
from lab.prompts import DEFAULT_PROMPT, encode_prompt
from lab.speed.timing import verify_calls

PROBE_CONTEXT = 16   # tokens of the default prompt before the probe's calls


def probe(pair) -> tuple[float, float, float]:
    """(one target call over 1 position, over POSITIONS positions, one draft call), in seconds,
    each the faster of two runs (the first warms the call up)."""
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)[:PROBE_CONTEXT]
    target = verify_calls(CachedModel(pair.target), ids, range(1, POSITIONS + 1))
    draft = verify_calls(CachedModel(pair.draft), ids, range(1, 2))[1]
    return tuple(min(fn(), fn()) for fn in (target[1], target[POSITIONS], draft))


def profile_seconds(one: float, longest: float, draft: float, *, runs: int = RUNS,
                    positions: int = POSITIONS, prefill_tokens: int = PREFILL_TOKENS) -> float:
    """Seconds measure_profile takes when a call over k positions costs one + (k − 1)·slope, the
    slope through `one` (k = 1) and `longest` (k = positions), and a draft call `draft`."""
    slope = max(0.0, (longest - one) / max(1, positions - 1))
    verify = positions * one + slope * positions * (positions - 1) / 2
    prefill = one + slope * (prefill_tokens - 1)
    return (runs + 1) * (verify + draft + prefill) + 2 * prefill      # the two prefills before the rounds


def profile_with_eta(pair, on_estimate, profile_of=None) -> costs.CostProfile:
    """`profile_of()`, the caller's profile of `pair` (a model service's `profiles.of`, measured once
    per server), or else the pair measured now (lab.speed.costs.measure_profile), after calling
    on_estimate(seconds it may take) from the probe. On the model worker; a profile already shared
    comes back at once (the estimate is then too long)."""
    on_estimate(profile_seconds(*probe(pair)))
    return profile_of() if profile_of is not None else costs.measure_profile(pair)
