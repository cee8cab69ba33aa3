"""The process-wide singletons: the model pair in use and the model service.

`SPECLAB_PAIR=tiny` serves the tiny random-weight pair (seconds to start; used by the browser
tests); anything else is resolved by `lab.pair.get_pair()` (the embedded default, a registry name,
or a lecturer's own pair). A lecturer can switch the pair for everyone while the server runs
(`switch_pair`); a pair that fails to load leaves the working one in place.
"""
from __future__ import annotations

import gc
import os
import threading

from lab.service import ModelService

_lock = threading.Lock()
_tiny = None
_switched = None          # a pair the lecturer switched to while serving
_service: ModelService | None = None


def current_pair():
    global _tiny
    if _switched is not None:
        return _switched
    if os.environ.get("SPECLAB_PAIR", "").startswith("tiny"):
        with _lock:
            if _tiny is None:
                from lab.tiny import tiny_pair
                family = os.environ["SPECLAB_PAIR"].partition("-")[2] or "llama"
                _tiny = tiny_pair(family)
        return _tiny
    from lab.pair import get_pair
    return get_pair()


def settle_heap() -> None:
    """Collect once, then move everything alive now (the models, torch, transformers, Panel) out of
    the cyclic garbage collector's reach. A full collection of that heap takes about 250 ms on a
    2-core laptop, and Panel collects after sessions close: every student's page would freeze for
    it. Objects made later (the sessions) are collected as usual."""
    gc.collect()
    gc.freeze()


def service() -> ModelService:
    """The one ModelService of this process (created on first use)."""
    global _service
    with _lock:
        if _service is None:
            _service = ModelService(current_pair)
        return _service


def switch_pair(name: str | None = None, target: str | None = None, draft: str | None = None,
                progress=None):
    """Load another pair (a registry name, or target + draft) and serve it to every session.

    Runs on the model worker so no round is half on one pair and half on the other. Raises
    PairError (one sentence) and keeps the current pair when the new one cannot be used.
    """
    from lab.pair import PairError, load_spec, resolve_pair

    def load():
        global _switched
        argv = ["--pair", name] if name else ["--target", target or "", "--draft", draft or ""]
        if name and name.startswith("tiny"):
            from lab.tiny import tiny_pair
            pair = tiny_pair(name.partition("-")[2] or "llama")
        else:
            if not name and not (target and draft):
                raise PairError("Give a pair name, or both a target and a draft.")
            pair = load_spec(resolve_pair(argv, environ={}), progress)
        _switched = pair
        service().clear()
        gc.unfreeze()       # the old pair may now be garbage; collect it, then settle the new one
        settle_heap()
        return pair

    return service().submit(load, owner="lecturer")
