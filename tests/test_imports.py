"""The project's import graph (lab, serving, shell, uikit, intercept, chapters, models, export) has no cycle, and its
imports run one way between layers. A module that imports another, at the top or inside a function,
is never imported back by it, directly or round a loop: a cycle hidden behind a function-level
import still ties two modules into one."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "serving", "shell", "uikit", "intercept", "chapters", "models", "export")


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
    assert {"lab.core.engine", "lab.core.drafting", "shell.frame.app", "chapters.base", "intercept.pacing"} <= set(modules)
    graph = {name: imports_of(path, modules) - {name} for name, path in modules.items()}
    assert "lab.core.drafting" in graph["lab.core.engine"]          # the graph sees real imports
    assert cycles(graph) == []


# Each imports only those after it. A command line (app.py, each package's `__main__`) is the top
# layer: `python -m lab export` imports the export, which builds its pages through the shell's own
# page API. models/ holds the recipes that build model pairs (scripts on top of lab, like app.py);
# lab reads their outputs as files, never their code. serving runs the
# model worker the server's pages share; lab's functions that take a service only call it. Inside
# lab, the chapters' experiments sit above the rest: the core, the pairs and their speed never
# import an experiment.
# intercept/, the library interception, sits below uikit and above serving: uikit, chapters and the
# shell may use it; it uses neither.
LAYERS = ("app", "models", "export", "shell", "shell.frame", "shell.lecturer", "shell.tour", "shell.poll", "shell.room",
          "shell.store", "chapters", "uikit", "intercept", "serving", "lab.experiments", "lab")


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest layer that is `module` or holds it (a `__main__`, a command
    line, is "app")."""
    if module.endswith(".__main__"):
        return 0
    return max((i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")),
               key=lambda i: len(LAYERS[i]))


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a lower layer imports a higher one."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer_of(b) < layer_of(a))


def test_upward_imports_are_found():
    assert upward_imports({"lab.x": {"uikit.y"}, "uikit.y": {"lab.x"}}) == [("lab.x", "uikit.y")]
    assert upward_imports({"lab.__main__": {"export.site"}, "lab.x": {"export.site"}}) == [("lab.x", "export.site")]
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
    assert "shell.frame.app" in graph["app"] and "chapters.base" in graph["chapters.ch04_guess_check_keep"]
    assert "lab.experiments.compare" in graph["serving.service"]          # serving is in the graph
    assert "export.command" in graph["lab.__main__"]                   # the command line imports the export
    assert upward_imports(graph) == []


def runs_own_module(tree: ast.AST) -> list[int]:
    """The lines of a list or tuple that runs one of the project's own modules (`"-m", "shell.x"`):
    a subprocess that hides an import edge from the layering above."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            found += [node.lineno for flag, name in zip(words, words[1:]) if flag == "-m" and isinstance(name, str)
                      and name.split(".")[0] in PACKAGES]
    return found


def test_a_subprocess_running_a_project_module_is_found():
    assert runs_own_module(ast.parse('cmd = [sys.executable, "-m", "shell.export", *argv]')) == [1]
    assert runs_own_module(ast.parse('cmd = [sys.executable, "-m", "pip", "download"]')) == []


def test_lab_runs_no_project_module_in_a_subprocess():
    """lab/ reaches the rest of the project by importing it (its command line, lab/__main__.py, is
    the top layer), never by running `python -m <project module>`, which the layering cannot see."""
    found = [f"{path.relative_to(REPO)}:{line}" for path in (REPO / "lab").rglob("*.py")
             for line in runs_own_module(ast.parse(path.read_text()))]
    assert not found, f"import the module instead of running it: {found}"


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


# --- library internals only in the interception ------------------------------------------------
# A name starting with `_` is its module's own: another module of the project, Panel or Bokeh may
# change it freely. Only the library interception (intercept/, which lists every internal it relies on
# in intercept/patched.py, checked by tests/test_internals.py) reaches for one.
LIBRARIES = ("panel", "bokeh")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted name) of each name starting with `_` imported from a module of the project (a
    relative import is one) or from Panel or Bokeh, or through a private module of theirs."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level or source.split(".")[0] in PACKAGES + LIBRARIES:
                where = "." * node.level + source
                found += [(node.lineno, f"{where}.{a.name}".replace("..", ".")) for a in node.names
                          if _private(a.name) or any(_private(part) for part in source.split("."))]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in PACKAGES + LIBRARIES
                      and any(_private(part) for part in a.name.split("."))]
    return found


def test_private_imports_are_found():
    tree = ast.parse("from uikit.inbox import _describe\nfrom panel.io.document import _dispatch_msgs, x\n"
                     "import bokeh._x\nfrom os import _exit\nfrom lab import __version__\nfrom . import _y\n"
                     "from panel.io._z import q\ndef f():\n    from shell.frame.app import _hidden\n")
    assert private_imports(tree) == [(1, "uikit.inbox._describe"), (2, "panel.io.document._dispatch_msgs"),
                                     (3, "bokeh._x"), (6, "._y"), (7, "panel.io._z.q"), (9, "shell.frame.app._hidden")]


def test_no_private_name_is_imported_outside_the_interception():
    """Outside intercept/, no module imports another module's `_name`, nor Panel's or Bokeh's: each
    uses the public names, or the interception does it for them (listed in intercept/patched.py)."""
    modules = project_modules()
    modules["app"] = REPO / "app.py"
    found = [f"{path.relative_to(REPO)}:{line} {name}" for module, path in sorted(modules.items())
             if not (module == "intercept" or module.startswith("intercept."))
             for line, name in private_imports(ast.parse(path.read_text()))]
    assert "intercept.patched" in modules and not found, (
        f"use a public name, or move the use into intercept/ and list it in intercept/patched.py: {found}")


# --- one object per server's class state: no other module-level state, no work at import ---------
# The server's state lives in one object, shell.frame.classstate.ClassState, made when the server starts.
# A module-level name may hold a dict, list or set, or a call's result, only when it is listed here
# with why it may: a constant (never changed), a per-page table (weak keys: a page, its widget, its
# session or its event loop; an entry goes with it), or something process-wide by nature.
CONSTANT = "constant: never changed after import"
FROZEN = "constant: a frozen dataclass"
PER_PAGE = "per-page table: weak keys (a page's document, widget, session or event loop), gone with it"
STATE_MODULES = ("export", "shell", "chapters", "uikit", "intercept", "serving", "lab")
MODULE_STATE_ALLOWED = {
    "lab.errors:ROLES": CONSTANT + " (a refusal's role words)",
    "shell.frame.pages:NUMBER_WORDS": CONSTANT,
    "shell.frame.quietlog:QUIET_LOGGERS": CONSTANT,
    "shell.frame.quietlog:_logging_done": "process-wide by nature: Python's logging is configured once per process",
    "shell.tour.view:TOUR_JS": CONSTANT + " (the tour's script, read once)",
    "shell.tour.steps:TOUR": CONSTANT + " (the tour's steps)",
    "export.answers:SCALES": CONSTANT,
    "shell.room.snapshots:RENAMED": CONSTANT,
    "intercept.checks:_PAGES": PER_PAGE + " (each page's checks, which the hooks read)",
    "intercept.checks:NO_CHECKS": FROZEN,
    "intercept.checks:HOOKS": "process-wide by nature: the hooks bound once per process (the page gate, the log)",
    "intercept.validate:_SAY": PER_PAGE, "intercept.validate:_PAGE_SAY": PER_PAGE,
    "intercept.pacing:_TURNSTILES": PER_PAGE + " (one turnstile per event loop)",
    "intercept.inbox:_WAITING": PER_PAGE,
    "intercept.patched:WRITTEN_FOR": CONSTANT,
    "intercept.clicks:DISABLED": CONSTANT, "intercept.clicks:TOO_FAST": CONSTANT,
    "intercept.validate:REFUSED_BY_BOKEH": CONSTANT,
    "uikit.figures:MIN_TYPE": CONSTANT, "uikit.figures:PAGE_TYPE": CONSTANT,
    "uikit.palette:TOKEN_STATES": CONSTANT, "uikit.palette:UNDERLINE": CONSTANT,
    "uikit.panels:FIELD_LABELS": CONSTANT, "uikit.predict:CARD_STYLES": CONSTANT,
    "uikit.presets:VARIANT_LABELS": CONSTANT, "uikit.presets:VARIANT_NOTES": CONSTANT, "uikit.verdicts:WORDS": CONSTANT,
    "uikit.readouts:MEASURED_WORDS": CONSTANT, "uikit.readouts:SAID": CONSTANT,
    "chapters.ch10_breakeven.figures:CAPTION": CONSTANT,
    "chapters.registry:_PARTS": CONSTANT, "chapters.registry:PARTS": CONSTANT,
    "chapters.ch01_dilemma.race:LABEL_Y": CONSTANT,
    "chapters.ch02_easy_words:SPACE_MARKS": CONSTANT,
    "chapters.ch07_correction:RUN_SIZES": CONSTANT,
    "chapters.ch08_full_round:FIND_LABEL": CONSTANT,
    "chapters.ch10_breakeven:GAMMAS": CONSTANT, "chapters.ch10_breakeven.figures:GAMMAS": CONSTANT,
    "chapters.ch11_timeline:COLOURS": CONSTANT, "chapters.ch11_timeline:HATCH": CONSTANT,
    "chapters.ch11_timeline:LABELS": CONSTANT, "chapters.ch11_timeline:LANE_NAMES": CONSTANT,
    "chapters.ch12_cheaper_guesses:DRAFTER_NAMES": CONSTANT, "chapters.ch12_cheaper_guesses:DRAFTING_WORDS": CONSTANT,
    "serving.supervise:_launcher_pid": "the launcher's own process (python -m serving), not a server's class",
    "lab.core.adaptive:SOURCES": CONSTANT, "lab.core.montecarlo:RULES": CONSTANT, "chapters.ch07_correction:RULE_NAMES": CONSTANT,
    "lab.core.sampling:GREEDY": FROZEN, "lab.experiments.compare:RAW": FROZEN,
    "lab.devices:DEFAULT_DTYPE": CONSTANT, "lab.devices:BYTES": CONSTANT, "lab.devices:NAMES": CONSTANT,
    "lab.devices:CPU": FROZEN, "lab.pairs.wheel:DEFAULT_SOURCE": FROZEN,
    "lab.errors:__all__": CONSTANT,
    "lab.experiments.breakeven:ALPHAS": CONSTANT, "lab.experiments.cheaper:BY_KEY": CONSTANT,
    "chapters.ch13_predictable.words:KIND_NAMES": CONSTANT,
    "lab.pairs.cachedir:CACHE_ERRNOS": CONSTANT, "lab.pairs.hub:FILES": CONSTANT,
    "lab.pairs.tiny:WORDS": CONSTANT, "lab.pairs.variants:LABELS": CONSTANT, "lab.records:RECORDS": CONSTANT,
    "uikit.words:WHO": CONSTANT, "uikit.words:CONTROL": CONSTANT, "uikit.words:SCHEDULE_WORDS": CONSTANT,
    "serving.runtime:_BEFORE_FORK": "the launcher's own process (python -m serving): the pair it loads before forking",
}
# Calls whose result never changes (a logger, a compiled pattern, a stylesheet's text …): always allowed.
IMMUTABLE_MAKERS = {"logging.getLogger", "re.compile", "frozenset", "tuple", "Path", "object", "str", "int",
                    "float", "max", "min", "TypeVar", "sheet", "N_"}     # N_: a catalog-marked str, as given


def state_modules() -> dict[str, Path]:
    modules = {name: path for name, path in project_modules().items() if name.split(".")[0] in STATE_MODULES}
    modules["app"] = REPO / "app.py"
    return modules


def module_state(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of each module-level name that holds a dict, list or set or a call's result (but
    IMMUTABLE_MAKERS'), and of each name a function rebinds with `global`."""
    found = []
    for node in tree.body:
        targets, value = ((node.targets, node.value) if isinstance(node, ast.Assign) else
                          ([node.target], node.value) if isinstance(node, ast.AnnAssign) else ([], None))
        if isinstance(value, (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Set, ast.SetComp)) or (
                isinstance(value, ast.Call) and ast.unparse(value.func) not in IMMUTABLE_MAKERS):
            found += [(n.id, node.lineno) for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    found += [(name, node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names]
    return found


def test_module_state_is_found():
    tree = ast.parse("import re\nA = {}\nB: list = []\nC = Thing()\nD = re.compile('x')\nE = (1, 2)\n"
                     "def f():\n    global F\n    F = 1\n")
    assert [name for name, _ in module_state(tree)] == ["A", "B", "C", "F"]


def test_no_module_level_state_but_the_class_state_object():
    """What a server keeps across pages lives in its class state (shell.frame.classstate), made when the
    server starts: a test builds a fresh one instead of resetting module globals."""
    found = sorted({f"{name}:{var} (line {line})" for name, path in state_modules().items()
                    for var, line in module_state(ast.parse(path.read_text()))
                    if f"{name}:{var}" not in MODULE_STATE_ALLOWED})
    assert "shell.frame.classstate" in state_modules() and not found, (
        "keep this in the server's class state (shell.frame.classstate.ClassState), or name it in "
        f"MODULE_STATE_ALLOWED with why it may stay: {found}")


# Scripts, not modules: run by `panel serve` for a session or at the server's start.
SCRIPTS = {"app": "serves the app", "shell.start": "starts the models (panel serve --setup)"}


def test_importing_every_module_creates_no_file(tmp_path):
    """Importing the lab does no work: no store is opened, no cache folder made, no old file removed
    (shell.store.shared's SQLite file is opened when the server starts, by its class state), no
    library function patched (the interception is installed by the server's class state)."""
    import os
    import subprocess
    import sys
    home = tmp_path / "home"
    home.mkdir()
    names = sorted(name for name in state_modules() if name not in SCRIPTS)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SPECLAB_", "XDG_", "HF_"))}
    env.update(HOME=str(home), PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1",
               SPECLAB_CACHE=str(home / "cache"), SPECLAB_STORE=str(home / "store" / "class.sqlite"),
               MPLCONFIGDIR=str(tmp_path / "mpl"))
    code = ("import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
            "from intercept.patched import patched_now\nassert not patched_now(), f'patched at import: {patched_now()}'\n")
    done = subprocess.run([sys.executable, "-c", code, *names], cwd=home, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    made = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert made == [], f"importing the lab made these files: {made}"
