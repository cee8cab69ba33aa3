"""The cyclic garbage collector and a class's pages.

A full collection walks every object the collector tracks and holds every student's page while it
does. A served lab holds about half a million objects from start-up (the models, torch,
transformers, Panel) and ~10–20 thousand more per open page, and Panel runs a full collection a few
seconds after sessions close: left alone, each of those collections walks the whole class. So:

- at start-up, collect once and freeze (`gc.freeze`) what is alive: out of the collector's reach;
- every second (`tick`), freeze again: what has lived a second (a page being read, a student's
  settings) joins it, and the collector, Panel's collections included, walks only what is newer;
- the pages closed since are garbage inside the frozen heap: a sweep (unfreeze, collect, freeze)
  frees them. A sweep walks the whole heap, every open page included, and every page waits while it
  runs; a class often goes quiet just before it acts together (a poll). So sweeps are few: one waits
  for QUIET_CLOSED closed sessions and a quiet room (the event loop, whose thread runs the ticks,
  used under QUIET_LOAD of a core for QUIET_TICKS seconds), at most once per MIN_SPACING seconds;
  after MAX_CLOSED closed sessions one goes at once, whatever the load. A closed page holds about
  1 MB until it is swept, so MAX_CLOSED bounds that memory at about half a gigabyte and a lecture
  hall's page turns wait for a quiet moment; a quiet room is also swept after STRAY_SPACING
  seconds, for garbage no session left.

One `Heap` per server, in its class state (shell.frame.classstate): `settle()` once the pair is loaded,
`tick()` every second (Panel's `schedule_task`, from shell.frame.app.configure), `session_closed()` from
each session's end (shell.room.sessions).
"""
from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger(__name__)

QUIET_LOAD = 0.1       # the event loop's share of a core below which the server counts as quiet
QUIET_TICKS = 3        # quiet seconds in a row before a sweep
MIN_SPACING = 60.0     # seconds between two sweeps the quiet allows
QUIET_CLOSED = 50      # closed sessions worth a sweep in a quiet room
MAX_CLOSED = 500        # closed sessions that force a sweep whatever the load (~0.5 GB)
STRAY_SPACING = 1800.0  # seconds after which a quiet room is swept even with no session closed


class Heap:
    """The policy's state, one per server. `clock` (wall) and `cpu` (the ticking thread's CPU time)
    are for tests."""

    def __init__(self, clock=time.monotonic, cpu=time.thread_time):
        self._clock, self._cpu = clock, cpu
        self._last = (clock(), cpu())
        self._lock = threading.Lock()
        self.closed = 0           # sessions closed since the last sweep
        self.quiet = 0            # quiet ticks in a row
        self.kept = 0             # objects frozen after the last sweep
        self.last_sweep = clock()
        self.sweeps = 0

    def settle(self) -> None:
        """Start-up: collect once, then freeze everything alive now."""
        gc.collect()
        gc.freeze()
        self.kept, self.last_sweep = gc.get_freeze_count(), self._clock()

    def session_closed(self) -> None:
        with self._lock:
            self.closed += 1

    def tick(self) -> None:
        """Once a second: freeze what has lived a second; sweep when the rules above say so."""
        gc.freeze()
        (wall, cpu), (wall0, cpu0) = (self._clock(), self._cpu()), self._last
        self._last = wall, cpu
        with self._lock:
            self.quiet = self.quiet + 1 if cpu - cpu0 < QUIET_LOAD * max(wall - wall0, 1e-3) else 0
            since = wall - self.last_sweep
            due = self.closed >= MAX_CLOSED or self.quiet >= QUIET_TICKS and (
                since >= MIN_SPACING and self.closed >= QUIET_CLOSED or since >= STRAY_SPACING)
        if due:
            self.sweep()

    def sweep(self) -> None:
        """Free the closed pages: unfreeze, collect everything, freeze what is still alive."""
        started = time.perf_counter()
        with self._lock:
            closed, self.closed, self.quiet = self.closed, 0, 0
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.kept, self.last_sweep = gc.get_freeze_count(), self._clock()
        self._last = self.last_sweep, self._cpu()   # the sweep's own time is not the room's
        self.sweeps += 1
        log.info("heap: swept after %d closed sessions: %d objects freed, %d kept, in %.2f s",
                 closed, freed, self.kept, time.perf_counter() - started)

