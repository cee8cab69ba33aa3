"""Every bench script still imports: the benches share code with the tests (tests/ui/helpers.py)
and with each other, and none of them runs in the suite, so a moved name would go unnoticed until a
lecturer or a contributor ran one."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_bench_script_imports():
    scripts = sorted(p.stem for p in (ROOT / "bench").glob("*.py"))
    assert {"classroom", "walk", "dragprobe"} <= set(scripts)
    code = ("import importlib, sys; sys.path[:0] = ['bench', '.']; sys.argv = ['bench']\n"
            f"for name in {scripts!r}: importlib.import_module(name)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
