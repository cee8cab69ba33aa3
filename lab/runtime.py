"""The process-wide singletons: the model pair in use and the model service.

`SPECLAB_PAIR=tiny` serves the tiny random-weight pair (seconds to start; used by the browser
tests); anything else is resolved by `lab.pair.get_pair()` (the embedded default, a registry name,
or a lecturer's own pair).
"""
from __future__ import annotations

import os
import threading

from lab.service import ModelService

_lock = threading.Lock()
_tiny = None
_service: ModelService | None = None


def current_pair():
    global _tiny
    if os.environ.get("SPECLAB_PAIR", "").startswith("tiny"):
        with _lock:
            if _tiny is None:
                from lab.tiny import tiny_pair
                family = os.environ["SPECLAB_PAIR"].partition("-")[2] or "llama"
                _tiny = tiny_pair(family)
        return _tiny
    from lab.pair import get_pair
    return get_pair()


def service() -> ModelService:
    """The one ModelService of this process (created on first use)."""
    global _service
    with _lock:
        if _service is None:
            _service = ModelService(current_pair)
        return _service
