"""What each round of the auto policy costs against what it priced it at (issue 51's check of the prices).

For every prompt, plain decoding first (its median step is the unit, a plain step), then the
speculative decoding with the policy, one round at a time: each round's wall time in plain steps
beside the price the policy charged it (the growth of `AutoSchedule.spent`, in one-position target
calls, which a plain step is). Rounds are grouped by what the policy chose (lookup, the draft model,
a probe of it, a plain step) and by their guesses k:

    wall     the round's mean wall time ÷ a plain step's
    priced   the policy's price of it
    excess   wall − priced: work the prices leave out (> 0) or count twice (< 0)
    calls    the round's model calls alone: its target call and its guesses' time (the draft
             model's calls and catch-up; for lookup, finding the copy)
    engine   wall − calls: the engine's own work around the calls (q rows, accept tests, the
             bookkeeping of the round and of the policy)

    python bench/roundcost.py [--pair smollm2-distilled] [--policy auto:12+confidence:0.7]
        [--drafter model] [--set dev] [--per-category 2] [--categories edit code]

Tune on models/dev_prompts.json only (the default set). About a minute on the idle 2-core machine
for the default 2 prompts a kind; the machine must be idle (every figure is a timing).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", default="smollm2-distilled")
    ap.add_argument("--policy", default="auto:12+confidence:0.7")
    ap.add_argument("--drafter", help="who drafts (model, lookup, hybrid; default: the pair's own)")
    ap.add_argument("--set", default="dev", help="models/SET_prompts.json (default: dev, the tuning set)")
    ap.add_argument("--per-category", type=int, default=2)
    ap.add_argument("--categories", nargs="+", help="only these kinds of text")
    ap.add_argument("--tokens", type=int, default=48)
    args = ap.parse_args(argv)
    from lab.core.adaptive import prices_with_profile
    if not prices_with_profile(args.policy):
        ap.error("--policy must be an auto policy: only its rounds carry prices")
    import torch
    torch.set_num_threads(2)
    from lab.core.engine import Decoder
    from lab.core.request import Request
    from lab.pairs.load import load_named
    from lab.prompts import encode_prompt, heldout_prompts
    from lab.speed import costs
    pair = load_named(args.pair)
    profile = costs.measure_profile(pair)
    print(f"pair {args.pair}, {args.policy}; profile c = {profile.c:.3f}, v(2) = {profile.verify_units(2):.2f}, "
          f"v(5) = {profile.verify_units(5):.2f}{' (busy)' if profile.busy else ''}, a call {profile.unit * 1e3:.1f} ms")
    rounds = defaultdict(list)          # (choice, source, k) → [(wall in plain steps, priced)]
    for cat, texts in heldout_prompts(ROOT / "models" / f"{args.set}_prompts.json").items():
        if args.categories and cat not in args.categories:
            continue
        for text in texts[:args.per_category]:
            request = Request(encode_prompt(pair.tokenizer, text), drafter=args.drafter, policy=args.policy,
                              max_new_tokens=args.tokens)
            plain, steps = Decoder(pair, request.plain(), keep_rows=False, display_top=0, profile=profile), []
            while not plain.done:
                started = time.perf_counter()
                plain.step()
                steps.append(time.perf_counter() - started)
            unit = statistics.median(steps[1:] or steps)
            spec = Decoder(pair, request, keep_rows=False, display_top=0, profile=profile)
            while not spec.done:
                spent, started = spec.schedule.spent, time.perf_counter()
                r = spec.step()
                took = (time.perf_counter() - started) / unit
                calls = (r.target_seconds + sum(g.draft_seconds for g in r.guesses)) / unit
                choice = spec.schedule.choice if r.gamma else "plain"
                rounds[(choice, r.draft_source, r.gamma)].append((took, spec.schedule.spent - spent, calls))
            print(f"  {cat:<13} {text[:40]!r}: a plain step {unit * 1e3:.1f} ms", file=sys.stderr, flush=True)
    print(f"{'choice':<8}{'source':<8}{'k':>3}{'rounds':>8}{'wall':>8}{'priced':>8}{'excess':>8}{'calls':>8}{'engine':>8}")
    for (choice, source, k), seen in sorted(rounds.items()):
        wall, priced, calls = (statistics.mean(row[i] for row in seen) for i in range(3))
        print(f"{choice:<8}{source:<8}{k:>3}{len(seen):>8}{wall:>8.3f}{priced:>8.3f}{wall - priced:>+8.3f}"
              f"{calls:>8.3f}{wall - calls:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
