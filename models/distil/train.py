"""Step 3 of distillation: train a small shortlist draft on the target's labels (resumable).

The draft: `--layers` Llama layers at the target's width, the target's (frozen, shared) embeddings,
and a head over a shortlist of token ids (see lab/pairs/draftmodels.py). Loss: cross-entropy against the
target's top-32 distribution restricted to the shortlist (forward KL up to a constant). bf16 autocast,
one thread. Every `--eval-every` steps: α on the held-out prompts (greedy, γ=4, exact simulation from
one teacher-forced draft pass over the target's greedy continuation); the best draft so far is
exported to models/smollm2-distilled/ and α against training time is appended to history.jsonl.

    nohup nice python -m models.distil.train --run l3 > $SPECLAB_CACHE/distil/train-l3.log &
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from lab.pairs.prepare import embedded_dir, ensure_embedded
from lab.pairs import draftmodels
from lab.prompts import heldout_prompts
from models.distil.corpus import distil_dir
from models.distil.label import SOURCES, load_texts

EXPORT = Path(__file__).resolve().parents[1] / "smollm2-distilled"
GAMMA = 4
NEW_TOKENS = 64


@torch.no_grad()
def target_continuations(target, tokenizer) -> dict[str, list[tuple[list[int], list[int]]]]:
    """The target's greedy continuation of every held-out prompt (fp32), cached on disk."""
    path = distil_dir() / "heldout_target.json"
    if path.exists():
        return json.loads(path.read_text())
    out = {}
    for cat, prompts in heldout_prompts().items():
        out[cat] = []
        for p in prompts:
            ids = tokenizer.encode(p, add_special_tokens=False)
            gen = target.generate(torch.tensor([ids]), max_new_tokens=NEW_TOKENS, do_sample=False,
                                  pad_token_id=tokenizer.eos_token_id)[0, len(ids):].tolist()
            out[cat].append((ids, gen))
    path.write_text(json.dumps(out))
    return out


ALPHA_IS = "kept ÷ (kept + rejected)"   # α as recorded; records without it hold kept ÷ drafted


def rounds_alpha(match: list[bool], gamma: int = GAMMA) -> tuple[int, int]:
    """(kept, judged) for greedy speculative decoding, given where the draft's greedy token equals the
    target's along the target's own sequence: a round keeps the leading matches, the first mismatch is
    rejected and the target adds one token, so the next round starts after them. α = kept ÷ judged,
    judged = kept + rejected (lab.core.trace.acceptance_rate: the guesses after a rejection, and those
    past the sequence's end, are never judged)."""
    i = accepted = judged = 0
    while i < len(match):
        n = 0
        while n < gamma and i + n < len(match) and match[i + n]:
            n += 1
        accepted += n
        judged += n + (n < gamma and i + n < len(match))      # the rejected guess, if the round had one
        i += n + 1
    return accepted, judged


@torch.no_grad()
def heldout_alpha(draft, continuations) -> dict[str, float]:
    draft.eval()
    per = {}
    tot_a = tot_d = 0
    for cat, items in continuations.items():
        a_sum = d_sum = 0
        for ids, gen in items:
            x = torch.tensor([ids + gen])
            pred = draft(x).logits[0, len(ids) - 1:-1].argmax(-1).tolist()
            a, d = rounds_alpha([p == g for p, g in zip(pred, gen)])
            a_sum, d_sum = a_sum + a, d_sum + d
        per[cat] = a_sum / max(d_sum, 1)
        tot_a, tot_d = tot_a + a_sum, tot_d + d_sum
    per["overall"] = tot_a / max(tot_d, 1)
    return per


def build_shortlist(tokenizer, size: int, label_dir: Path) -> torch.Tensor:
    """Token ids the draft may propose: what the target predicts in the labels (top-1 weighs most),
    then corpus frequency (each source weighted equally), then special tokens."""
    score = Counter()
    for shard in sorted(label_dir.glob("shard-*.npz")):
        d = np.load(shard)
        valid = d["top_p"][..., 0] > 0
        for k, w in ((0, 20.0), (1, 3.0), (2, 1.0), (3, 1.0)):
            ids, counts = np.unique(d["top_ids"][..., k][valid], return_counts=True)
            for i, c in zip(ids.tolist(), counts.tolist()):
                score[i] += w * c
    rng = random.Random(0)
    for name in SOURCES:
        texts = load_texts(name)
        counts = Counter()
        for t in rng.sample(texts, min(600, len(texts))):
            counts.update(tokenizer.encode(t, add_special_tokens=False))
        total = sum(counts.values())
        for i, c in counts.items():
            score[i] += 2e5 * c / total
    for i in tokenizer.all_special_ids:
        score[i] += 1e9
    # half by what we saw, the rest by BPE merge order (low ids = frequent in SmolLM2's own corpus),
    # which brings in everyday words our code-heavy corpus lacks
    chosen = {i for i, _ in score.most_common(size // 2)}
    for i in range(len(tokenizer)):
        if len(chosen) >= size:
            break
        chosen.add(i)
    return torch.tensor(sorted(chosen), dtype=torch.long)


class Labels:
    """All label shards written so far, reloaded as the labeller adds more."""

    def __init__(self, folder: Path):
        self.folder, self.shards, self.names = folder, [], set()
        self.generated_share = 0.5

    def refresh(self) -> None:
        for f in sorted(self.folder.glob("shard-*.npz")):
            if f.name not in self.names:
                d = np.load(f)
                self.shards.append({k: d[k] for k in ("tokens", "lengths", "top_ids", "top_p", "n_generated")})
                self.names.add(f.name)

    @property
    def tokens(self) -> int:
        return sum(int(s["lengths"].sum()) for s in self.shards)

    def batch(self, rng: random.Random, size: int, length: int = 256):
        """`size` rows of `length` positions, each packed from whole labelled sequences (no padding
        compute wasted; a later sequence in a row also sees the earlier one, a harmless extra context)."""
        tokens, top_ids, top_p = [], [], []
        for _ in range(size):
            parts, n = [], 0
            while n < length:
                # newer shards have been seen less often so far: favour them a little
                s = self.shards[min(len(self.shards) - 1, int(len(self.shards) * rng.random() ** 0.7))]
                # half the rows from the target's own continuations (the text the draft will face in
                # the lab), half from corpus windows (the first n_generated rows of a shard are generated)
                n_gen = int(s["n_generated"])
                i = rng.randrange(n_gen) if rng.random() < self.generated_share else rng.randrange(n_gen, len(s["lengths"]))
                m = min(int(s["lengths"][i]), length - n)
                parts.append((s, i, m))
                n += m
            tokens.append(np.concatenate([s["tokens"][i, :m] for s, i, m in parts]))
            top_ids.append(np.concatenate([s["top_ids"][i, :m] for s, i, m in parts]))
            top_p.append(np.concatenate([s["top_p"][i, :m] for s, i, m in parts]))
        return (torch.from_numpy(np.stack(tokens).astype(np.int64)),  # (B, T)
                torch.from_numpy(np.stack(top_ids).astype(np.int64)),  # (B, T, K)
                torch.from_numpy(np.stack(top_p).astype(np.float32)))  # (B, T, K)


def distil_loss(draft, slot, tokens, top_ids, top_p, top1_weight: float = 0.0):
    """Cross-entropy of the draft's shortlist distribution against the target's top-K (renormalised
    over the targets inside the shortlist); positions past a sequence's end have p = 0. With
    `top1_weight` > 0, plus that much cross-entropy on the target's most likely token alone (greedy
    α only asks the draft to rank that token first)."""
    hidden = draft.model(input_ids=tokens).last_hidden_state  # (B, T, H)
    logq = torch.log_softmax(draft.lm_head.forward_small(hidden).float(), -1)  # (B, T, S)
    idx = slot[top_ids]  # (B, T, K) position in the shortlist, -1 if absent
    p = top_p * (idx >= 0)
    mass = p.sum(-1, keepdim=True)
    p = p / mass.clamp_min(1e-6)
    ce = -(p * logq.gather(-1, idx.clamp_min(0))).sum(-1)  # (B, T)
    if top1_weight:
        ce = ce - top1_weight * logq.gather(-1, idx[..., :1].clamp_min(0))[..., 0] * (idx[..., 0] >= 0)
    weight = (mass[..., 0] > 0).float()
    return (ce * weight).sum() / weight.sum().clamp_min(1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", default="l3")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--shortlist", type=int, default=16384)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--horizon-min", type=float, default=100.0, help="cosine decay over this much training time")
    ap.add_argument("--warmup", type=int, default=10, help="steps of linear warm-up")
    ap.add_argument("--eval-every", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seq-len", type=int, default=256, help="positions per training row")
    ap.add_argument("--generated-share", type=float, default=0.5,
                    help="share of rows from the target's own continuations (the rest: corpus windows)")
    ap.add_argument("--top1-weight", type=float, default=0.0,
                    help="extra cross-entropy on the target's top-1 token (0: distribution only)")
    ap.add_argument("--export", action="store_true", help="export the best draft to models/smollm2-distilled")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ensure_embedded()
    target = AutoModelForCausalLM.from_pretrained(embedded_dir() / "target", dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(embedded_dir() / "target")
    run = distil_dir() / "runs" / args.run
    run.mkdir(parents=True, exist_ok=True)
    labels = Labels(distil_dir() / "labels")
    labels.refresh()
    labels.generated_share = args.generated_share
    if (run / "shortlist.npy").exists():
        shortlist = torch.from_numpy(np.load(run / "shortlist.npy"))
    else:
        shortlist = build_shortlist(tokenizer, args.shortlist, distil_dir() / "labels")
        np.save(run / "shortlist.npy", shortlist.numpy())
    continuations = target_continuations(target, tokenizer)
    covered = set(shortlist.tolist())
    gen_all = [t for items in continuations.values() for _, g in items for t in g]
    print(json.dumps({"shortlist": len(covered), "heldout_coverage": sum(t in covered for t in gen_all) / len(gen_all)}),
          flush=True)

    draft = draftmodels.make_shortlist_draft(target, shortlist, n_layers=args.layers)
    del target
    draft.model.embed_tokens.weight.requires_grad_(False)
    params = [p for p in draft.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, betas=(0.9, 0.95), weight_decay=0.0)
    state = {"step": 0, "train_s": 0.0, "tokens": 0, "best": -1.0}
    if (run / "ckpt.pt").exists():
        ck = torch.load(run / "ckpt.pt", weights_only=False)
        draft.load_state_dict(ck["draft"], strict=False)
        opt.load_state_dict(ck["opt"])
        state = ck["state"]
        print(f"resumed at step {state['step']}", flush=True)
    slot = torch.full((draft.config.vocab_size,), -1, dtype=torch.long)
    slot[shortlist] = torch.arange(len(shortlist))
    rng = random.Random(state["step"])
    stop = distil_dir() / f"STOP_{args.run}"
    while not stop.exists():
        if state["step"] % args.eval_every == 0:
            alpha = heldout_alpha(draft, continuations)
            improved = alpha["overall"] > state["best"]
            if improved:
                state["best"] = alpha["overall"]
                if args.export:
                    draftmodels.export_distilled(draft, EXPORT, {"run": args.run, "step": state["step"],
                                                            "train_minutes": round(state["train_s"] / 60, 1),
                                                            "label_tokens_seen": state["tokens"],
                                                            "heldout_alpha": alpha})
            record = {"step": state["step"], "train_min": round(state["train_s"] / 60, 2), "tokens": state["tokens"],
                      "labelled": labels.tokens, "alpha": {k: round(v, 3) for k, v in alpha.items()},
                      "alpha_is": ALPHA_IS,
                      "time": time.strftime("%H:%M:%S"), "best": improved}
            with open(run / "history.jsonl", "a") as fh:
                fh.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)
            torch.save({"draft": {k: v for k, v in draft.state_dict().items() if k != "model.embed_tokens.weight"},
                        "opt": opt.state_dict(), "state": state, "args": vars(args)}, run / "ckpt.tmp")
            (run / "ckpt.tmp").replace(run / "ckpt.pt")
            labels.refresh()
        t0 = time.time()
        draft.train()
        progress = min(1.0, state["train_s"] / (60 * args.horizon_min))
        lr = args.lr * min(1.0, (state["step"] + 1) / args.warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        for g in opt.param_groups:
            g["lr"] = lr
        tokens, top_ids, top_p = labels.batch(rng, args.batch, args.seq_len)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = distil_loss(draft, slot, tokens, top_ids, top_p, args.top1_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        state["step"] += 1
        state["tokens"] += int((top_p[..., 0] > 0).sum())
        state["train_s"] += time.time() - t0
        if state["step"] % 10 == 0:
            print(json.dumps({"step": state["step"], "loss": round(loss.item(), 4), "lr": round(lr, 6),
                              "tok_s": round(state["tokens"] / state["train_s"])}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
