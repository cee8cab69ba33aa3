"""Our engine against transformers' own speculative decoding and plain decoding, side by side.

    python bench/engine.py [--pair NAME | --tiny] [--gamma 4] [--max-new-tokens 64] [--repeats 3]

Each contender decodes the same prompts greedily (one code, one fact, one JSON and one edit prompt
of the held-out set); runs are interleaved, so drift on a busy machine hits all alike. Pairs of
like with like:
- prompt lookup: ours (`drafter="lookup"`) and transformers' (`prompt_lookup_num_tokens=γ`);
- draft model with transformers' heuristic γ schedule and a confidence stop: ours
  (`policy="heuristic+confidence:T"`) and transformers' assisted generation
  (`num_assistant_tokens_schedule="heuristic_transient"`, `assistant_confidence_threshold=T`);
- the pair's own drafting (the embedded default: hybrid), which transformers has no equivalent of;
- plain decoding by our engine and by transformers' `generate()`.
Prints tokens/s per prompt (median of the repeats), the ratios, and whether every output is
identical to plain greedy decoding.
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

from lab.core.engine import generate  # noqa: E402
from lab.core.request import Request  # noqa: E402
from lab.prompts import encode_prompt, heldout_prompts  # noqa: E402

CATEGORIES = ("code", "facts", "json", "edit")
CONFIDENCE = 0.4


def contenders(pair, g: int, n: int) -> dict:
    eos = pair.eos_token_id

    def cut(out, ids):        # transformers pads after EOS; ours stops at EOS: compare like with like
        new = out[0, len(ids):].tolist()
        return new[: new.index(eos) + 1] if eos in new else new

    def hf(ids, **kwargs):
        prompt = torch.tensor([ids], device=pair.target.device)     # on the pair's device (--device)
        return cut(pair.target.generate(prompt, do_sample=False, max_new_tokens=n, pad_token_id=eos, **kwargs), ids)

    def ours(**kwargs):
        return lambda ids: generate(pair, Request(ids, max_new_tokens=n, **kwargs), display_top=0).new_ids

    return {
        "ours: lookup": ours(drafter="lookup", policy=f"constant:{g}"),
        "transformers: prompt lookup": lambda ids: hf(ids, prompt_lookup_num_tokens=g),
        "ours: model, heuristic+conf.": ours(drafter="model", policy=f"heuristic:{g}+confidence:{CONFIDENCE}"),
        "transformers: assisted, heur.+conf.": lambda ids: hf(
            ids, assistant_model=pair.draft, num_assistant_tokens=g,
            num_assistant_tokens_schedule="heuristic_transient", assistant_confidence_threshold=CONFIDENCE),
        f"ours: {pair.drafter} ({pair.policy})": ours(),          # the pair's own drafting, its own γ
        "ours: plain": lambda ids: generate(pair, Request(ids, max_new_tokens=n).plain(), display_top=0).new_ids,
        "transformers: plain": lambda ids: hf(ids),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", default=None)
    ap.add_argument("--tiny", action="store_true", help="the tiny random pair (no models needed)")
    ap.add_argument("--gamma", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    from lab.pairs.load import default_name, load_named
    pair = load_named("tiny" if args.tiny else args.pair or default_name())
    runners = contenders(pair, args.gamma, args.max_new_tokens)
    heldout = heldout_prompts()
    prompts = {cat: heldout[cat][0] for cat in CATEGORIES}
    print(f"pair: {pair.target_label} / {pair.draft_label}; greedy; γ = {args.gamma}; max_new_tokens = "
          f"{args.max_new_tokens}; torch threads = {torch.get_num_threads()}; {args.repeats} interleaved repeats; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    rates = {name: {} for name in runners}
    identical = True
    for cat, text in prompts.items():
        ids = encode_prompt(pair.tokenizer, text)
        for run in runners.values():
            run(ids[:])                                   # warm-up
        outputs, times = {}, {name: [] for name in runners}
        for _ in range(args.repeats):
            for name, run in runners.items():
                start = time.perf_counter()
                outputs[name] = run(ids[:])
                times[name].append(time.perf_counter() - start)
        reference = outputs["ours: plain"]
        same = all(o == reference for o in outputs.values())
        identical &= same
        for name in runners:
            rates[name][cat] = len(outputs[name]) / statistics.median(times[name])
        print(f"  {cat:6} {len(reference):3} tokens; every output identical to plain greedy: {same}")
    cats = list(prompts)
    print(f"\n{'tokens/s':36}" + "".join(f"{c:>8}" for c in cats))
    for name, by_cat in rates.items():
        print(f"{name:36}" + "".join(f"{by_cat[c]:8.1f}" for c in cats))

    def ratio(a, b):
        return "".join(f"{rates[a][c] / rates[b][c]:7.2f}×" for c in cats)

    print(f"\n{'ratios':36}" + "".join(f"{c:>8}" for c in cats))
    own = f"ours: {pair.drafter} ({pair.policy})"
    print(f"{'ours ÷ transformers, prompt lookup':36}{ratio('ours: lookup', 'transformers: prompt lookup')}")
    print(f"{'ours ÷ transformers, assisted':36}{ratio('ours: model, heuristic+conf.', 'transformers: assisted, heur.+conf.')}")
    print(f"{'ours plain ÷ transformers plain':36}{ratio('ours: plain', 'transformers: plain')}")
    for name in ("ours: lookup", "ours: model, heuristic+conf.", own):
        print(f"{(name + ' ÷ plain')[:36]:36}{ratio(name, 'ours: plain')}")
    print(f"\nidentical greedy output everywhere: {identical}")


if __name__ == "__main__":
    main()
