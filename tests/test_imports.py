"""The project's import graph (lab, serving, shell, uikit, chapters, models) has no cycle, and its
imports run one way between layers. A module that imports another, at the top or inside a function,
is never imported back by it, directly or round a loop: a cycle hidden behind a function-level
import still ties two modules into one."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "serving", "shell", "uikit", "chapters", "models")


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `path` imports anywhere in its text (`from a import b` counts a.b when
    that is a module, else a)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                      for a in node.names}
    return {name for name in found if name in modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycles_finds_a_loop_through_three_modules():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_project():
    modules = project_modules()
    assert {"lab.core.engine", "lab.core.drafting", "shell.app", "chapters.base", "uikit.pacing"} <= set(modules)
    graph = {name: imports_of(path, modules) - {name} for name, path in modules.items()}
    assert "lab.core.drafting" in graph["lab.core.engine"]          # the graph sees real imports
    assert cycles(graph) == []


# Each imports only those after it. models/ holds the recipes that build model pairs (scripts on
# top of lab, like app.py); lab reads their outputs as files, never their code. serving runs the
# model worker the server's pages share; lab's functions that take a service only call it. Inside
# lab, the chapters' experiments sit above the rest: the core, the pairs and their speed never
# import an experiment.
LAYERS = ("app", "models", "shell", "chapters", "uikit", "serving", "lab.experiments", "lab")


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest layer that is `module` or holds it."""
    return max((i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")),
               key=lambda i: len(LAYERS[i]))


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a lower layer imports a higher one."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer_of(b) < layer_of(a))


def test_upward_imports_are_found():
    assert upward_imports({"lab.x": {"uikit.y"}, "uikit.y": {"lab.x"}}) == [("lab.x", "uikit.y")]
    assert upward_imports({"lab.core.x": {"lab.experiments.y", "lab.y"}, "serving.z": {"uikit.y"},
                           "lab.experiments.y": {"lab.core.x"}}) == [("lab.core.x", "lab.experiments.y"),
                                                                    ("serving.z", "uikit.y")]


def test_imports_run_one_way_app_shell_chapters_uikit_serving_lab():
    """app.py → shell → chapters → uikit → serving → lab (and models/ → lab): a module never
    imports from a layer above its own, so the science core runs without the UI or the model worker,
    and a chapter without the server."""
    modules = project_modules()
    modules["app"] = REPO / "app.py"
    graph = {name: imports_of(path, modules) - {name} for name, path in modules.items()}
    assert "shell.app" in graph["app"] and "chapters.base" in graph["chapters.ch04_guess_check_keep"]
    assert "lab.experiments.compare" in graph["serving.service"]          # serving is in the graph
    assert upward_imports(graph) == []


def test_no_test_module_imports_another_or_a_conftest():
    """What several test modules share lives in a helpers module (tests/helpers.py, tests/ui/helpers.py)
    or, for fixtures, a conftest that pytest finds itself: a test module imported by another runs its
    setup twice and ties the two together, and a conftest imported by name is loaded twice."""
    tests = REPO / "tests"
    found = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            found += [f"{path.relative_to(REPO)}:{node.lineno} {name}" for name in names
                      if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith(("test_", "conftest"))]
    assert not found, f"import these from a helpers module instead: {found}"
