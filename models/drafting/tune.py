"""A quick scan of drafting configurations on the development prompts (never the held-out ones),
replayed over the target's greedy text instead of decoded.

    python models/drafting/tune.py [--prompts models/dev_prompts.json] [--max-new-tokens 64]

Greedy output is the target's whatever the drafter, so each prompt is decoded once; every
configuration is then replayed on that text: prompt lookup proposes from the text itself, the draft
model's proposals come from one forward pass of the draft over the text (its greedy token and
confidence at each position). The replay counts, per category, α, tokens per target call and draft
calls, and prices a round with the target's measured cost of verifying n positions and the draft's
cost of one call (lab.speed.timing, measured here first, minimum of interleaved repeats). Prints one line
per configuration, best first by the mean of the categories' estimated speed-ups.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from lab.core.adaptive import schedule_for  # noqa: E402
from lab.core.drafting import MAX_GAMMA, DraftPolicy, LookupDrafter  # noqa: E402
from lab.core.engine import generate  # noqa: E402
from lab.core.kv import CachedModel  # noqa: E402
from lab.core.request import Request  # noqa: E402
from lab.pairs.load import default_name, load_named  # noqa: E402
from lab.prompts import encode_prompt, heldout_prompts  # noqa: E402

DEV = Path(__file__).resolve().parents[1] / "dev_prompts.json"


def costs(pair, ids, repeats=9, max_positions=MAX_GAMMA + 1):
    """Seconds of a target call over n positions (n = 1..17) and of one draft call: the minimum of
    interleaved repeats, so a busy moment inflates no entry."""
    target, draft = CachedModel(pair.target), CachedModel(pair.draft)
    target.forward(ids), draft.forward(ids)
    filler = (ids * max_positions)[:max_positions]
    best = {n: float("inf") for n in range(1, max_positions + 1)}
    best_draft = float("inf")
    for _ in range(repeats):
        for n in best:
            best[n] = min(best[n], target.forward(filler[:n])[1])
            target.rollback(len(ids))
        best_draft = min(best_draft, draft.forward(filler[:1])[1])
        draft.rollback(len(ids))
    return best, best_draft


def replay(text, n_prompt, draft_top, draft_conf, drafter, schedule, gamma, threshold, max_ngram, min_ngram,
           model_gamma=None):
    """Rounds of greedy speculative decoding over the known output `text` (prompt + continuation):
    a list of (verified positions, draft calls, accepted)."""
    rounds, pos = [], n_prompt
    lengths = schedule_for(DraftPolicy(gamma, schedule))      # the engine's own γ schedule
    while pos < len(text):
        room = min(lengths.gamma, len(text) - pos - 1)
        proposal, model_calls = [], 0
        if room > 0 and drafter in ("lookup", "hybrid"):
            proposal = LookupDrafter.find(text[:pos], room, max_ngram, min_ngram)
        if room > 0 and not proposal and drafter in ("model", "hybrid"):
            # The draft's greedy tokens agree with the text until its first miss; it cannot tell
            # where that is, so it drafts on (γ tokens, or until a token it is unsure of). After the
            # miss its tokens are rejected whatever they are; their confidence is read at the
            # text's own positions (an approximation: only how many it drafts matters there).
            room = min(model_gamma or room, room)
            missed = False
            for i in range(room):
                model_calls += 1
                token = draft_top[pos - 1 + i]
                missed = missed or token != text[pos + i]
                proposal.append(-1 if missed else token)
                if threshold and draft_conf[pos - 1 + i] < threshold:
                    break
        accepted = 0
        for i, x in enumerate(proposal):
            if x != text[pos + i]:
                break
            accepted += 1
        rounds.append((len(proposal) + 1, model_calls, accepted))
        pos += accepted + 1
        lengths.update(len(proposal), accepted)
    return rounds


CONFIGS = [(d, s, g, t, mg, mn)
           for d in ("model", "lookup", "hybrid") for s in ("constant", "heuristic") for g in (2, 3, 4, 6, 8, 12, 16)
           for t in ((0.0,) if d == "lookup" else (0.0, 0.2, 0.4, 0.6))
           for mg in ((None,) if d != "hybrid" else (None, 2, 3, 4)) for mn in ((1,) if d == "model" else (1, 2))]

# A target call over n positions and a draft call (ms), dense fp32, 2 threads: the minimum of 12
# interleaved repeats on this project's 2-core machine. Used with --fixed-costs when the machine is
# too busy to measure (a busy moment inflates a whole run).
FIXED_TARGET_MS = {1: 55, 2: 92, 3: 112, 4: 81, 5: 71, 6: 77, 7: 80, 8: 76, 9: 80, 10: 85, 11: 84, 12: 82,
                   13: 84, 14: 86, 15: 87, 16: 88, 17: 90}
FIXED_DRAFT_MS = 9.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", default=str(DEV))
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--cache", help="a JSON file keeping the decoded texts between runs (made if missing)")
    ap.add_argument("--show", action="store_true", help="print each prompt's greedy continuation")
    ap.add_argument("--fixed-costs", action="store_true", help="price rounds with FIXED_TARGET_MS, not a fresh measurement")
    args = ap.parse_args()
    torch.set_num_threads(2)
    pair = load_named(default_name())
    prompts = heldout_prompts(Path(args.prompts))
    texts = {}
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        texts = json.loads(cache.read_text())
    for cat, ps in prompts.items() if not texts else ():
        for p in ps:
            ids = encode_prompt(pair.tokenizer, p)
            out = generate(pair, Request(ids, gamma=8, drafter="lookup", max_new_tokens=args.max_new_tokens),
                           display_top=0)
            full = ids + out.new_ids
            with torch.inference_mode():
                probs = pair.draft(input_ids=torch.tensor([full])).logits[0].float().softmax(-1)
            conf, top = probs.max(-1)
            texts.setdefault(cat, []).append((full, len(ids), top.tolist(), conf.tolist()))
            if args.show:
                print(f"--- {cat}: {pair.tokenizer.decode(out.new_ids)!r}", flush=True)
    if cache and not cache.exists():
        cache.write_text(json.dumps(texts))
    if args.fixed_costs:
        verify, draft_s = {n: ms / 1e3 for n, ms in FIXED_TARGET_MS.items()}, FIXED_DRAFT_MS / 1e3
    else:
        verify, draft_s = costs(pair, encode_prompt(pair.tokenizer, "The capital of France is Paris, and"))
    print("target call over n positions (ms): " + ", ".join(f"{n}: {s * 1e3:.0f}" for n, s in verify.items()))
    print(f"draft call: {draft_s * 1e3:.1f} ms; {time.strftime('%H:%M UTC', time.gmtime())}\n")
    results = []
    for config in CONFIGS:
        drafter, schedule, gamma, threshold, mg, mn = config
        per_cat = {}
        for cat, items in texts.items():
            plain = spec = 0.0
            acc = drafted = toks = calls = 0
            for full, n_prompt, top, conf in items:
                rounds = replay(full, n_prompt, top, conf, drafter, schedule, gamma, threshold, 3, mn, mg)
                toks += len(full) - n_prompt
                calls += len(rounds)
                acc += sum(a for _, _, a in rounds)
                drafted += sum(v - 1 for v, _, _ in rounds)
                plain += (len(full) - n_prompt) * verify[1]
                spec += sum(verify[v] + m * draft_s for v, m, _ in rounds)
            per_cat[cat] = (acc / max(1, drafted), toks / calls, plain / spec)
        results.append((statistics.mean(s for _, _, s in per_cat.values()),
                        min(s for _, _, s in per_cat.values()), config, per_cat))
    results.sort(key=lambda r: (-r[1] if r[1] < 1 else 0, -r[0]))   # never slower first, then fastest
    cats = list(texts)
    print(f"{'drafter':8}{'schedule':10}{'γ':>3}{'conf':>6}{'model γ':>8}{'n-gram':>7} {'mean':>6} {'min':>6}  " +
          "  ".join(f"{c[:6]:>16}" for c in cats) + "   (α / tokens per call / est. speed-up)")
    for mean, low, (d, s, g, t, mg, mn), per_cat in results[: args.top]:
        cells = "  ".join(f"{a:4.2f}/{tc:4.2f}/{sp:4.2f}×" for a, tc, sp in per_cat.values())
        print(f"{d:8}{s:10}{g:>3}{t:>6.1f}{mg or g:>8}{f'{mn}-3':>7} {mean:5.2f}× {low:5.2f}×  {cells}")


if __name__ == "__main__":
    main()
