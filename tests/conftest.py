"""Fixtures every test folder may use: offline Hugging Face, and component tests without a browser
(a LabState over the tiny random pair, a chapter page built as a session builds it)."""
import asyncio
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def pytest_configure(config):
    from tests.tiers import MARKERS
    config.pluginmanager.register(BrowserTestsLast(), "speclab-browser-tests-last")
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(items):
    """Every test carries its tier (tests/tiers.py): `-m "not browser and not subprocess and not slow"`
    is the fast tier. (Before pytest's own `-m` selection, which reads these markers.)"""
    from tests.tiers import tier_markers
    for item in items:
        name = item.originalname if item.cls is None else f"{item.cls.__name__}.{item.originalname}"
        for marker in tier_markers(item.path, name, list(getattr(item, "fixturenames", ()))):
            item.add_marker(marker)


class BrowserTestsLast:
    """The browser tests run last, in the order pytest chose for them (after its `-m` selection and
    its grouping by fixtures), but for the files that take minutes, first in each tier
    (tests/tiers.py's `run_order`). Playwright's sync API holds an event loop on the main thread from its
    first test on, where `asyncio.run` refuses to start; and pytest groups the tests of a
    parametrized session fixture (pytest-playwright's `browser_name`) where the first of them is
    collected, so one test elsewhere taking a fixture named `page` would pull every browser test
    ahead of the rest."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        from tests.tiers import run_order
        items.sort(key=run_order)     # stable: the order pytest chose is kept within each group


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With `-n 2` (README's test command), pytest-xdist gives each worker whole test files, and a
    file's browser tests as a unit of their own after every other unit (see `BrowserTestsLast`: in
    each worker, as in one process, no test that calls `asyncio.run` comes after a browser test)."""
    from tests.tiers import BrowserLastScheduling
    return BrowserLastScheduling(config, log)


@pytest.fixture(scope="session")
def tiny_service():
    """One ModelService over the tiny pair for the whole test session (its cache is shared)."""
    from serving.service import ModelService
    from lab.pairs.tiny import tiny_pair
    pair = tiny_pair()
    return ModelService(lambda: pair)


@pytest.fixture
def state(tiny_service):
    """A fresh student's state (default prompt, greedy) over the tiny pair."""
    from uikit.state import LabState
    return LabState(tiny_service)


@pytest.fixture(scope="session")
def make_chapter(tiny_service):
    """Build a chapter page as a session would: `make_chapter(OnePassChapter, load=True)`.

    The chapter gets `state`, or a fresh student's state over the tiny pair; its view is built;
    with `load=True` its first model work (`load()`) has run.
    """
    from uikit.state import LabState

    def make(cls, state=None, *, load=False):
        ch = cls(state if state is not None else LabState(tiny_service))
        ch.__panel__()
        if load:
            asyncio.run(ch.load())
        return ch
    return make
