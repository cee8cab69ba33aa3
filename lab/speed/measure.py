"""Will my pair pay off? α, tokens per target call, c and the speed-up of a pair's drafting,
measured side by side with plain decoding on one prompt, or on a prompt set per category, each with
a one-line verdict (lab.speed.payoff).

Used by `python -m lab measure`, bench/pairs.py and models/distil/ (wall-clock times; the live pages
price one request with the pair's cost profile instead: lab.speed.request).
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

from lab.core import analytic
from lab.speed import costs, payoff
from lab.core.adaptive import prices_with_profile
from lab.devices import sync
from lab.core.engine import Decoder, generate
from lab.pairs.modelpair import ModelPair
from lab.core.request import Request
from lab.core.trace import GenerationTrace, acceptance_rate


@dataclass
class Measurement:
    target: str
    draft: str
    drafter: str                  # "model" | "lookup" | "hybrid"
    policy: str                   # the draft length policy, described
    gamma: int
    new_tokens: int
    alpha: float                  # α, per guess: kept ÷ (kept + rejected) (lab.core.trace.acceptance_rate)
    tokens_per_round: float       # new tokens ÷ target calls (tokens per target call)
    c: float                      # mean draft call ÷ mean one-position target call
    predicted_speedup: float      # analytic model from the measured α, mean draft length and c
    measured_speedup: float       # plain wall time ÷ speculative wall time, same prompt and length
    matches_target_greedy: bool | None
    text: str
    plain_seconds: float
    speculative_seconds: float
    mean_target_seconds: float
    mean_draft_seconds: float
    settings: str
    load: float = 0.0             # one-minute load average before measuring
    cores: int = 1                # cores this process may run on
    device: str = "cpu"           # where the pair ran (lab.devices)
    dtype: str = "float32"
    rounds: int = 0               # the drafting's rounds (target calls)
    drafted_rounds: int = 0       # of them, rounds that guessed (the others were plain steps)

    @property
    def verdict(self) -> str:
        """Does the drafting pay on this prompt, in one line (lab.speed.payoff)."""
        return payoff.verdict(self.measured_speedup, self.drafted_rounds, self.rounds)

    @property
    def busy(self) -> bool:
        """More work waited than there are cores: wall-clock times are not to be trusted."""
        return self.load > self.cores

    def as_dict(self) -> dict:
        return asdict(self)


def _timed_steps(pair, request: Request, profile=None):
    """Decode `request` a round at a time, yielding after each round; returns (trace, seconds) with
    only the decoder's own time counted (prefill included), not what ran while it was paused. The
    pair's device is synchronised before each clock read (a GPU queues its work)."""
    device = getattr(pair, "device", "cpu")
    sync(device)
    start = time.perf_counter()
    decoder = Decoder(pair, request, display_top=0, keep_rows=False, profile=profile)   # decoding alone
    sync(device)
    seconds = time.perf_counter() - start
    while not decoder.done:
        start = time.perf_counter()
        decoder.step()
        sync(device)
        seconds += time.perf_counter() - start
        yield
    return decoder.trace(), seconds


def run_to_end(steps):
    """Run a generator of steps (`measure_steps`, `ModelService.generation_steps`) to its end and return
    its result: the steps' form run at once, where nothing waits its turn between them."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def predicted(alpha: float, mean_gamma: float, c: float) -> float:
    """The analytic model's speed-up E / (1 + γc) at the rounds' mean draft length (rounded, ≥ 1)."""
    return float(analytic.speedup(alpha, max(1, min(analytic.MAX_GAMMA, round(mean_gamma))), c))


def measure(pair: ModelPair, request: Request, *, warmup: bool = True,
            plain: tuple[GenerationTrace, float] | None = None, profile=None
            ) -> tuple[Measurement, GenerationTrace, GenerationTrace]:
    """Plain target decoding (`request.plain()`) and speculative decoding of `request` (lab.core.request),
    wall-timed end to end (prefill included). Not the request, so separate: `warmup` (a short
    generation first, kept out of the timings), `plain` (a (trace, seconds) already measured, reused)
    and `profile` (the machine's cost profile an auto policy prices with)."""
    return run_to_end(measure_steps(pair, request, warmup=warmup, plain=plain, profile=profile))


def measure_steps(pair: ModelPair, request: Request, *, warmup: bool = True,
                  plain: tuple[GenerationTrace, float] | None = None, profile=None):
    """`measure` as a generator that yields after every decoding round and returns its result, so the
    model worker can let another student's work run between rounds; only the rounds are timed. An
    auto policy prices its rounds with `profile`, the pair's cost profile (lab.speed.costs; None:
    fixed estimates, lab.core.adaptive)."""
    load = costs.load_average()
    if warmup:   # first calls pay one-off allocation costs; keep them out of both timings
        generate(pair, replace(request, seed=0, max_new_tokens=min(4, request.max_new_tokens)), profile=profile)
        yield
    if plain is None:
        plain = yield from _timed_steps(pair, request.plain())
    plain_trace, plain_s = plain
    spec, spec_s = yield from _timed_steps(pair, request, profile)
    settings = request.settings
    alpha = spec.alpha or 0.0
    c = (spec.mean_draft_seconds or 0.0) / plain_trace.mean_target_seconds
    m = Measurement(
        target=pair.target_label, draft=pair.draft_label, drafter=spec.drafter, policy=spec.policy,
        gamma=spec.gamma, new_tokens=len(spec.new_ids), alpha=alpha, tokens_per_round=spec.tokens_per_round,
        c=c, predicted_speedup=predicted(alpha, spec.drafted / max(1, spec.target_calls), c),
        measured_speedup=plain_s / spec_s,
        matches_target_greedy=(spec.new_ids == plain_trace.new_ids) if settings.greedy else None,
        text=spec.text, plain_seconds=plain_s, speculative_seconds=spec_s,
        mean_target_seconds=plain_trace.mean_target_seconds, mean_draft_seconds=spec.mean_draft_seconds or 0.0,
        settings=settings.describe(), load=load, cores=costs.cores(),
        device=getattr(pair, "device", "cpu"), dtype=getattr(pair, "dtype", "float32"),
        rounds=len(spec.rounds), drafted_rounds=payoff.rounds_of(spec)[0])
    return m, plain_trace, spec


def _all_exact(flags: list[bool | None]) -> bool | None:
    """True when every output matched plain decoding; None when some could not be compared."""
    return None if None in flags else all(flags)


def measure_set(pair: ModelPair, prompts: dict[str, list[str]], request: Request = Request(()), *,
                per_category: int | None = None, repeats: int = 1, draftings: list[tuple[str, str]] | None = None,
                progress=None, profile=None) -> dict:
    """Every prompt of a set (category → prompts) decoded plainly and with each drafting
    (drafter, policy) — default: the pair's own — back to back, so machine drift hits all alike, as
    `request` says (its settings, seed, length and γ: `request.gamma` replaces each policy's γ when
    given; its prompt, drafter and policy are each prompt's and drafting's).
    Pooled per category and drafting:
        α                = kept ÷ (kept + rejected) guesses (lab.core.trace.acceptance_rate)
        tokens per call  = new tokens ÷ target calls
        c                = mean draft call ÷ mean one-position target call
        speed-up         = plain decoding time ÷ speculative decoding time (same prompts, same lengths)
    "overall" is the mean of the categories (each counts once); each row and the overall say how
    often the drafting guessed and whether it pays (lab.speed.payoff.verdict). An auto policy prices
    with `profile`, the pair's cost profile, measured here first when not given."""
    from lab.prompts import encode_prompt
    draftings = draftings or [(pair.drafter, pair.policy)]
    load = costs.load_average()
    if profile is None and any(prices_with_profile(policy) for _, policy in draftings):   # "auto" prices with it
        if progress:
            progress(0.0, "measuring the pair's cost profile")
        profile = costs.measure_profile(pair)
    todo = [(cat, p) for cat, ps in prompts.items() for p in ps[:per_category]]
    pooled: dict[tuple[str, str], dict[str, dict]] = {d: {} for d in draftings}
    for i, (cat, text) in enumerate(todo):
        if progress:
            progress(i / len(todo), f"measuring {cat} ({i + 1} of {len(todo)} prompts)")
        asked = replace(request, prompt_ids=encode_prompt(pair.tokenizer, text))
        for r in range(repeats):
            plain = run_to_end(_timed_steps(pair, asked.plain()))
            for drafter, policy in draftings:
                m, plain_trace, spec = measure(pair, replace(asked, drafter=drafter, policy=policy),
                                               warmup=i == 0 and r == 0, plain=plain, profile=profile)
                acc = pooled[(drafter, policy)].setdefault(cat, {
                    "prompts": set(), "accepted": 0, "rejected": 0, "drafted": 0, "tokens": 0, "calls": 0,
                    "plain": 0.0, "spec": 0.0, "target": [], "draft": [], "exact": [], "rounds": 0, "drafted_rounds": 0})
                acc["prompts"].add(text)
                acc["accepted"] += spec.accepted
                acc["rejected"] += spec.rejected
                acc["drafted"] += spec.drafted
                acc["tokens"] += len(spec.new_ids)
                acc["calls"] += spec.target_calls
                acc["plain"] += m.plain_seconds
                acc["spec"] += m.speculative_seconds
                acc["target"] += [rd.target_seconds for rd in plain_trace.rounds]
                acc["draft"] += [d.draft_seconds for rd in spec.rounds for d in rd.guesses]
                acc["exact"].append(m.matches_target_greedy)
                acc["drafted_rounds"] += payoff.rounds_of(spec)[0]
                acc["rounds"] += len(spec.rounds)
    reports = {f"{d} ({p})": _report(d, p, pooled[(d, p)]) for d, p in draftings}
    return {"target": pair.target_label, "draft": pair.draft_label, "device": pair.device, "dtype": pair.dtype,
            "gamma": request.gamma, "load": load, "cores": costs.cores(),
            "settings": request.settings.describe(), "max_new_tokens": request.max_new_tokens, "repeats": repeats,
            "draftings": reports}


def _report(drafter: str, policy: str, pooled: dict[str, dict]) -> dict:
    rows = {}
    for cat, a in pooled.items():
        target_s, draft_s = sum(a["target"]) / len(a["target"]), sum(a["draft"]) / max(1, len(a["draft"]))
        alpha, c = acceptance_rate(a["accepted"], a["rejected"]) or 0.0, draft_s / target_s
        rows[cat] = {"prompts": len(a["prompts"]), "alpha": alpha, "tokens_per_call": a["tokens"] / a["calls"],
                     "c": c, "speedup": a["plain"] / a["spec"],
                     "predicted_speedup": predicted(alpha, a["drafted"] / a["calls"], c),
                     "exact": _all_exact(a["exact"]), "target_ms": 1e3 * target_s, "draft_ms": 1e3 * draft_s,
                     "rounds": a["rounds"], "drafted_rounds": a["drafted_rounds"]}
        rows[cat]["verdict"] = payoff.verdict(rows[cat]["speedup"], a["drafted_rounds"], a["rounds"])
    keys = ("alpha", "tokens_per_call", "c", "speedup", "predicted_speedup")
    overall = {k: sum(r[k] for r in rows.values()) / len(rows) for k in keys}
    for k in ("prompts", "rounds", "drafted_rounds"):
        overall[k] = sum(r[k] for r in rows.values())
    overall["exact"] = _all_exact([r["exact"] for r in rows.values()])
    overall["verdict"] = payoff.overall_verdict(rows, overall["speedup"])
    return {"drafter": drafter, "policy": policy, "categories": rows, "overall": overall}
