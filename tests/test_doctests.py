"""The `>>>` examples in the lab's docstrings run, and say what they show: every module of the
project with one is collected here (a new example is picked up without listing it)."""
import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "serving", "shell", "uikit", "intercept", "chapters", "export")


def modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name != "__main__.py" and ">>> " in path.read_text(encoding="utf-8"):
                found.append(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
    return found


def test_the_examples_are_found():
    assert {"lab.core.analytic", "lab.core.adaptive", "lab.records"} <= set(modules_with_examples())


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_of(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name} has a '>>> ' that doctest does not see as an example"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (see above)"
