"""A module a reader can hold: every module of the lab at most MODULE_LINES lines and every class
at most CLASS_LINES (split by responsibility when one grows past them)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "serving", "shell", "uikit", "intercept", "chapters", "export")
MODULE_LINES, CLASS_LINES = 330, 160


def sources() -> list[Path]:
    return [ROOT / "app.py"] + sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_every_module_is_at_most_330_lines():
    long = {str(p.relative_to(ROOT)): n for p in sources() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert long == {}, f"modules over {MODULE_LINES} lines: {long}"


def test_every_class_is_at_most_160_lines():
    long = {}
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and (n := node.end_lineno - node.lineno + 1) > CLASS_LINES:
                long[f"{path.relative_to(ROOT)}:{node.name}"] = n
    assert long == {}, f"classes over {CLASS_LINES} lines: {long}"


def test_the_check_sees_the_project():
    assert len(sources()) > 100
