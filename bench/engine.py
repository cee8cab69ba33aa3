"""Our engine against transformers' assisted generation and plain decoding, side by side.

    python bench/engine.py [--pair NAME | --tiny] [--gamma 4] [--max-new-tokens 64] [--repeats 3]

Prints tokens/s of each (median of the repeats, interleaved so machine drift hits all alike), the
ratios, and whether the greedy outputs are identical.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from lab.engine import generate  # noqa: E402

PROMPTS = ["def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
           "The capital of France is",
           '{"name": "Ada Lovelace", "born": 1815, "fields": ['] 


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", default=None)
    ap.add_argument("--tiny", action="store_true", help="the tiny random pair (no models needed)")
    ap.add_argument("--gamma", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)

    if args.tiny:
        from lab.tiny import tiny_pair
        pair = tiny_pair("llama")
    else:
        from lab.pair import load_named, default_name
        pair = load_named(args.pair or default_name())
    n, g = args.max_new_tokens, args.gamma

    def ours(ids):
        return generate(pair, ids, gamma=g, max_new_tokens=n, display_top=0).new_ids

    def plain(ids):
        return generate(pair, ids, mode="plain", max_new_tokens=n, display_top=0).new_ids

    def assisted(ids):
        out = pair.target.generate(
            torch.tensor([ids]), assistant_model=pair.draft, do_sample=False, max_new_tokens=n,
            num_assistant_tokens=g, num_assistant_tokens_schedule="constant",
            assistant_confidence_threshold=0.0, pad_token_id=pair.eos_token_id)
        new = out[0, len(ids):].tolist()
        eos = pair.eos_token_id          # ours stops at EOS too; compare like with like
        return new[: new.index(eos) + 1] if eos in new else new

    runners = {"ours (speculative)": ours, "transformers assisted": assisted, "plain decoding": plain}
    print(f"pair: {pair.target_label} / {pair.draft_label}; greedy; γ = {g}; max_new_tokens = {n}; "
          f"torch threads = {torch.get_num_threads()}")
    totals = {name: [] for name in runners}
    identical = True
    for prompt in PROMPTS:
        ids = pair.tokenizer.encode(prompt, add_special_tokens=False)
        for run in runners.values():
            run(ids[:])   # warm-up
        outputs = {}
        for _ in range(args.repeats):
            for name, run in runners.items():
                start = time.perf_counter()
                outputs[name] = run(ids[:])
                totals[name].append(len(outputs[name]) / (time.perf_counter() - start))
        same = len({tuple(o) for o in outputs.values()}) == 1
        identical &= same
        print(f"  prompt {prompt[:30]!r:34} tokens {len(outputs['plain decoding']):3}  identical greedy output: {same}")
    med = {name: statistics.median(v) for name, v in totals.items()}
    print(f"\n{'engine':24} tokens/s")
    for name, v in med.items():
        print(f"{name:24} {v:8.1f}")
    print(f"\nours ÷ transformers assisted: {med['ours (speculative)'] / med['transformers assisted']:.2f}×")
    print(f"ours ÷ plain decoding:        {med['ours (speculative)'] / med['plain decoding']:.2f}×")
    print(f"assisted ÷ plain decoding:    {med['transformers assisted'] / med['plain decoding']:.2f}×")
    print(f"identical greedy output everywhere: {identical}")


if __name__ == "__main__":
    main()
