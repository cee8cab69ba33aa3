"""How long `python -m lab export` takes and how large the folder it writes is.

    python bench/export.py [--pair NAME] [--dir DIR] [--states N] [--seconds S] [--tour N]

Runs the export (the embedded pair by default) into DIR (default: a temporary folder, removed
afterwards), then prints the wall time, the machine's load before and after (`os.getloadavg`), the
folder's size in total and by part (pages, recordings in data/, Bokeh's and Panel's files in
static/), and the recorded states of each page from the export's own progress lines.
"""
from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", help="a named pair (default: the embedded pair)")
    ap.add_argument("--dir", help="where to write (default: a temporary folder)")
    ap.add_argument("--states", type=int, help="the export's --states")
    ap.add_argument("--seconds", type=float, help="the export's --seconds")
    ap.add_argument("--tour", type=int, help="the export's --tour")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.dir or Path(tmp) / "lab")
        command = [sys.executable, "-m", "lab", "export", str(out)]
        for flag in ("pair", "states", "seconds", "tour"):
            if getattr(args, flag) is not None:
                command += [f"--{flag}", str(getattr(args, flag))]
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - started
        if done.returncode:
            print(done.stderr[-3000:], file=sys.stderr)
            return done.returncode
        pages = re.findall(r"export: \d+/\d+ (.+?): (\d+) recorded states", done.stderr)
        print(f"export of {args.pair or 'the embedded pair'}: {wall:.0f} s wall, load {load_before:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores")
        print(f"size: {size(out) / 1e6:.1f} MB (pages {sum(f.stat().st_size for f in out.glob('*.html')) / 1e6:.1f} MB, "
              f"recordings {size(out / 'data') / 1e6:.1f} MB, static {size(out / 'static') / 1e6:.1f} MB)")
        print(f"{len(pages)} pages, {sum(int(n) for _, n in pages)} recorded states: "
              + ", ".join(f"{name} {n}" for name, n in pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
