"""The model pair a server serves and its model service.

The pair is what the server's arguments ask for (`panel serve app.py --args --pair NAME ...`, which
Bokeh hands app.py and shell/start.py), else the environment's, else the embedded default: a
registry name (`tiny` is the tiny random-weight pair the browser tests serve), or a lecturer's own
pair (lab.pairs.load.load_requested). A lecturer can switch the pair for everyone while the server
runs (`PairInUse.switch`); a pair that fails to load leaves the working one in place. One
`PairInUse` per server: the shell's class state holds it (shell.frame.classstate), the export makes its
own. The launcher (`python -m serving --num-procs N`) loads the pair once before it forks the
server processes (`load_before_fork`); each process's PairInUse then starts from that one.

    pair_in_use = PairInUse(["--pair", "tiny"])
    pair_in_use.service()                  # the ModelService every page of the server shares
    pair_in_use.switch("tiny")             # a Future: the new pair, loaded on the model worker
"""
from __future__ import annotations

import gc
import threading

from lab.i18n import N_, Said
from lab.pairs.load import load_requested
from lab.pairs.registry import PairSpec, resolve_pair
from serving.service import ModelService

_BEFORE_FORK = None   # the pair the launcher loaded before forking (set in the launcher's process only)


def load_before_fork(args: list[str]):
    """The launcher's load of the pair its server processes will serve: a process it forks inherits
    it, and its PairInUse serves it instead of loading its own."""
    global _BEFORE_FORK
    _BEFORE_FORK = load_requested(list(args))
    return _BEFORE_FORK


def loaded_before_fork():
    """The pair the launcher loaded before the fork, in a server process it forked; else None."""
    return _BEFORE_FORK


class PairInUse:
    """The pair one server serves (the one its arguments ask for, or the lecturer's switch) and its
    one ModelService, made on first use."""

    def __init__(self, args: list[str] | None = None):
        self._lock = threading.Lock()
        self._loading = threading.Lock()
        self.args = list(args or [])  # the server's own arguments: which pair, on which device
        self.started = None           # the pair they ask for, once loaded
        self.switched = None          # a pair the lecturer switched to while serving
        self._service: ModelService | None = None

    def use_args(self, argv: list[str]) -> None:
        """The server's own arguments (`--pair NAME`, `--device` …); the pair loads by them when first
        asked for (later calls change nothing once it has)."""
        self.args = list(argv)

    def requested(self) -> PairSpec:
        """The pair the server was asked for (its arguments, else the environment, else the default);
        PairError (one sentence) when they name none."""
        return resolve_pair(self.args)

    def load(self, progress=None):
        """The pair the server's arguments ask for, loaded on the first call (thread-safe), or the one
        the launcher loaded before the fork."""
        if self.started is not None:          # every page asks, many times a second: no lock once loaded
            return self.started
        with self._loading:
            if self.started is None:
                self.started = _BEFORE_FORK if _BEFORE_FORK is not None else load_requested(self.args, progress)
            return self.started

    def current(self):
        return self.switched if self.switched is not None else self.load()

    def loaded(self):
        """The pair served now if it is loaded (or the launcher loaded it before the fork), else None
        (never loads it)."""
        if self.switched is not None:
            return self.switched
        return self.started if self.started is not None else _BEFORE_FORK

    def service(self) -> ModelService:
        """The one ModelService of this server (created on first use)."""
        with self._lock:
            if self._service is None:
                self._service = ModelService(self.current)
            return self._service

    def switch(self, name: str | None = None, target: str | None = None, draft: str | None = None,
               progress=None):
        """Load another pair (a registry name, or a target and a draft model) and serve it to every
        session, on the device the server's arguments ask for.

        Runs on the model worker so no round is half on one pair and half on the other. The Future
        raises PairError (one sentence) and the current pair stays when the new one cannot be used.
        """
        from lab.pairs.load import PairError, load_spec

        def load():
            argv = ["--pair", name] if name else ["--target", target or "", "--draft", draft or ""]
            if not name and not (target and draft):
                raise PairError(Said(N_("Give a pair name, or both a target and a draft.")))
            pair = load_spec(resolve_pair(argv, environ={}), progress, args=self.args)
            self.switched = pair
            self.service().clear()
            # The server freezes what lives past a second (shell.frame.heap): unfreeze so the old pair is
            # collected now; the server's next tick freezes what is still alive.
            gc.unfreeze()
            gc.collect()
            return pair

        return self.service().submit(load, owner="lecturer")
