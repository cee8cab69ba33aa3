"""One model worker for all pages, as the server runs it: fair per-browser turns and rate limits, a
bounded cache, and the process-wide pair in use. Imports lab, never the pages.

`serving_processes()` is how many server processes the command line asks for (read by the launcher,
`python -m serving`, and by shell.store.shared for each process's share of the cores)."""
import os
import sys

# The pair's problem as the launcher printed it before forking (serving.__main__.preload): its
# processes inherit it and do not print the same sentence again (shell.frame.loading).
LAUNCHER_SAID = "SPECLAB_LAUNCHER_SAID"


def serving_processes(argv: list[str] | None = None) -> int:
    """How many processes `panel serve --num-procs N` (or `python -m serving --num-procs N`) runs: 1
    when not given, 0 means one per core. `argv` defaults to this process's arguments."""
    argv = sys.argv if argv is None else argv
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--num-procs=") else (
            argv[i + 1] if arg == "--num-procs" and i + 1 < len(argv) else None)
        if value is not None:
            n = int(value) if value.lstrip("-").isdigit() else 1
            return n if n > 0 else (os.cpu_count() or 1)
    return 1
