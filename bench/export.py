"""How long `python -m lab export` takes and how large the folder it writes is.

    python bench/export.py [--pair NAME] [--dir DIR] [--states N] [--seconds S] [--tour N] [--log FILE]

Runs the export (the embedded pair by default) into DIR (default: a temporary folder, removed
afterwards), then prints the wall time, the machine's load before and after (`os.getloadavg`), the
folder's size in total and by part (pages, recordings in data/, Bokeh's and Panel's files in
static/), and the recorded states and seconds of each page from the export's own progress lines
(chapter pages and tour steps apart, the slowest pages first), how many choices of the preset bar
(prompt × draft variant × drafter, each with its first result: export/combos.py) each page's
recording holds, and how the progress line's time estimate after the 2nd, 5th and 16th page compared
with the time the export then took.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


def choices(folder: Path) -> dict[str, int]:
    """Page → the choices of its preset bar its recording holds (its states' contexts: combos.py)."""
    found = {}
    for path in sorted((folder / "data").glob("*.js")):
        text = path.read_text()
        graph = json.loads(text[text.index("=") + 1:].strip().rstrip(";"))
        contexts = {node["context"] for node in graph["nodes"]}
        if len(contexts) > 1:
            found[path.stem] = len(contexts)
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", help="a named pair (default: the embedded pair)")
    ap.add_argument("--dir", help="where to write (default: a temporary folder)")
    ap.add_argument("--states", type=int, help="the export's --states")
    ap.add_argument("--seconds", type=float, help="the export's --seconds")
    ap.add_argument("--tour", type=int, help="the export's --tour")
    ap.add_argument("--log", help="write the export's progress lines (its stderr) to this file as they come")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.dir or Path(tmp) / "lab")
        command = [sys.executable, "-m", "lab", "export", str(out)]
        for flag in ("pair", "states", "seconds", "tour"):
            if getattr(args, flag) is not None:
                command += [f"--{flag}", str(getattr(args, flag))]
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        lines = []
        with open(args.log or os.devnull, "w") as log, subprocess.Popen(
                command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as export:
            for line in export.stderr:         # as they come, so a long run can be followed in the log
                lines.append(line)
                log.write(line)
                log.flush()
        wall = time.monotonic() - started
        stderr = "".join(lines)
        if export.returncode:
            print(stderr[-3000:], file=sys.stderr)
            return export.returncode
        pages = re.findall(r"export: \d+/\d+ (.+?): (\d+) recorded states in (\d+) s", stderr)
        steps = [p for p in pages if p[0].startswith("tour step ")]
        chapters = [p for p in pages if not p[0].startswith("tour step ")]
        print(f"export of {args.pair or 'the embedded pair'}: {wall:.0f} s wall, load {load_before:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores")
        print(f"size: {size(out) / 1e6:.1f} MB (pages {sum(f.stat().st_size for f in out.glob('*.html')) / 1e6:.1f} MB, "
              f"recordings {size(out / 'data') / 1e6:.1f} MB, static {size(out / 'static') / 1e6:.1f} MB)")
        for kind, group in (("pages", chapters), ("tour steps", steps)):
            if group:
                print(f"{len(group)} {kind}, {sum(int(n) for _, n, _ in group)} recorded states, "
                      f"{sum(int(s) for _, _, s in group)} s: "
                      + ", ".join(f"{name} {n} in {s} s" for name, n, s in sorted(group, key=lambda p: -int(p[2]))))
        held = choices(out)
        if held:
            print(f"choices of the preset bar recorded: {sum(held.values())} (" +
                  ", ".join(f"{page} {n}" for page, n in held.items()) + ")")
        estimates = [(int(so_far), int(left) * (60 if unit == "min" else 1)) for so_far, left, unit in
                     re.findall(r"(\d+) s so far, about (\d+) (s|min) left", stderr)]
        if estimates:
            end = estimates[-1][0]
            print("time estimates: " + ", ".join(f"after page {i}: {left} s left (took {end - so_far} s)"
                                                 for i, (so_far, left) in enumerate(estimates, 1) if i in (2, 5, 16)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
