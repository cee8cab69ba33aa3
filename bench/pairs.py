"""How good are the embedded drafts? α, c and speed-up of each teaching pair on the held-out prompts.

Expect the random draft's α near 0 (a uniform guess over 49k tokens is almost never the target's
token), the weak draft well above it, and the distilled draft highest. Greedy, γ = 4, one prompt per
category (all with --all), timed by the lab's own engine (`lab.speed.measure`). α is per guess:
kept ÷ (kept + rejected) (lab.core.trace.acceptance_rate), the rate the lecture's formula takes.

    python bench/pairs.py [--pairs random weak smollm2-distilled] [--all] [--threads 1]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from lab.pairs.load import load_named  # noqa: E402
from lab.prompts import heldout_prompts  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", nargs="+", default=["random", "weak", "smollm2-distilled"])
    ap.add_argument("--all", action="store_true", help="every held-out prompt, not one per category")
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    from lab.core.drafting import LECTURE_POLICY
    from lab.core.request import Request
    from lab.speed.measure import measure

    prompts = {cat: (ps if args.all else ps[:1]) for cat, ps in heldout_prompts().items()}
    print(f"{'pair':<20}{'category':<14}{'alpha':>7}{'c':>7}{'speed-up':>10}{'exact':>7}")
    for name in args.pairs:
        pair = load_named(name)
        tot_a = tot_n = 0.0
        for cat, texts in prompts.items():
            rows = []
            for text in texts:
                ids = pair.tokenizer.encode(text, add_special_tokens=False)
                m, _, _ = measure(pair, Request(ids, drafter="model", policy=LECTURE_POLICY, gamma=4,
                                                max_new_tokens=args.tokens))
                rows.append(m)
            a = sum(r.alpha for r in rows) / len(rows)
            c = sum(r.c for r in rows) / len(rows)
            s = sum(r.measured_speedup for r in rows) / len(rows)
            exact = all(r.matches_target_greedy for r in rows)
            tot_a, tot_n = tot_a + a, tot_n + 1
            print(f"{name:<20}{cat:<14}{a:7.2f}{c:7.2f}{s:9.2f}x{'yes' if exact else 'NO':>7}", flush=True)
        print(f"{name:<20}{'mean':<14}{tot_a / tot_n:7.2f}   ({pair.draft_label})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
