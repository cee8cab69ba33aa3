"""Cheaper guesses, side by side: several draftings of one prompt against plain decoding.

A drafting is who guesses (lab.drafting's drafters: the draft model, prompt lookup, a hybrid) and
how many tokens a round guesses (a `DraftPolicy`: constant γ, transformers' heuristic schedule, a
confidence stop). Each row is `lab.measure.measure` of one drafting on the same prompt, settings,
seed and length, all compared with one plain run of the target:

    α                 accepted drafts ÷ drafted tokens
    tokens per call   new tokens ÷ target calls (plain decoding: 1)
    c                 mean draft call ÷ mean one-position target call (prompt lookup: about 0)
    speed-up          plain decoding's wall time ÷ this drafting's, prefill included
    exact             the very same tokens as plain decoding (greedy; None when sampling)

    plain = plain_run(pair, ids, max_new_tokens=48)
    rows = [measure_drafting(pair, ids, d, plain=plain, gamma=4) for d in DRAFTINGS]

Pages go through `cached_plain` / `cached_row` on the model worker: a class asking for the same
prompt, settings and γ shares one measurement.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from lab.drafting import DEFAULT_CONFIDENCE
from lab.engine import generate
from lab.measure import measure
from lab.sampling import GREEDY, SamplingSettings
from lab.trace import GenerationTrace


@dataclass(frozen=True)
class Drafting:
    """One way of guessing, as a page names and explains it."""
    key: str          # e.g. "lookup"
    label: str        # e.g. "Prompt lookup"
    drafter: str      # lab.drafting drafter: "model" | "lookup" | "hybrid"
    policy: str       # lab.drafting policy text; the caller's γ replaces its γ
    how: str          # one sentence: how it guesses


DRAFTINGS = (
    Drafting("model", "Draft model", "model", "constant",
             "The lecture’s draft: a small model guesses γ tokens, one call each."),
    Drafting("lookup", "Prompt lookup", "lookup", "constant",
             "No model at all: copy the tokens that followed the last earlier occurrence of the text’s "
             "final words (up to 3 of them), in microseconds."),
    Drafting("hybrid", "Hybrid", "hybrid", "constant",
             "Prompt lookup when the text repeats itself, the draft model otherwise."),
    Drafting("adaptive", "Adaptive γ", "model", "heuristic",
             "The draft model, with transformers’ schedule: γ + 2 after a round that kept every guess, "
             "γ − 1 after a miss."),
    Drafting("confident", "Confidence stop", "model", f"constant+confidence:{DEFAULT_CONFIDENCE}",
             f"The draft model stops guessing after a token it gave less than {DEFAULT_CONFIDENCE:.0%}."),
)
BY_KEY = {d.key: d for d in DRAFTINGS}


@dataclass(frozen=True)
class Row:
    """One drafting of one prompt, measured against plain decoding."""
    drafting: Drafting
    alpha: float | None           # None when nothing was drafted (lookup found no repeat)
    tokens_per_call: float
    c: float
    speedup: float
    exact: bool | None
    drafted: int
    accepted: int
    target_calls: int
    new_tokens: int
    text: str


def plain_run(pair, prompt_ids: list[int], *, settings: SamplingSettings = GREEDY, seed: int = 0,
              max_new_tokens: int = 48) -> tuple[GenerationTrace, float]:
    """Plain target decoding, wall-timed end to end after a short warm-up: (trace, seconds)."""
    generate(pair, prompt_ids, mode="plain", settings=settings, seed=seed,
             max_new_tokens=min(4, max_new_tokens), display_top=0)
    start = time.perf_counter()
    trace = generate(pair, prompt_ids, mode="plain", settings=settings, seed=seed,
                     max_new_tokens=max_new_tokens, display_top=0)
    return trace, time.perf_counter() - start


def measure_drafting(pair, prompt_ids: list[int], drafting: Drafting, *,
                     plain: tuple[GenerationTrace, float], gamma: int = 4,
                     settings: SamplingSettings = GREEDY, seed: int = 0, max_new_tokens: int = 48) -> Row:
    """`drafting` on the prompt, against the plain run `plain` of the same prompt and length."""
    m, _, spec = measure(pair, list(prompt_ids), gamma=gamma, settings=settings, seed=seed,
                         max_new_tokens=max_new_tokens, drafter=drafting.drafter, policy=drafting.policy,
                         plain=plain)
    return Row(drafting, spec.alpha, m.tokens_per_round, m.c, m.measured_speedup, m.matches_target_greedy,
               spec.drafted, spec.accepted, spec.target_calls, m.new_tokens, m.text)


def cached_plain(service, prompt_ids: list[int], settings: SamplingSettings = GREEDY, seed: int = 0,
                 max_new_tokens: int = 48) -> tuple[GenerationTrace, float]:
    """`plain_run` of the service's pair, once per server (call on the model worker)."""
    key = ("cheaper-plain", tuple(prompt_ids), settings, seed, max_new_tokens)
    return service.cached(key, lambda: plain_run(service.pair, list(prompt_ids), settings=settings,
                                                 seed=seed, max_new_tokens=max_new_tokens))


def cached_row(service, prompt_ids: list[int], key: str, gamma: int = 4,
               settings: SamplingSettings = GREEDY, seed: int = 0, max_new_tokens: int = 48,
               draft: str = "aligned") -> Row:
    """The drafting named `key` of DRAFTINGS measured on the service's pair, its draft model the
    student's `draft` (lab.variants), once per server (call on the model worker)."""
    drafting = BY_KEY.get(key)
    if drafting is None:
        raise ValueError(f"The drafting must be one of {', '.join(BY_KEY)}; got {key!r}.")
    plain = cached_plain(service, prompt_ids, settings, seed, max_new_tokens)
    return service.cached(
        ("cheaper-row", tuple(prompt_ids), key, gamma, settings, seed, max_new_tokens, draft),
        lambda: measure_drafting(service.pair_for(draft), list(prompt_ids), drafting, plain=plain, gamma=gamma,
                                 settings=settings, seed=seed, max_new_tokens=max_new_tokens))


def winner(rows: list[Row], among: tuple[str, ...] = ("model", "lookup", "hybrid")) -> Row:
    """The row among `among` that needs the fewest target calls for the text (most tokens per
    call); a tie goes to the cheaper guesser (smaller c)."""
    rows = [r for r in rows if r.drafting.key in among]
    return max(rows, key=lambda r: (round(r.tokens_per_call, 6), -r.c))
