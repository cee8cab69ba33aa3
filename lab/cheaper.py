"""Cheaper guesses, side by side: several draftings of one prompt against plain decoding.

A drafting is who guesses (lab.drafting's drafters: the draft model, prompt lookup, a hybrid) and
how many tokens a round guesses (a `DraftPolicy`: constant γ, transformers' heuristic schedule, a
confidence stop). Each row decodes the prompt with one drafting, on the same prompt, settings, seed
and length as one plain run of the target, and prices every call with the pair's cost profile
(lab.costs, lab.timeline.schedule: the same speed-up chapter 11 draws for a request):

    α                 accepted drafts ÷ drafted tokens
    tokens per call   new tokens ÷ target calls (plain decoding: 1)
    c                 a guess's mean cost in one-position target calls (prompt lookup: about 0)
    speed-up          plain decoding's decode time ÷ this drafting's, every call priced by the profile
    exact             the very same tokens as plain decoding (greedy; None when sampling)

    plain = generate(pair, ids, mode="plain", max_new_tokens=32)
    rows = [measure_drafting(pair, ids, d, plain=plain, profile=costs.profile(pair)) for d in DRAFTINGS]

Pages go through `cached_plain` / `cached_row` on the model worker: a class asking for the same
prompt, settings and γ shares one measurement.
"""
from __future__ import annotations

from dataclasses import dataclass

from lab import costs
from lab.costs import CostProfile
from lab.drafting import DEFAULT_CONFIDENCE
from lab.engine import generate
from lab.sampling import GREEDY, SamplingSettings
from lab.timeline import schedule
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
    busy: str = ""                # why the cost profile is unreliable ("" when it is not)


def plain_run(pair, prompt_ids: list[int], *, settings: SamplingSettings = GREEDY, seed: int = 0,
              max_new_tokens: int = 32) -> GenerationTrace:
    """Plain target decoding: the reference every drafting is compared with."""
    return generate(pair, list(prompt_ids), mode="plain", settings=settings, seed=seed,
                    max_new_tokens=max_new_tokens, display_top=0)


def measure_drafting(pair, prompt_ids: list[int], drafting: Drafting, *, plain: GenerationTrace,
                     profile: CostProfile, gamma: int = 4, settings: SamplingSettings = GREEDY, seed: int = 0,
                     max_new_tokens: int = 32) -> Row:
    """`drafting` on the prompt, against the plain run `plain` of the same prompt and length, every
    call priced by `profile`."""
    spec = generate(pair, list(prompt_ids), settings=settings, gamma=gamma, seed=seed,
                    max_new_tokens=max_new_tokens, display_top=0, drafter=drafting.drafter,
                    policy=drafting.policy)
    timed = schedule(plain, spec, profile)
    guesses = [end - start for lane, start, end, kind in timed.blocks if kind == "draft"]
    return Row(drafting, spec.alpha, spec.tokens_per_round, sum(guesses) / max(1, len(guesses)),
               timed.decode_speedup, (spec.new_ids == plain.new_ids) if settings.greedy else None,
               spec.drafted, spec.accepted, spec.target_calls, len(spec.new_ids), spec.text, profile.why_busy())


def cached_plain(service, prompt_ids: list[int], settings: SamplingSettings = GREEDY, seed: int = 0,
                 max_new_tokens: int = 32) -> GenerationTrace:
    """`plain_run` of the service's pair, once per server (call on the model worker)."""
    key = ("cheaper-plain", tuple(prompt_ids), settings, seed, max_new_tokens)
    return service.cached(key, lambda: plain_run(service.pair, prompt_ids, settings=settings, seed=seed,
                                                 max_new_tokens=max_new_tokens))


def cached_row(service, prompt_ids: list[int], key: str, gamma: int = 4,
               settings: SamplingSettings = GREEDY, seed: int = 0, max_new_tokens: int = 32,
               draft: str = "aligned") -> Row:
    """The drafting named `key` of DRAFTINGS on the service's pair, its draft model the student's
    `draft` (lab.variants), priced by that pair's shared cost profile; once per server (call on the
    model worker)."""
    drafting = BY_KEY.get(key)
    if drafting is None:
        raise ValueError(f"The drafting must be one of {', '.join(BY_KEY)}; got {key!r}.")
    plain = cached_plain(service, prompt_ids, settings, seed, max_new_tokens)
    profile = costs.of_service(service, draft)
    return service.cached(
        ("cheaper-row", tuple(prompt_ids), key, gamma, settings, seed, max_new_tokens, draft, profile),
        lambda: measure_drafting(service.pair_for(draft), prompt_ids, drafting, plain=plain, profile=profile,
                                 gamma=gamma, settings=settings, seed=seed, max_new_tokens=max_new_tokens))


def winner(rows: list[Row], among: tuple[str, ...] = ("model", "lookup", "hybrid")) -> Row:
    """The row among `among` that needs the fewest target calls for the text (most tokens per
    call); a tie goes to the cheaper guesser (smaller c)."""
    rows = [r for r in rows if r.drafting.key in among]
    return max(rows, key=lambda r: (round(r.tokens_per_call, 6), -r.c))
