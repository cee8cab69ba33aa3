"""Step 4 of distillation: α, c and the measured speed-up of a pair, per held-out prompt category.

Greedy, γ = 4, 64 new tokens, fp32, through the lab's own engine (lab.measure: plain and speculative
decoding of the same prompt, KV caches rolled back after each round).
    α        = accepted draft tokens ÷ drafted tokens
    c        = mean draft forward (one token, cached) ÷ mean target forward (one token, cached)
    speed-up = plain target decoding time ÷ speculative decoding time (same tokens: greedy is exact)

    python -m models.distil.evaluate --pair smollm2-distilled [--threads 1] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from lab.measure import measure
from lab.pair import ModelPair, load_named
from models.distil.train import GAMMA, NEW_TOKENS, heldout_prompts


def evaluate(pair: ModelPair, n: int = NEW_TOKENS, gamma: int = GAMMA, repeats: int = 1, limit: int = 0) -> dict:
    rows = {}
    for cat, prompts in heldout_prompts().items():
        prompts = prompts[:limit] if limit else prompts
        acc = dr = 0
        t_plain = t_spec = 0.0
        tt, dt = [], []
        exact = True
        for text in prompts:
            ids = pair.tokenizer.encode(text, add_special_tokens=False)
            for _ in range(repeats):
                m, plain_trace, spec_trace = measure(pair, ids, gamma=gamma, max_new_tokens=n)
                exact &= bool(m.matches_target_greedy)
                acc, dr = acc + spec_trace.accepted, dr + spec_trace.drafted
                t_plain, t_spec = t_plain + m.plain_seconds, t_spec + m.speculative_seconds
                tt += [r.target_seconds for r in plain_trace.rounds]
                dt += [d.draft_seconds for r in spec_trace.rounds for d in r.drafts]
        c = (sum(dt) / len(dt)) / (sum(tt) / len(tt))
        rows[cat] = {"alpha": acc / dr, "c": c, "speedup": t_plain / t_spec, "exact": exact,
                     "target_ms": 1e3 * sum(tt) / len(tt), "draft_ms": 1e3 * sum(dt) / len(dt)}
        print(json.dumps({cat: {k: round(v, 3) if isinstance(v, float) else v for k, v in rows[cat].items()}}),
              flush=True)
    cats = list(rows)
    rows["overall"] = {k: sum(rows[c][k] for c in cats) / len(cats) for k in ("alpha", "c", "speedup")}
    rows["overall"]["exact"] = all(rows[c]["exact"] for c in cats)
    return rows


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
            json.dump({"pair": args.pair, "threads": args.threads, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
