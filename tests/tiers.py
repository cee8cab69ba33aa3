"""The suite's tiers, read from what each test does, so no marker has to be remembered by hand.

    browser      a test in tests/ui: a served app driven by Debian's chromium
    subprocess   a test that starts another interpreter or program: its own body, a function of the
                 tests it calls (followed through tests/ modules), or a fixture of its module does
    slow         the static export's recordings (tests/shell/test_export*.py: every control of a page
                 pressed over the models, up to a minute a test)

The fast tier is the rest: `python3 -m pytest -q -m "not browser and not subprocess and not slow"`. tests/conftest.py marks every collected test with `tier_markers`.
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# What starting another process looks like in a test's code: a name, or the dotted name it ends
# (read from the code itself, not from its strings or comments).
SPAWNS = ("subprocess", "Popen", "sys.executable", "os.fork", "multiprocessing")
MARKERS = {"browser": "drives Debian's chromium against a served app (tests/ui)",
           "subprocess": "starts another interpreter or program",
           "slow": "records the static export (tests/shell/test_export*.py)"}


@lru_cache(maxsize=None)
def _module(path: Path) -> tuple[str, dict[str, ast.AST], dict[str, Path]]:
    """A test module's text, its top-level functions and classes by name, and the names it imports
    from other modules under tests/, at its top or inside a function (name → that module's path)."""
    text = path.read_text()
    tree = ast.parse(text)
    defs = {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    imported: dict[str, Path] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests"):
            where = REPO.joinpath(*node.module.split(".")).with_suffix(".py")
            if where.exists():
                imported.update({a.asname or a.name: where for a in node.names})
    return text, defs, imported


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` for a name or an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _names(node: ast.AST) -> set[str]:
    """Every dotted name `node`'s code uses, and every module or name it imports."""
    found = {_dotted(n) for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))} - {None}
    for n in ast.walk(node):
        if isinstance(n, ast.Import):
            found |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            found |= {n.module or ""} | {a.name for a in n.names}
    return found


def _spawns(path: Path, node: ast.AST, seen: set) -> bool:
    """Whether `node` (a function or class of `path`) starts a process, itself or through the
    functions of tests/ modules it names."""
    _, defs, imported = _module(path)
    used = _names(node)
    if any(mark in name.split(".") or f".{mark}." in f".{name}." for name in used for mark in SPAWNS):
        return True
    for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - {getattr(node, "name", "")}:
        target = (path, name) if name in defs else (imported[name], name) if name in imported else None
        if target is None or target in seen:
            continue
        seen.add(target)
        where, called = target
        found = _module(where)[1].get(called)
        if found is not None and _spawns(where, found, seen):
            return True
    return False


def tier_markers(path: Path, test_name: str, fixtures: list[str]) -> set[str]:
    """The tier markers of test `test_name` (a function, or `Class.method`) of the module at `path`."""
    path = Path(path).resolve()
    if "ui" in path.relative_to(REPO).parts[:2]:
        return {"browser"}
    marks = {"slow"} if path.name.startswith("test_export") else set()
    _, defs, _ = _module(path)
    top, _, method = test_name.partition(".")
    node = defs.get(top)
    if node is not None and method:
        node = next((n for n in ast.walk(node) if getattr(n, "name", None) == method), node)
    seen: set = set()
    nodes = ([node] if node is not None else []) + [defs[f] for f in fixtures if f in defs]
    return marks | ({"subprocess"} if any(_spawns(path, n, seen) for n in nodes) else set())


def _xdist_scheduling():
    """pytest-xdist's file scheduler, or None where pytest-xdist is not installed."""
    try:
        from xdist.scheduler import LoadFileScheduling
    except ImportError:
        return object
    return LoadFileScheduling


# The files that take minutes (their fixtures record static exports, or they walk all 41 tour steps):
# each tier starts with them, so that with `-n 2` the two workers end together.
LONGEST = ("tests/shell/test_export_choices.py", "tests/shell/test_export_partial.py", "tests/shell/test_export.py",
           "tests/ui/test_export.py", "tests/ui/test_pseudo_walk.py", "tests/ui/test_tour_fits.py",
           "tests/ui/test_shell.py", "tests/ui/test_tour_projector.py", "tests/ui/test_export_page.py")


def run_order(item) -> tuple[bool, bool, bool]:
    """Where a collected test runs: browser tests last, those outside tests/ui first among them (they
    start Playwright themselves, which they cannot once pytest-playwright's own has started in the
    process), and in each group the LONGEST files first."""
    where = Path(item.path).resolve().relative_to(REPO).as_posix()
    browser = item.get_closest_marker("browser") is not None
    return browser, browser and where.startswith("tests/ui/"), where not in LONGEST


class BrowserLastScheduling(_xdist_scheduling()):
    """Whole test files to each worker, in the order collected (browser tests last: tests/conftest.py
    sorts them so), a file's browser tests a unit of their own: a worker runs a file's other tests,
    and every other file's, before it starts a browser. (A browser test is one pytest-playwright
    parametrizes with its browser: `[chromium]` in its id.)"""

    def __init__(self, config, log=None):
        super().__init__(config, log)
        config.option.loadscopereorder = False      # xdist would put the files with most tests first

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return f"{path} (browser)" if "[chromium" in nodeid else path
