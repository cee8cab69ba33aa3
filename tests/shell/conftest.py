"""The component fixtures of tests/chapters (a LabState over the tiny pair), shared here."""
from tests.chapters.conftest import make_chapter, state, tiny_service  # noqa: F401
