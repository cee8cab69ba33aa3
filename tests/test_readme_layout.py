"""The map of the code (docs/ARCHITECTURE.md, "How the code is laid out") names every module of the
project, and only modules that exist.

The layout block is where a new contributor starts; a module added without a line there, or a line
left behind by a rename, makes it lie. Each folder's part of the block starts at a line `name/` at
the left margin; the module names are the `*.py` words in it (`chNN_*.py` stands for the chapters). A
sub-package's part starts at an indented line `sub/` and holds the lines indented deeper below it; its
modules are named as `sub/name.py`. A path into another folder (`tests/x.py`) is a reference, not a
module of this one.
"""
from __future__ import annotations

import fnmatch
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("export", "shell", "chapters", "uikit", "intercept", "serving", "lab", "bench")    # every module of these is named


def layout_block() -> str:
    text = (REPO / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## How the code is laid out", 1)[1]
    return section.split("```", 2)[1]


def named_in_layout(block: str) -> dict[str, set[str]]:
    """folder -> the module names (and patterns) its part of the block mentions, a sub-package's as
    `sub/name.py`, and each sub-package as `sub/`. Words naming a path (`x/y.py`) are left out: they
    point elsewhere."""
    named: dict[str, set[str]] = {}
    folder = None
    sub = None                       # (its name, its indent) while inside a sub-package's part
    for line in block.splitlines():
        top = re.match(r"^([a-z_]+)/\s", line + " ")
        if top:
            folder, sub = top.group(1), None
        if folder is None or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if sub and not top and indent <= sub[1]:
            sub = None
        header = re.match(r"^(\s+)([a-z_0-9]+)/\s", line + " ")     # a sub-package, on a line of its own
        if header:
            sub = (header.group(2), len(header.group(1)))
            named.setdefault(folder, set()).add(f"{sub[0]}/")
        prefix = f"{sub[0]}/" if sub else ""
        words = re.findall(r"(?<![\w/.])([\w*]+\.py)\b", line)
        named.setdefault(folder, set()).update(prefix + word for word in words)
    return named


def modules_of(folder: str) -> set[str]:
    """The modules in `folder` (not __init__), its sub-packages as `sub/` and their modules as
    `sub/name.py`."""
    found = {p.name for p in (REPO / folder).glob("*.py") if p.name != "__init__.py"}
    for package in sorted(p for p in (REPO / folder).iterdir() if (p / "__init__.py").exists()):
        found.add(f"{package.name}/")
        found |= {f"{package.name}/{p.name}" for p in package.glob("*.py") if p.name != "__init__.py"}
    return found


def test_the_parser_reads_folders_and_patterns():
    block = "lab/   the science\n  a.py, b.py   both\n  train/        recipes\nbench/  x.py\n"
    assert named_in_layout(block) == {"lab": {"a.py", "b.py", "train/"}, "bench": {"x.py"}}


def test_the_parser_reads_sub_packages_and_leaves_out_paths():
    block = ("lab/   the science\n"
             "  core/      decoding\n"
             "    a.py, b.py     both, as tests/t.py checks\n"
             "                   and c.py, said on a wrapped line\n"
             "  d.py       back at the top\n"
             "serving/  y.py\n")
    assert named_in_layout(block) == {"lab": {"core/", "core/a.py", "core/b.py", "core/c.py", "d.py"},
                                      "serving": {"y.py"}}


def test_every_module_is_named_in_readmes_layout():
    named = named_in_layout(layout_block())
    missing = {folder: sorted(m for m in modules_of(folder)
                              if not any(fnmatch.fnmatch(m, pattern.replace("NN", "[0-9][0-9]"))
                                         for pattern in named.get(folder, ())))
               for folder in FOLDERS}
    assert not any(missing.values()), f"docs/ARCHITECTURE.md's layout does not name: {missing}"


def test_every_module_readmes_layout_names_exists():
    named = named_in_layout(layout_block())
    gone = {folder: sorted(n for n in names if "*" not in n and not (REPO / folder / n).exists())
            for folder, names in named.items() if folder in FOLDERS}
    assert not any(gone.values()), f"docs/ARCHITECTURE.md's layout names modules that do not exist: {gone}"
