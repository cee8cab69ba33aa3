"""Replay the default drafting on recorded greedy texts, with no model call: how much of the best
possible speed-up the auto policy takes, priced by the pair's cost profile (issue 51's tuning tool).

With greedy decoding everything a round can do is fixed by the text the target writes: prompt lookup
proposes what followed the trailing n-gram earlier, and the draft model's guesses, while they are
kept, are its argmax at each next position of that text. So one plain decoding and one draft pass
over the result (`record`) give every round of every policy (`price`):

    policy   lab.core.adaptive.AutoSchedule (hybrid: lookup, then the draft model) as the engine
             runs it, each round priced as lab.core.adaptive prices it (a verify pass over k + 1
             positions, k draft calls, the draft model's catch-up)
    gate τ   the draft model guessing while its own probability of its guess is at least τ (its
             first guess below τ is dropped, its call paid), lookup where lookup has been right
    oracle   the cheapest rounds in hindsight (each round: a plain step, or any length of lookup or
             of the draft model): no policy with these drafters and prices does better

and, before them, what the draft model allows on these texts at all: α (its greedy guess equal to
the target's token, over every position), the lecture's formula at that α (its best γ, a verify pass
costing one call: analytic.best_gamma) and the same with the measured prices ("priced": rounds of
one length of the draft model's guesses). The policy can beat these only where the guesses come in
runs (α bursty), as the oracle's rounds do.

    python bench/replay.py record --sets dev [--pair smollm2-distilled] [--tokens 48] --out texts.json
    python bench/replay.py price texts.json [--gate 0.7] [--set Z=0.5 DECAY=0.6] [--only fresh4]

(models/drafting/tune.py scans the constant and heuristic schedules over such texts; this replays the
auto policy, whose every choice reads the committed text.) `record` takes about a minute a set on the idle 2-core machine and stores the pair's cost profile,
measured then (busy-flagged); `price` takes a second. Priced speed-ups are what bench/defaults.py
calls "priced"; its wall figures are the check.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.defaults import SETS  # noqa: E402

GAMMA = 12           # the embedded pair's auto:12


def record(args) -> int:
    import torch
    torch.set_num_threads(args.threads)
    from lab.core.engine import generate
    from lab.core.kv import CachedModel
    from lab.core.request import Request
    from lab.pairs.load import load_named
    from lab.prompts import encode_prompt, heldout_prompts
    from lab.speed import costs
    pair = load_named(args.pair)
    profile = costs.measure_profile(pair)
    out = {"_profile": {"c": profile.c, "busy": profile.busy, "unit": profile.unit,
                        "verify": [profile.verify_units(n) for n in range(1, profile.max_positions + 1)]}}
    for name in args.sets:
        for cat, texts in heldout_prompts(SETS[name]).items():
            for text in texts:
                ids = encode_prompt(pair.tokenizer, text)
                new = generate(pair, Request(ids, max_new_tokens=args.tokens).plain(), display_top=0).new_ids
                logits, _ = CachedModel(pair.draft).forward(ids + new)
                q = torch.softmax(logits[len(ids) - 1: len(ids) - 1 + len(new)], -1)
                out.setdefault(cat, []).append({"set": name, "text": text, "prompt": ids, "new": new,
                                                "draft": q.argmax(-1).tolist(), "conf": q.max(-1).values.tolist()})
                print(f"{name} {cat:<13} {text[:50]!r}", file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(out))
    return 0


class Texts:
    """One recorded text: the prompt, the target's greedy continuation, the draft model's argmax and
    its probability at each position of it."""

    def __init__(self, item: dict):
        self.prompt, self.new, self.draft, self.conf = item["prompt"], item["new"], item["draft"], item["conf"]

    def lookup(self, pos: int, cap: int) -> tuple[list[int], int]:
        """Lookup's proposal at `pos` (the copy found for γ, cut to cap tokens, as the engine proposes
        it) and how many of it the target keeps."""
        from lab.core.drafting import LookupDrafter
        guess = LookupDrafter.find(self.prompt + self.new[:pos], GAMMA)[:cap] if cap > 0 else []
        return guess, self.run(guess, pos)

    def run(self, guess: list[int], pos: int) -> int:
        kept = 0
        while kept < len(guess) and pos + kept < len(self.new) and guess[kept] == self.new[pos + kept]:
            kept += 1
        return kept

    def model(self, pos: int, k: int) -> int:
        """How many of the draft model's k guesses at `pos` the target keeps."""
        return self.run(self.draft[pos:pos + k], pos)


def policy_rounds(t: Texts, pricing, threshold: float = 0.0) -> list[tuple[str, int, int, float]]:
    """The auto policy's rounds on one text, as the engine runs them: (who guessed, how many, how
    many were kept, the round's priced time). With a confidence threshold ("+confidence:τ") the draft
    model stops after a guess it gives less than τ; past its first miss its guesses' confidence is
    read at the text's own positions (an approximation: only how many it guesses matters there)."""
    from lab.core import adaptive
    s = adaptive.AutoSchedule(GAMMA, pricing=pricing, threshold=threshold)
    pos, rounds = 0, []
    while pos < len(t.new):
        ids = t.prompt + t.new[:pos]
        cap = min(GAMMA, len(t.new) - pos - 1)
        caps = s.caps(ids) if cap > 0 else {"lookup": 0, "model": 0}
        guess, kept = t.lookup(pos, min(cap, caps["lookup"])) if caps["lookup"] else ([], 0)
        source, k, sure = "lookup", len(guess), None
        if not guess and caps["model"] and cap:
            source, k = "model", min(cap, caps["model"])
            if threshold:
                sure = next((i for i in range(k) if t.conf[pos + i] < threshold), k)
                k = min(k, sure + 1)
            kept = t.model(pos, k)
        source = source if k else "none"
        rounds.append((source, k, kept, s.round_cost(source, k, ids)))
        pos += kept + 1
        s.update(k, kept, source, t.prompt + t.new[:pos], sure)
    return rounds


def replay_policy(t: Texts, pricing, threshold: float = 0.0) -> tuple[float, int, int]:
    """The auto policy's priced time, rounds and rounds that guessed on one text."""
    rounds = policy_rounds(t, pricing, threshold)
    return sum(r[3] for r in rounds), len(rounds), sum(1 for r in rounds if r[1])


def replay_gate(t: Texts, pricing, tau: float) -> tuple[float, int, int]:
    """A draft model that stops before its first guess below τ; lookup where its mean α is above ½."""
    from lab.core.adaptive import DECAY
    kept_l, missed_l = 1.0, 1.0
    pos, time, rounds, drafted = 0, 0.0, 0, 0
    while pos < len(t.new):
        cap = min(GAMMA, len(t.new) - pos - 1)
        guess, kl = t.lookup(pos, cap)
        if guess and kept_l / (kept_l + missed_l) > 0.5:
            k, kept, cost = len(guess), kl, pricing.verify_units(len(guess) + 1)
        else:
            k = 0
            while k < cap and t.conf[pos + k] >= tau:
                k += 1
            calls = k + (k < cap)            # the call whose guess fell below τ is paid too
            kept = t.model(pos, k)
            cost = pricing.verify_units(k + 1) + pricing.draft_call * calls if cap else 1.0
        if guess:
            kept_l, missed_l = DECAY * kept_l + kl, DECAY * missed_l + (kl < len(guess))
        time, rounds, drafted = time + cost, rounds + 1, drafted + (k > 0)
        pos += kept + 1
    return time, rounds, drafted


def replay_oracle(t: Texts, pricing) -> tuple[float, int, int]:
    """The cheapest rounds in hindsight (dynamic programming from the end of the text)."""
    n, v, c = len(t.new), pricing.verify_units, pricing.draft_call
    best = [0.0] * (n + 1)
    for pos in range(n - 1, -1, -1):
        cap = min(GAMMA, n - pos - 1)
        guess, kl = t.lookup(pos, cap)
        km = t.model(pos, cap)
        options = [1 + best[pos + 1]]
        options += [v(k + 1) + best[pos + min(kl, k) + 1] for k in range(1, len(guess) + 1)]
        options += [v(k + 1) + c * k + best[pos + min(km, k) + 1] for k in range(1, cap + 1)]
        best[pos] = min(options)
    return best[0], 0, 0


def formula_priced(alpha: float, pricing) -> float:
    """The best speed-up of draft-model rounds of one length at the texts' mean α, with the measured
    prices (a verify pass over k + 1 positions, k draft calls and the engine's work per guess)."""
    from lab.core.adaptive import OVERHEAD, best_length, expected_rate
    cost = pricing.draft_call + OVERHEAD
    k = best_length(alpha, GAMMA, cost, verify=pricing.verify_units)
    return expected_rate(alpha, k, cost, pricing.verify_units)


def price(args) -> int:
    from lab.core import adaptive
    from lab.core.analytic import best_gamma
    data = json.loads(Path(args.texts).read_text())
    for setting in args.set or []:
        name, value = setting.split("=")
        setattr(adaptive, name, float(value))
        if name == "Z":                               # lower_bound's default was read at import
            adaptive.lower_bound.__defaults__ = (float(value),)
    p = data["_profile"]
    class Profile:                                   # (texts recorded before "unit" was stored: the constants')
        c, max_positions, unit = p["c"], len(p["verify"]), p.get("unit", adaptive.UNIT)
        verify_units = staticmethod(lambda n: p["verify"][n - 1])
    pricing = adaptive.prices(Profile())             # as the engine prices: the profile's robust line
    if args.raw:                                     # or each verify pass as it was timed
        pricing = replace(pricing, verify=tuple(p["verify"]))
    print(f"profile: c = {pricing.draft_call:.3f}, v(2) = {pricing.verify_units(2):.2f}, "
          f"v(5) = {pricing.verify_units(5):.2f}{' (busy when recorded)' if p.get('busy') else ''}")
    runs = {"policy": replay_policy, "oracle": replay_oracle}
    for tau in args.confidence or []:
        runs[f"policy+conf {tau:g}"] = lambda t, pr, tau=tau: replay_policy(t, pr, tau)
    if args.gate is not None:
        runs[f"gate {args.gate}"] = lambda t, pr: replay_gate(t, pr, args.gate)
    widths = {"α": 6, "formula": 9, "priced": 8, **{name: 16 for name in runs}}    # the columns after the kind's
    print(f"{'category':<14}{'texts':>6}" + "".join(f"{name:>{w}}" for name, w in widths.items()))
    for cat, items in data.items():
        if cat.startswith("_"):
            continue
        texts = [Texts(item) for item in items if not args.only or item["set"] in args.only]
        if not texts:
            continue
        tokens = sum(len(t.new) for t in texts)
        alpha = sum(g == x for t in texts for g, x in zip(t.draft, t.new)) / tokens
        cells = [f"{alpha:.2f}", f"{float(best_gamma(alpha, pricing.draft_call)[1]):.2f}×",
                 f"{formula_priced(alpha, pricing):.2f}×"]
        for run in runs.values():
            results = [run(t, pricing) for t in texts]
            time, rounds, drafted = (sum(r[i] for r in results) for i in range(3))
            cells.append(f"{tokens / time:.2f}×" + (f" ({drafted}/{rounds})" if rounds else ""))
        print(f"{cat:<14}{len(texts):>6}" + "".join(f"{cell:>{w}}" for cell, w in zip(cells, widths.values())))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record greedy texts and the draft model's guesses")
    rec.add_argument("--sets", nargs="+", choices=list(SETS), default=["dev"])
    rec.add_argument("--pair", default="smollm2-distilled")
    rec.add_argument("--tokens", type=int, default=48)
    rec.add_argument("--threads", type=int, default=2)
    rec.add_argument("--out", required=True)
    pr = sub.add_parser("price", help="replay the policies on recorded texts")
    pr.add_argument("texts")
    pr.add_argument("--gate", type=float, help="also a draft model gated by its confidence τ")
    pr.add_argument("--confidence", type=float, nargs="*", help="also the policy with these confidence thresholds")
    pr.add_argument("--set", nargs="*", help="lab.core.adaptive constants for this replay (Z=0.5 DECAY=0.6)")
    pr.add_argument("--raw", action="store_true", help="price with the recorded verify passes as measured")
    pr.add_argument("--only", nargs="+", choices=list(SETS), help="only the texts of these prompt sets")
    args = ap.parse_args(argv)
    return record(args) if args.command == "record" else price(args)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
