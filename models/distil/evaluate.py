"""Step 4 of distillation: α, c and the measured speed-up of a pair, per held-out prompt category.

Greedy, γ = 4, 64 new tokens, fp32, through the lab's own engine (lab.speed.measure: plain and speculative
decoding of the same prompt, KV caches rolled back after each round).
    α        = kept ÷ (kept + rejected) guesses, per guess (lab.core.trace.acceptance_rate)
    c        = mean draft forward (one token, cached) ÷ mean target forward (one token, cached)
    speed-up = plain target decoding time ÷ speculative decoding time (same tokens: greedy is exact)

    python -m models.distil.evaluate --pair smollm2-distilled [--threads 1] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys

import torch

from lab.core.request import Request
from lab.speed.measure import measure_set
from lab.pairs.load import ModelPair, load_named
from lab.prompts import heldout_prompts
from models.distil.train import ALPHA_IS, GAMMA, NEW_TOKENS


def evaluate(pair: ModelPair, n: int = NEW_TOKENS, gamma: int = GAMMA, repeats: int = 1, limit: int = 0) -> dict:
    """Per category and overall: α, c, speed-up, exactness (lab.speed.measure.measure_set)."""
    report = measure_set(pair, heldout_prompts(), Request((), gamma=gamma, max_new_tokens=n), per_category=limit or None,
                         repeats=repeats, draftings=[("model", "constant")])
    (run,) = report["draftings"].values()
    for cat, row in run["categories"].items():
        print(json.dumps({cat: {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}}), flush=True)
    return {**run["categories"], "overall": run["overall"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", default="smollm2-distilled")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="prompts per category (0: all)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    pair = load_named(args.pair)
    print(f"pair {args.pair}: {pair.target_label} / {pair.draft_label} {pair.notes.get('provisional', '')}", flush=True)
    rows = evaluate(pair, repeats=args.repeats, limit=args.limit)
    print(json.dumps({"overall": rows["overall"]}), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"pair": args.pair, "threads": args.threads, "alpha_is": ALPHA_IS, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
