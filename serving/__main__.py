"""Serve the lab on several processes that share one copy of the model pair in memory.

    python -m serving --num-procs N [panel serve options] [--args --pair NAME ...]

is `panel serve app.py --setup shell/start.py --num-procs N …` with one difference: the pair is
loaded once, here, before the server forks its N processes, so they share its weights (the
operating system copies a page of memory only when a process writes to it, and decoding writes no
weight). Started by `panel serve` itself, each process loads its own copy after the fork: the
embedded pair's weights are ~0.7 GB a copy. Without --num-procs (or with 1) nothing is loaded
before the server starts, exactly as `panel serve app.py --setup shell/start.py`.

Before the fork torch runs on one thread, so the processes inherit no thread pool (a fork copies
only the thread that calls it); each then takes its share of the cores (shell.store.shared.share_cores).

With several processes the launcher owns them (serving.supervise): SIGTERM or Ctrl-C stops them all
and prints "stopped"; a process that dies is one line and is started again. Loading before the
fork is as quiet as the server (no library warnings or progress bars) unless `--args --verbose` or
SPECLAB_VERBOSE=1.
"""
from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from serving import LAUNCHER_SAID, serving_processes

ROOT = Path(__file__).resolve().parent.parent


def verbose(lab_args: list[str], environ=None) -> bool:
    """`--args --verbose` or SPECLAB_VERBOSE=1 (as shell.frame.app.verbose): library output is kept."""
    env = os.environ if environ is None else environ
    return "--verbose" in lab_args or env.get("SPECLAB_VERBOSE", "") not in ("", "0")


def load_before_fork(lab_args: list[str]):
    """Load the pair the server's processes will serve, in this process, on one torch thread, and
    put everything alive out of the garbage collector's reach (shell.frame.heap does the same in each
    process), so that collections in the forked processes do not copy the shared pages."""
    import torch

    from serving import runtime
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")   # no tokenizer threads before a fork
    torch.set_num_threads(1)
    pair = runtime.load_before_fork(lab_args)
    gc.collect()
    gc.freeze()
    return pair


def preload(n: int, lab_args: list[str]) -> str:
    """Load the pair before the fork; the line for the terminal. A pair that cannot be loaded here
    is left to each process, which loads it as `panel serve` would (and shows its error on the
    pages): the server starts either way."""
    from lab.errors import PairError
    try:
        pair = load_before_fork(lab_args)
    except PairError as err:
        os.environ[LAUNCHER_SAID] = str(err)       # its processes do not say it again
        return f"{err} Each of the {n} processes will load the pair itself."
    return (f"pair loaded before the fork, shared by {n} processes: {pair.target_label} (target) and "
            f"{pair.draft_label} (draft)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    cut = argv.index("--args") if "--args" in argv else len(argv)
    n = serving_processes(argv[:cut])
    if n > 1:
        from serving.supervise import own_children
        own_children(n)
        if not verbose(argv[cut + 1:]):
            from lab.pairs.load import quiet_loading
            quiet_loading()              # the launcher says one line about loading the pair
        print(preload(n, argv[cut + 1:]), file=sys.stderr, flush=True)
    from panel.command import main as panel_main
    sys.argv = ["panel", "serve", str(ROOT / "app.py"), "--setup", str(ROOT / "shell" / "start.py"), *argv]
    panel_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
