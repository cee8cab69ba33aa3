"""The process-wide singletons: the model pair in use and the model service.

The pair is resolved by `lab.pairs.load.get_pair()` from the server's arguments (`use_args`, given by
app.py), else the environment, else the embedded default: a registry name (`tiny` is the tiny
random-weight pair the browser tests serve), or a lecturer's own pair. A lecturer can switch the
pair for everyone while the server runs (`switch_pair`); a pair that fails to load leaves the
working one in place.
"""
from __future__ import annotations

import gc
import threading

from lab.pairs.load import use_args  # noqa: F401  (app.py: runtime.use_args(sys.argv[1:]))
from serving.service import ModelService

_lock = threading.Lock()
_switched = None          # a pair the lecturer switched to while serving
_service: ModelService | None = None


def current_pair():
    if _switched is not None:
        return _switched
    from lab.pairs.load import get_pair
    return get_pair()


def service() -> ModelService:
    """The one ModelService of this process (created on first use)."""
    global _service
    with _lock:
        if _service is None:
            _service = ModelService(current_pair)
        return _service


def forget_switch() -> None:
    """Serve the pair the server was started with again, after a lecturer's switch (tests)."""
    global _switched
    _switched = None


def switch_pair(name: str | None = None, target: str | None = None, draft: str | None = None,
                progress=None):
    """Load another pair (a registry name, or target + draft) and serve it to every session.

    Runs on the model worker so no round is half on one pair and half on the other. Raises
    PairError (one sentence) and keeps the current pair when the new one cannot be used.
    """
    from lab.pairs.load import PairError, load_spec, resolve_pair

    def load():
        global _switched
        argv = ["--pair", name] if name else ["--target", target or "", "--draft", draft or ""]
        if not name and not (target and draft):
            raise PairError("Give a pair name, or both a target and a draft.")
        pair = load_spec(resolve_pair(argv, environ={}), progress)
        _switched = pair
        service().clear()
        # The server freezes what lives past a second (shell.heap): unfreeze so the old pair is
        # collected now; the server's next tick freezes what is still alive.
        gc.unfreeze()
        gc.collect()
        return pair

    return service().submit(load, owner="lecturer")
