"""Step 2 of distillation: label text with the target's next-token distributions (resumable).

Each shard holds 64 sequences: some are the target's own continuations of seed prompts (greedy or
sampled, so the draft sees the text it will be asked to predict), the rest are windows of the corpus.
One teacher-forced target pass labels every position with the target's top-32 tokens and their
probabilities (they hold most of the mass). bf16 on one thread: the machine is shared.

    nohup nice python -m models.distil.label > $SPECLAB_CACHE/distil/label.log &
Stop with `touch $SPECLAB_CACHE/distil/STOP_LABEL`; rerunning continues after the last shard.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np
import torch

from lab.pairs.prepare import embedded_dir, ensure_embedded
from models.distil.corpus import distil_dir

SEQ_LEN = 256
TOP_K = 32
PER_SHARD = 64
GEN_PER_SHARD = 24
GEN_TOKENS = 96
SOURCES = {"code": 0.4, "prose": 0.35, "json": 0.25}


def load_texts(name: str) -> list[str]:
    with open(distil_dir() / "corpus" / f"{name}.jsonl") as fh:
        return [json.loads(line)["text"] for line in fh]


@torch.no_grad()
def continue_seeds(model, tokenizer, seeds: list[str], greedy: bool, seed: int) -> list[list[int]]:
    """The target's continuations of `seeds` (prompt + new tokens, up to EOS)."""
    torch.manual_seed(seed)
    tokenizer.padding_side = "left"
    batch = tokenizer(seeds, return_tensors="pt", padding=True, add_special_tokens=False)
    kwargs = dict(do_sample=False) if greedy else dict(do_sample=True, temperature=0.8, top_p=0.95, top_k=0)
    out = model.generate(**batch, max_new_tokens=GEN_TOKENS, pad_token_id=tokenizer.eos_token_id, **kwargs)
    seqs = []
    for row, mask in zip(out, batch["attention_mask"]):
        ids = row[int((mask == 0).sum()):].tolist()  # drop left padding
        n_prompt = int(mask.sum())
        new = ids[n_prompt:]
        if tokenizer.eos_token_id in new:
            new = new[: new.index(tokenizer.eos_token_id) + 1]
        seqs.append(ids[:n_prompt] + new)
    return seqs


def corpus_windows(tokenizer, texts: dict[str, list[str]], rng: random.Random, n: int) -> list[list[int]]:
    out = []
    while len(out) < n:
        src = rng.choices(list(SOURCES), weights=list(SOURCES.values()))[0]
        ids = tokenizer.encode(rng.choice(texts[src]), add_special_tokens=False)
        if len(ids) < 32:
            continue
        start = rng.randrange(0, max(1, len(ids) - SEQ_LEN)) if rng.random() < 0.7 else 0
        out.append(ids[start:start + SEQ_LEN])
    return out


@torch.no_grad()
def label(model, seqs: list[list[int]], batch_size: int = 8):
    """Teacher-forced target pass: top-K ids and probabilities at every position."""
    n = len(seqs)
    tokens = np.zeros((n, SEQ_LEN), np.uint16)
    lengths = np.array([len(s) for s in seqs], np.int32)
    top_ids = np.zeros((n, SEQ_LEN, TOP_K), np.uint16)
    top_p = np.zeros((n, SEQ_LEN, TOP_K), np.float16)
    for i, s in enumerate(seqs):
        tokens[i, : len(s)] = s
    for b in range(0, n, batch_size):
        x = torch.from_numpy(tokens[b:b + batch_size].astype(np.int64))  # (B, T)
        mask = (torch.arange(SEQ_LEN)[None] < torch.from_numpy(lengths[b:b + batch_size])[:, None]).long()
        t = int(lengths[b:b + batch_size].max())
        logits = model(input_ids=x[:, :t], attention_mask=mask[:, :t]).logits.float()  # (B, t, V)
        p, ids = torch.softmax(logits, -1).topk(TOP_K, dim=-1)  # (B, t, K)
        top_ids[b:b + batch_size, :t] = ids.numpy().astype(np.uint16)
        top_p[b:b + batch_size, :t] = p.numpy().astype(np.float16)
    return tokens, lengths, top_ids, top_p


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-shards", type=int, default=100_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--gen-per-shard", type=int, default=GEN_PER_SHARD,
                        help="how many of a shard's sequences are the target's own continuations")
    parser.add_argument("--greedy-every", type=int, default=2,
                        help="every n-th shard's continuations are greedy (the rest sampled)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ensure_embedded()
    target_dir = embedded_dir() / "target"
    model = AutoModelForCausalLM.from_pretrained(target_dir, dtype=torch.bfloat16).eval()
    tokenizer = AutoTokenizer.from_pretrained(target_dir)
    texts = {name: load_texts(name) for name in SOURCES}
    seeds = load_texts("seeds")
    out = distil_dir() / "labels"
    out.mkdir(parents=True, exist_ok=True)
    stop = distil_dir() / "STOP_LABEL"
    index = len(list(out.glob("shard-*.npz")))
    while index < args.max_shards and not stop.exists():
        t0 = time.time()
        rng = random.Random(index)
        gen = continue_seeds(model, tokenizer, rng.sample(seeds, args.gen_per_shard),
                             greedy=index % args.greedy_every == 0, seed=index)
        t_gen = time.time() - t0
        seqs = [s[:SEQ_LEN] for s in gen] + corpus_windows(tokenizer, texts, rng, PER_SHARD - len(gen))
        tokens, lengths, top_ids, top_p = label(model, seqs)
        tmp = out / f"tmp-{index:05d}.npz"
        np.savez(tmp, tokens=tokens, lengths=lengths, top_ids=top_ids, top_p=top_p,
                 n_generated=np.int32(len(gen)))
        tmp.replace(out / f"shard-{index:05d}.npz")
        n_tok = int(lengths.sum())
        print(json.dumps({"shard": index, "tokens": n_tok, "gen_s": round(t_gen, 1),
                          "total_s": round(time.time() - t0, 1), "time": time.strftime("%H:%M:%S")}), flush=True)
        index += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
