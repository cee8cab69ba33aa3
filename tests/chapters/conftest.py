"""Chapter pages made small for their tests (the shared fixtures are in tests/conftest.py)."""
import sys

import pytest


@pytest.fixture
def small_chapter(make_chapter, monkeypatch):
    """Build a chapter page with its module's sizes made small for the tests, undone afterwards:
    `small_chapter(PredictableChapter, PER_KIND=1, MAX_NEW_TOKENS=10)` (chapters 12 and 13)."""
    def make(cls, **sizes):
        for name, value in sizes.items():
            monkeypatch.setattr(sys.modules[cls.__module__], name, value)
        return make_chapter(cls)
    return make
