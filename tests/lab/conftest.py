"""Fixtures of the lab tests: a fake wheel for preparing the embedded pair (tests/lab/fakewheel.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def fake_wheel(tmp_path_factory):
    """(wheel path, sha256) of a wheel holding a tiny GGUF; skipped without the gguf package."""
    pytest.importorskip("gguf")
    from tests.lab.fakewheel import make_fake_wheel
    return make_fake_wheel(tmp_path_factory.mktemp("wheel"))
