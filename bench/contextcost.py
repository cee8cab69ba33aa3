"""What a verify pass over k positions costs after a context of L tokens (issue 51: why the wall clock
runs below the priced time on long prompts). The cost profile (lab.speed.costs) times each pass after
a 64-token context; a decoding checks its guesses after the prompt and the text written so far.

For each context length L, a cached call of the target over k new positions, rolled back after each
(lab.speed.timing.verify_calls, as the profile times them), every (L, k) in turn per run after one
uncounted warm-up run; each pass in one-position calls at the same L (the fastest run's and the
median run's). Then the context lengths a set's prompts give each kind of text (prompt tokens, and
the same plus the new tokens: where a decoding's last round checks).

    python bench/contextcost.py [--pair smollm2-distilled] [--contexts 64 128 256 512]
        [--positions 1 2 3 5 7 9 13] [--runs 15] [--set fresh7] [--tokens 48]

About a minute on the idle 2-core machine; the machine must be idle (every figure is a timing).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", default="smollm2-distilled")
    ap.add_argument("--contexts", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--positions", type=int, nargs="+", default=[1, 2, 3, 5, 7, 9, 13])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--set", default="fresh7", help="models/SET_prompts.json: its prompts' context lengths")
    ap.add_argument("--tokens", type=int, default=48, help="new tokens a decoding writes")
    args = ap.parse_args(argv)
    if 1 not in args.positions:
        ap.error("--positions must include 1: every pass is counted in one-position calls")
    from lab.core.kv import CachedModel
    from lab.pairs.load import load_named
    from lab.prompts import DEFAULT_PROMPT, encode_prompt, heldout_prompts
    from lab.speed import costs
    from lab.speed.timing import fixed_threads, interleaved, verify_calls

    pair = load_named(args.pair)
    ids = encode_prompt(pair.tokenizer, DEFAULT_PROMPT)
    with fixed_threads() as threads:
        calls = {}
        for length in args.contexts:
            context = (ids * (length // len(ids) + 1))[:length]      # as the profile's, at this length
            for k, fn in verify_calls(CachedModel(pair.target), context, args.positions).items():
                calls[(length, k)] = fn
        load = costs.load_average()
        times = interleaved(calls, args.runs)
    print(f"pair {args.pair}: {pair.target_label}; {threads} threads, {args.runs} runs, load {load:.1f} before, "
          f"{costs.load_average():.1f} after")
    head = "".join(f"  v({k})" for k in args.positions if k > 1)
    for name, pick in (("fastest run", min), ("median run", statistics.median)):
        print(f"\n{name}: a pass over k positions ÷ a one-position call after the same context\n"
              f"   L  call ms{head}")
        for length in args.contexts:
            unit = pick(times[(length, 1)])
            ratios = "".join(f"  {pick(times[(length, k)]) / unit:5.2f}" for k in args.positions if k > 1)
            print(f"{length:4d}  {unit * 1e3:7.1f}{ratios}")
    path = ROOT / "models" / f"{args.set}_prompts.json"
    print(f"\ncontext lengths of {path.name} (tokens): prompt median [min–max]; + {args.tokens} new")
    for kind, texts in heldout_prompts(path).items():
        lengths = sorted(len(encode_prompt(pair.tokenizer, t)) for t in texts)
        print(f"  {kind:13s} {statistics.median(lengths):5.0f} [{lengths[0]}–{lengths[-1]}]; "
              f"{statistics.median(lengths) + args.tokens:5.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
