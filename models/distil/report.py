"""Markdown tables for models/README.md from an evaluate.py JSON file and a run's history.jsonl.

    python -m models.distil.report --eval result.json --history $SPECLAB_CACHE/distil/runs/l3/history.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys

from lab.core import analytic


OLD_ALPHA = "share kept (kept ÷ drafted)"   # what a record without "alpha_is" holds: not the formula's α


def eval_table(path: str, gamma: int = 4) -> str:
    """A row per category; the analytic speed-up only where the record's α is the per-guess α the
    formula takes (kept ÷ (kept + rejected)), not a share of all drafted guesses kept."""
    data = json.load(open(path))
    per_guess = "alpha_is" in data
    name = "α" if per_guess else OLD_ALPHA
    lines = [f"| category | {name} | c | speed-up (measured) | speed-up (analytic, from α and c) | output = target's greedy |",
             "|---|---|---|---|---|---|"]
    for cat, r in data["rows"].items():
        pred = f"{float(analytic.speedup(r['alpha'], gamma, r['c'])):.2f}×" if per_guess else "– (needs α)"
        lines.append(f"| {cat} | {r['alpha']:.2f} | {r['c']:.3f} | {r['speedup']:.2f}× | {pred} | "
                     f"{'yes' if r['exact'] else 'no'} |")
    return "\n".join(lines)


def history_table(path: str) -> str:
    rows = list({r["step"]: r for r in map(json.loads, open(path))}.values())  # a resumed run repeats its last eval
    name = "α" if rows and all("alpha_is" in r for r in rows) else OLD_ALPHA
    lines = [f"| step | training time (min, one thread) | label tokens seen | {name} overall | stories | facts | instructions | code | JSON |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a = r["alpha"]
        lines.append(f"| {r['step']} | {r['train_min']:.1f} | {r['tokens']:,} | **{a['overall']:.3f}** | {a['stories']:.3f} | "
                     f"{a['facts']:.3f} | {a['instructions']:.3f} | {a['code']:.3f} | {a['json']:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eval", nargs="*", default=[])
    ap.add_argument("--history")
    args = ap.parse_args(argv)
    for path in args.eval:
        print(f"**{json.load(open(path))['pair']}**\n\n{eval_table(path)}\n")
    if args.history:
        print(history_table(args.history))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
