"""How steady the cost profile's prices are from one measurement to the next (issue 51: one profile
steers a whole run's drafting decisions, and two runs' v(5) differed by 0.06).

The profile is measured `--repeats` times in a row (lab.speed.costs.measure_profile's calls and runs,
each repeat its own measurement), and each repeat's raw times priced two ways:

    fastest   the profile's own: each call's fastest run, v(k) = fastest pass ÷ fastest one-position call
    paired    each run's pass ÷ the same run's one-position call, the median over the runs (a slow
              moment hits both calls of a run alike)

For each price (v(k), c), the mean and the spread (max − min, and the standard deviation) over the
repeats, both ways side by side: the steadier way moves less between measurements.

    python bench/profilesteady.py [--pair smollm2-distilled] [--repeats 8] [--runs 5]

About a minute on the idle 2-core machine; the machine must be idle (every figure is a timing).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

PRICES = ("v(2)", "v(3)", "v(5)", "v(9)", "v(13)", "c")


def priced(times: dict) -> dict[str, dict[str, float]]:
    """One measurement's raw times (name → seconds of each run) priced both ways."""
    one = times[("verify", 1)]
    out = {"fastest": {}, "paired": {}}
    for price in PRICES:
        name = "draft" if price == "c" else ("verify", int(price[2:-1]))
        out["fastest"][price] = min(times[name]) / min(one)
        out["paired"][price] = statistics.median(t / u for t, u in zip(times[name], one))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", default="smollm2-distilled")
    ap.add_argument("--repeats", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement (the profile's RUNS)")
    args = ap.parse_args(argv)
    if args.repeats < 2 or args.runs < 1:
        ap.error("--repeats must be at least 2 (a spread needs two measurements) and --runs at least 1")
    from lab.pairs.load import load_named
    from lab.speed import costs
    from lab.speed.costs import profile_calls
    from lab.speed.timing import fixed_threads, interleaved

    pair = load_named(args.pair)
    load = costs.load_average()
    measured = []
    for _ in range(args.repeats):
        calls, finish = profile_calls(pair, costs.POSITIONS)
        with fixed_threads(finish.threads):
            measured.append(priced(interleaved(calls, args.runs)))
    print(f"pair {args.pair}: {args.repeats} measurements of {args.runs} runs each; load {load:.1f} before, "
          f"{costs.load_average():.1f} after\n")
    print("price   way       mean   spread    sd")
    for price in PRICES:
        for way in ("fastest", "paired"):
            values = [m[way][price] for m in measured]
            print(f"{price:6s}  {way:8s} {statistics.mean(values):5.3f}   {max(values) - min(values):5.3f}  "
                  f"{statistics.stdev(values):5.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
