"""Step 4 of distillation: α, c and the measured speed-up of a pair, per held-out prompt category.

Greedy, γ = 4, 64 new tokens, fp32, KV caches for both models (rolled back after each round).
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
from transformers import DynamicCache

from lab.pair import ModelPair, load_named
from models.distil.train import GAMMA, NEW_TOKENS, heldout_prompts


class Cached:
    """One model with its KV cache; `feed` returns the logits of the last position and the time taken."""

    def __init__(self, model):
        self.model, self.cache, self.times = model, DynamicCache(), []

    @property
    def length(self) -> int:
        return self.cache.get_seq_length()

    def feed(self, ids: list[int], record: bool = True) -> torch.Tensor:
        t0 = time.perf_counter()
        logits = self.model(torch.tensor([ids]), past_key_values=self.cache, use_cache=True).logits[0]  # (T, V)
        if record:
            self.times.append(time.perf_counter() - t0)
        return logits

    def crop(self, length: int) -> None:
        if length < self.length:
            self.cache.crop(length - self.length)  # transformers 5: a negative count removes tokens


@torch.no_grad()
def plain(pair: ModelPair, prompt: list[int], n: int) -> tuple[list[int], float, list[float]]:
    target = Cached(pair.target)
    t0 = time.perf_counter()
    logits = target.feed(prompt, record=False)
    out = []
    while len(out) < n:
        out.append(int(logits[-1].argmax()))
        if out[-1] == pair.eos_token_id:
            break
        logits = target.feed(out[-1:])
    return out, time.perf_counter() - t0, target.times


@torch.no_grad()
def speculative(pair: ModelPair, prompt: list[int], n: int, gamma: int = GAMMA):
    """Greedy speculative decoding; both caches always hold all but the last token of `seq`."""
    target, draft = Cached(pair.target), Cached(pair.draft)
    t0 = time.perf_counter()
    seq = list(prompt)
    target.feed(seq[:-1], record=False)
    draft.feed(seq[:-1], record=False)
    accepted = drafted = 0
    while len(seq) - len(prompt) < n:
        proposal = []
        logits = draft.feed(seq[draft.length:])
        for _ in range(gamma):
            proposal.append(int(logits[-1].argmax()))
            if len(proposal) < gamma:
                logits = draft.feed(proposal[-1:])
        verify = target.feed(seq[target.length:] + proposal).argmax(-1)[-gamma - 1:].tolist()  # (γ+1,)
        k = 0
        while k < gamma and proposal[k] == verify[k]:
            k += 1
        accepted, drafted = accepted + k, drafted + gamma
        seq += proposal[:k] + [verify[k]]
        target.crop(len(seq) - 1)
        draft.crop(min(draft.length, len(seq) - 1))
        if pair.eos_token_id in seq[len(prompt):]:
            break
    new = seq[len(prompt):]
    if pair.eos_token_id in new:
        new = new[: new.index(pair.eos_token_id) + 1]
    return new[:n], time.perf_counter() - t0, accepted, drafted, draft.times


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
            speculative(pair, ids, 4, gamma)  # warm-up
            for _ in range(repeats):
                ref, tp, target_times = plain(pair, ids, n)
                got, ts, a, d, draft_times = speculative(pair, ids, n, gamma)
                exact &= got == ref
                acc, dr, t_plain, t_spec = acc + a, dr + d, t_plain + tp, t_spec + ts
                tt += target_times
                dt += draft_times
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
