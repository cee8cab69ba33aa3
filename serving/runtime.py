"""The model pair a server serves and its model service.

The pair is resolved by `lab.pairs.load.get_pair()` from the server's arguments (`use_args`, given by
app.py), else the environment, else the embedded default: a registry name (`tiny` is the tiny
random-weight pair the browser tests serve), or a lecturer's own pair. A lecturer can switch the
pair for everyone while the server runs (`PairInUse.switch`); a pair that fails to load leaves the
working one in place. One `PairInUse` per server: the shell's class state holds it
(shell.classstate), the export and the launcher make their own.

    pair_in_use = PairInUse()
    pair_in_use.service()                  # the ModelService every page of the server shares
    pair_in_use.switch("tiny")             # a Future: the new pair, loaded on the model worker
"""
from __future__ import annotations

import gc
import threading

from lab.pairs.load import use_args  # noqa: F401  (app.py: runtime.use_args(sys.argv[1:]))
from serving.service import ModelService


def current_pair():
    """The pair this process starts with (the server's arguments, the environment, the default):
    what the launcher loads before the fork. A lecturer's switch is `PairInUse.current`'s."""
    from lab.pairs.load import get_pair
    return get_pair()


class PairInUse:
    """The pair one server serves (the one it started with, or the lecturer's switch) and its one
    ModelService, made on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self.switched = None          # a pair the lecturer switched to while serving
        self._service: ModelService | None = None

    def current(self):
        return self.switched if self.switched is not None else current_pair()

    def service(self) -> ModelService:
        """The one ModelService of this server (created on first use)."""
        with self._lock:
            if self._service is None:
                self._service = ModelService(self.current)
            return self._service

    def switch(self, name: str | None = None, target: str | None = None, draft: str | None = None,
               progress=None):
        """Load another pair (a registry name, or target + draft) and serve it to every session.

        Runs on the model worker so no round is half on one pair and half on the other. The Future
        raises PairError (one sentence) and the current pair stays when the new one cannot be used.
        """
        from lab.pairs.load import PairError, load_spec, resolve_pair

        def load():
            argv = ["--pair", name] if name else ["--target", target or "", "--draft", draft or ""]
            if not name and not (target and draft):
                raise PairError("Give a pair name, or both a target and a draft.")
            pair = load_spec(resolve_pair(argv, environ={}), progress)
            self.switched = pair
            self.service().clear()
            # The server freezes what lives past a second (shell.heap): unfreeze so the old pair is
            # collected now; the server's next tick freezes what is still alive.
            gc.unfreeze()
            gc.collect()
            return pair

        return self.service().submit(load, owner="lecturer")
