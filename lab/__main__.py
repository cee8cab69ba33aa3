"""Command line for lecturers.

    python -m lab prepare                      # unpack and convert the embedded pair ahead of class
    python -m lab prepare --pair NAME          # or a hub pair (--target ID --draft ID): download it once
    python -m lab measure [--pair NAME | --target ID --draft ID]   # will my pair pay off? (says how long first)
    python -m lab measure --prompt "def f(x):" [...] [--json]   # on the lecturer's own prompt
    python -m lab measure --all [...]                          # every prompt of the held-out set
        [--prompts FILE] [--per-category N] [--drafter model|lookup|hybrid[@POLICY] ...]
        [--policy constant[:γ]|heuristic[:γ]|auto[:γ][+confidence:T]]
        [--device auto|cpu|cuda|mps] [--dtype float32|bfloat16|float16]
    python -m lab export DIR [--pair NAME] [--lang CODE|all]   # the whole lab as a static folder that opens offline
    python -m lab export DIR --page SLUG [--tour N] [--course TEXT]   # a page (and the index linking it)
    python -m lab i18n [--check | --add CODE]  # extract the messages, update and check every language's catalog
    python -m lab COMMAND --help               # each command's options

The embedded pair drafts with `hybrid` and `auto:12+confidence:0.7` (lookup as many tokens, up to
12, as its recent hit rate pays for, the draft model while it is sure of its guesses; a plain step
where guessing does not pay).

`measure` answers "will my pair pay off?": the pair's own drafting against plain decoding of the
same prompt and length, per category of the prompt set (default: models/heldout_prompts.json's
stories, facts, instructions, code, JSON and edits, one prompt each; every prompt with --all) and
overall: the measured speed-up, α, c, how often it guessed, and a one-line verdict. It prints how
long it will take before it starts (an estimate from this machine's speed: a busy machine takes
longer) and the time left as it goes (on stderr).

`export` writes the lab as a folder of pages that open without Python or a network (export/);
DIR must be new, empty or an earlier export, which it replaces.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys


def _measure_parser() -> argparse.ArgumentParser:
    from lab.devices import DEVICES, DTYPES
    ap = argparse.ArgumentParser(prog="python -m lab measure",
                                 description="Measure α, c and the speed-up of a draft/target pair.")
    ap.add_argument("--pair", help="a named pair from models/pairs.toml")
    ap.add_argument("--target", help="target: hub id or local folder")
    ap.add_argument("--draft", help="draft: hub id or local folder")
    ap.add_argument("--prompt", help="one prompt; without it, every prompt of --prompts")
    ap.add_argument("--prompts", help="a JSON file of category → prompts (default: the held-out set)")
    ap.add_argument("--per-category", type=int, help="measure the first N prompts of each category (default 1)")
    ap.add_argument("--all", action="store_true", help="measure every prompt of the set (the held-out set: "
                                                       "38 prompts; the command says how long before it starts)")
    ap.add_argument("--drafter", action="append", metavar="NAME[@POLICY]",
                    help="who drafts: model, lookup or hybrid, optionally with its own policy (lookup@constant:8); "
                         "repeat for several (default: the pair's own)")
    ap.add_argument("--policy", help="draft length: constant[:γ], heuristic[:γ] or auto[:γ] (as many as the "
                                     "recent hit rate pays for), each optionally +confidence[:T] or +model:γ "
                                     "(default: the pair's own; the embedded pair's is auto:12+confidence:0.7)")
    ap.add_argument("--gamma", type=int, help="γ for every drafting (default: each policy's own)")
    ap.add_argument("--device", choices=DEVICES,
                    help="where a lecturer's pair runs: auto (a CUDA GPU, else Apple silicon's MPS, else the "
                         "CPU), cpu, cuda or mps (default: SPECLAB_DEVICE, else auto); the embedded pair "
                         "always runs on the CPU")
    ap.add_argument("--dtype", choices=DTYPES,
                    help="the models' dtype (default: SPECLAB_DTYPE, else the device's own: bfloat16 on "
                         "CUDA, float16 on MPS, float32 on the CPU)")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--top-k", type=int, default=0)
    ap.add_argument("--top-p", type=float, default=1.0)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def measure_main(argv: list[str]) -> int:
    args = _measure_parser().parse_args(argv)
    from dataclasses import replace

    from lab.core.drafting import check_gamma
    from lab.speed.measure import measure, measure_set
    from lab.speed.payoff import TimeLeft
    from lab.pairs.load import PairError, check_drafting, load_spec, resolve_pair
    from lab.prompts import HELDOUT_PROMPTS, PromptError, encode_prompt, heldout_prompts
    from lab.core.request import Request
    from lab.core.sampling import SamplingSettings

    try:
        if args.gamma is not None:
            check_gamma(args.gamma)
        if not 1 <= args.max_new_tokens <= 1024:
            raise ValueError("--max-new-tokens must be from 1 to 1024.")
        # Every prompt's request: the prompt and the drafting each measurement's own (lab.core.request).
        request = Request((), gamma=args.gamma, settings=SamplingSettings(args.temperature, args.top_k, args.top_p),
                          seed=args.seed, max_new_tokens=args.max_new_tokens)
        pair_argv = sum(([f"--{k}", v] for k in ("pair", "target", "draft") if (v := getattr(args, k))), [])
        spec = resolve_pair(pair_argv, environ={} if pair_argv else None)
        bar = None if args.json else ProgressLines()
        if args.per_category is not None and args.per_category < 1:
            raise ValueError("--per-category must be at least 1.")
        if args.all and args.per_category is not None:
            raise ValueError("--all measures every prompt; leave out --per-category, or --all.")
        prompt_set = None if args.prompt is not None else heldout_prompts(args.prompts or HELDOUT_PROMPTS)
        policy = check_drafting("model", args.policy)[1] if args.policy else None
        asked = [(d.partition("@")[0], d.partition("@")[2] or policy) for d in args.drafter or []]
        for drafter, own in asked:
            check_drafting(drafter, own or "constant")
        pair = load_spec(spec, bar and bar.phase(0.0, 0.1 if prompt_set is not None else 0.5),
                         device=args.device, dtype=args.dtype)
        policy = policy or pair.policy
        draftings = list(dict.fromkeys([(d, p or policy) for d, p in asked] or [(pair.drafter, policy)]))
        per_category = None if args.all else args.per_category or 1
        prompts = ({cat: ps[:per_category] for cat, ps in prompt_set.items()} if prompt_set is not None
                   else {"your prompt": [args.prompt]})
        clock = TimeLeft(pair, prompts, draftings, args.max_new_tokens)
        if bar is not None:
            print(clock.announce(draftings), file=sys.stderr, flush=True)
        if prompt_set is not None:
            report = measure_set(pair, prompt_set, request, per_category=per_category,
                                 draftings=draftings, progress=bar and clock.wrap(bar.phase(0.1, 1.0)))
            return _print_set(report, args.json)
        if bar is not None:
            clock.wrap(bar.phase(0.5, 1.0))(0.0, "measuring the prompt: plain, then speculative decoding")
        drafter, policy = draftings[0]
        m, _, _ = measure(pair, replace(request, prompt_ids=encode_prompt(pair.tokenizer, args.prompt),
                                        drafter=drafter, policy=policy))
    except (PairError, PromptError, ValueError) as err:
        return _fail(str(err))
    except MemoryError:
        return _fail("The pair does not fit in this machine's memory; choose smaller models.")

    result = m.as_dict()
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    rows = [("target", m.target), ("draft", m.draft), ("device", f"{m.device} {m.dtype}"),
            ("drafter", f"{m.drafter} ({m.policy})"),
            ("settings", m.settings), ("new tokens", m.new_tokens), ("α (kept ÷ kept+rejected)", f"{m.alpha:.3f}"),
            ("tokens per target call", f"{m.tokens_per_round:.2f}"),
            ("c (draft call ÷ target call)", f"{m.c:.3f}  ({m.mean_draft_seconds * 1e3:.1f} ms ÷ "
                                             f"{m.mean_target_seconds * 1e3:.1f} ms)"),
            ("predicted speed-up", f"{m.predicted_speedup:.2f}×"),
            ("measured speed-up", f"{m.measured_speedup:.2f}×  ({m.plain_seconds:.2f} s plain, "
                                  f"{m.speculative_seconds:.2f} s speculative)"),
            ("matches target greedy", {True: "yes", False: "NO", None: "n/a (sampling)"}[m.matches_target_greedy]),
            ("verdict", m.verdict)]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    print(f"\ngenerated text ({m.new_tokens} new tokens):\n{m.text.lstrip(chr(13) + chr(10))}")
    if m.busy:
        print(f"\n{busy_words(m.load, m.cores)}")
    return 0


class ProgressLines:
    """The command's progress on stderr: a line per new message; the percentage never goes back
    (loading the pair, then measuring, each fill their own share of 0–100 %)."""

    def __init__(self):
        self.shown, self.last = 0.0, None

    def phase(self, start: float, end: float):
        def progress(fraction: float, message: str) -> None:
            self.shown = max(self.shown, start + (end - start) * min(max(float(fraction), 0.0), 1.0))
            if message != self.last:
                self.last = message
                print(f"[{self.shown:4.0%}] {message}", file=sys.stderr, flush=True)
        return progress


def busy_words(load: float, cores: int) -> str:
    return (f"The machine was busy while measuring (load {load:.1f} on {cores} cores): these times are "
            f"unreliable; measure again when it is idle.")


def _print_set(report: dict, as_json: bool) -> int:
    from lab.speed import payoff
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    gamma = "" if report["gamma"] is None else f" · γ = {report['gamma']}"
    print(f"target {report['target']} · draft {report['draft']} · {report['device']} {report['dtype']}"
          f"{gamma} · {report['settings']} · {report['max_new_tokens']} new tokens per prompt")
    exact = {True: "", False: "  OUTPUT DIFFERS FROM PLAIN DECODING", None: ""}
    for label, run in report["draftings"].items():
        print(f"\nWill {label} pay off?\n{'category':<14}{'prompts':>8}{'speed-up':>10}{'α':>7}{'c':>7}  verdict")
        for name, row in [*run["categories"].items(), ("overall", run["overall"])]:
            verdict = row["verdict"] if name != "overall" else payoff.drafting_words(row["drafted_rounds"], row["rounds"])
            print(f"{name:<14}{row['prompts']:>8}{row['speedup']:>9.2f}×{row['alpha']:>7.2f}{row['c']:>7.3f}"
                  f"  {verdict}{exact[row['exact']]}")
        print(run["overall"]["verdict"])
    if report["load"] > report["cores"]:
        print(f"\n{busy_words(report['load'], report['cores'])}")
    return 0


def export_main(argv: list[str]) -> int:
    """`python -m lab export DIR [--pair NAME]`: the static site (export/). This command line is the
    top layer (tests/test_imports.py): it imports the export, which builds the pages as the server does."""
    from export.command import main as export_command
    return export_command(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if argv[:1] == ["prepare"]:
        from lab.pairs.prepare import main as prepare_main
        return prepare_main(argv[1:])
    if argv[:1] == ["measure"]:
        from lab.pairs.load import quiet_loading
        quiet_loading()                  # the command prints its own progress
        return measure_main(argv[1:])
    if argv[:1] == ["export"]:
        return export_main(argv[1:])
    if argv[:1] == ["i18n"]:
        from lab.i18n.command import main as i18n_main
        return i18n_main(argv[1:])
    print(__doc__.strip())
    return 0 if argv[:1] in ([], ["-h"], ["--help"]) else 2


if __name__ == "__main__":
    sys.exit(main())
