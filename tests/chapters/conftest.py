"""Component tests of chapter pages without a browser: a LabState over the tiny random pair."""
import pytest

from chapters.state import LabState
from lab.service import ModelService
from lab.tiny import tiny_pair


@pytest.fixture(scope="session")
def tiny_service():
    """One ModelService over the tiny pair for the whole test session (its cache is shared)."""
    pair = tiny_pair()
    return ModelService(lambda: pair)


@pytest.fixture
def state(tiny_service):
    """A fresh student's state (default prompt, greedy) over the tiny pair."""
    return LabState(tiny_service)
