"""Component tests of chapter pages without a browser: a LabState over the tiny random pair."""
import asyncio
import sys

import pytest

from lab.service import ModelService
from lab.tiny import tiny_pair
from uikit.state import LabState


@pytest.fixture(scope="session")
def tiny_service():
    """One ModelService over the tiny pair for the whole test session (its cache is shared)."""
    pair = tiny_pair()
    return ModelService(lambda: pair)


@pytest.fixture
def state(tiny_service):
    """A fresh student's state (default prompt, greedy) over the tiny pair."""
    return LabState(tiny_service)


@pytest.fixture(scope="session")
def make_chapter(tiny_service):
    """Build a chapter page as a session would: `make_chapter(OnePassChapter, load=True)`.

    The chapter gets `state`, or a fresh student's state over the tiny pair; its view is built;
    with `load=True` its first model work (`load()`) has run.
    """
    def make(cls, state=None, *, load=False):
        ch = cls(state if state is not None else LabState(tiny_service))
        ch.__panel__()
        if load:
            asyncio.run(ch.load())
        return ch
    return make


@pytest.fixture
def small_chapter(make_chapter, monkeypatch):
    """Build a chapter page with its module's sizes made small for the tests, undone afterwards:
    `small_chapter(PredictableChapter, PER_KIND=1, MAX_NEW_TOKENS=10)` (chapters 12 and 13)."""
    def make(cls, **sizes):
        for name, value in sizes.items():
            monkeypatch.setattr(sys.modules[cls.__module__], name, value)
        return make_chapter(cls)
    return make


def measured(chapter):
    """Run the chapter's measurement (`measure()`, chapters 12 and 13) to its end: its result."""
    return asyncio.run(chapter.measure())


def step_to_end(chapter):
    """Press Step until the chapter's round is done (chapters 8 and 9)."""
    async def go():
        while not chapter.done:
            await chapter.advance()
    asyncio.run(go())
