"""Loading the server's model pair in the background, with progress the pages can show.

The first page of a fresh server must not freeze while the pair loads (seconds to a minute): the
shell starts the load on a thread and shows `loading_view(loader)` (`loader.fraction`,
`loader.message`) until `ready`. One loader per server, in its class state (shell.frame.classstate).
The loader's stages are English messages marked for the catalog with named values (a
lab.i18n.Said): each page shows the current one in its own language (`said_here`).
"""
from __future__ import annotations

import html
import logging
import os
import sys
import threading
import time

import panel as pn

from serving import LAUNCHER_SAID
from serving.runtime import PairInUse
from lab.errors import log_failure, public_message, scrub_paths
from lab.i18n import N_, Said
from shell.frame.heap import Heap
from intercept.pacing import served
from uikit.language import gettext as _, say
from uikit.styles import SHELL_CSS

PAIR_SHARE = 0.95     # the bar's share for loading the pair; the rest is settling it, so 100% means ready

log = logging.getLogger(__name__)


class PairLoader:
    """Loads `pair_in_use`'s pair on a thread of its own, then settles `heap` (shell.frame.heap)."""

    def __init__(self, pair_in_use: PairInUse | None = None, heap: Heap | None = None):
        self.pair_in_use = pair_in_use if pair_in_use is not None else PairInUse()
        self.heap = heap if heap is not None else Heap()
        self.fraction = 0.0
        self.message = N_("Starting the models…")    # English: what the log says (`said_here`: a page's)
        self.stage = Said(self.message)              # its catalog message and values, for the pages
        self.error = ""
        self.ready = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._waiting: list = []     # (document, callback) to wake when loading ends

    def when_done(self, doc, callback) -> None:
        """Run `callback` in `doc` (under its lock) once loading has finished or failed."""
        with self._lock:
            if not (self.ready or self.error):
                self._waiting.append((doc, callback))
                return
        if served(doc):
            doc.add_next_tick_callback(callback)

    def _wake(self) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, []
        for doc, callback in waiting:
            if served(doc):
                doc.add_next_tick_callback(callback)

    def progress(self, fraction: float, message: str = "") -> None:
        """Note how far loading is (never back) and what it does now: pages read both; the terminal
        gets one line updated in place, a log file a line per stage."""
        self.fraction = max(self.fraction, min(1.0, float(fraction)))
        said = self.message
        if message:
            self.message = scrub_paths(message)   # pages never show server paths; the log keeps them
            self.stage = self.message if isinstance(self.message, Said) else Said(self.message)  # bare: an id
        if sys.stderr.isatty():                   # the terminal: one line, updated in place
            sys.stderr.write(f"\rLoading the models: {int(self.fraction * 100):3d}% {self.message[:70]:70}")
            sys.stderr.flush()
        elif self.message != said:                # a log file: a line per stage
            log.info("loading the models: %3d%% %s", int(self.fraction * 100), self.message)

    def said_here(self) -> str:
        """The current stage in the page's language (uikit.language), without server paths."""
        return say(self.stage)

    def load(self) -> None:
        """Load the pair on this thread (`start` runs it on a thread of its own): `ready`, or `error`
        as one path-free sentence; then wake the pages waiting for it."""
        started = time.monotonic()
        try:
            # the server's --args, else the environment, else the default; its 100% is not yet ready
            self.pair_in_use.load(progress=lambda fraction, message="": self.progress(
                min(1.0, float(fraction)) * PAIR_SHARE, message))
            pair = self.pair_in_use.service().pair
            self.heap.settle()
            self.progress(1.0, Said(N_("Loaded {target} and {draft}."), target=pair.target_label,
                                     draft=pair.draft_label))
            if sys.stderr.isatty():
                sys.stderr.write("\n")
            log.info("pair loaded: %s (target) and %s (draft) on %s in %.0f s", pair.target_label,
                     pair.draft_label, pair.device, time.monotonic() - started)
            with self._lock:
                self.ready = True
        except Exception as err:   # shown on every page (without server paths); the server keeps running
            if str(err) == os.environ.get(LAUNCHER_SAID):    # the launcher said it before the fork
                log.info("loading the model pair failed, as the launcher said above")
            else:
                log_failure(log, "loading the model pair failed", err)
            with self._lock:
                self.error = public_message(err)
        self._wake()

    def start(self) -> None:
        """Begin loading (once per process); returns at once."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self.load, name="pair-loader", daemon=True)
                self._thread.start()


def loading_view(loader: PairLoader) -> tuple[pn.Column, callable]:
    """A progress bar and a line on `loader`'s pair, and the function that refreshes them."""
    bar = pn.indicators.Progress(value=None, max=100, sizing_mode="stretch_width", bar_color="primary")
    text = pn.pane.HTML("", stylesheets=[SHELL_CSS], sizing_mode="stretch_width")

    def refresh():
        if loader.error:
            said = html.escape(_("The models could not be loaded: {why}").format(why=say(loader.error)))
            text.object = f'<div class="loading"><p class="err" role="alert">{said}</p></div>'
            bar.visible = False
            return
        bar.value = int(loader.fraction * 100) if loader.fraction > 0 else None
        said = html.escape(_("Loading the models — {what}").format(what=loader.said_here()))
        first = html.escape(_("The first start takes up to a minute; later pages open at once."))
        text.object = f'<div class="loading" role="status" aria-live="polite"><p>{said}</p><p>{first}</p></div>'

    refresh()
    return pn.Column(text, bar, sizing_mode="stretch_width"), refresh
