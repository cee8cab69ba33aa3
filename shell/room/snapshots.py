"""A browser's settings and answers across page loads: each page load is a new Panel session with a
fresh LabState, seeded from the snapshot of its browser's last settings.

    snapshots = Snapshots(store=class_store)     # one per server (shell.frame.classstate)
    state = LabState(service, **snapshots.get(bid))
    snapshots.save(bid, state)                   # after every change of its settings or answers

Kept in memory, bounded; when several processes serve the class (shell.store.shared), a snapshot is also
written to the class's shared store (within half a second, off the event loop), so that a browser's
next page finds its settings whichever process (or machine) serves it. While the store cannot be
written (a full disk, a Redis away), snapshots stay in this process's memory and are written once it
can; when a Redis comes back, every snapshot this process holds is written again.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from lab import records
from shell.store.events import StoreFault
from uikit.state import SETTINGS, LabState

log = logging.getLogger(__name__)

SNAPSHOT_FIELDS = (*SETTINGS, "answers")
RENAMED = {"draft": "variant"}     # a field's older name in a stored snapshot → its name now


class Snapshots:
    """Browser id → its last settings and answers; the oldest browsers are dropped past `size`.

    With a shared `store` (shell.store.contract.ClassStore), a saved snapshot is also written there by
    `flush` (the store's watch thread calls it) and `get` reads the store first, so a browser's next
    page finds its settings whichever process serves it."""

    def __init__(self, size: int = 2000, store=None):
        self.size, self.store = size, store
        self._saved: OrderedDict[str, dict] = OrderedDict()
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        if store is not None:
            store.every_tick(self.flush)
            store.on("rejoin", lambda data: self.write_again())

    def get(self, bid: str) -> dict:
        with self._lock:
            if self.store is None or bid in self._dirty:
                return self._saved.get(bid, {})
        try:
            blob = self.store.snapshot_of(bid)
        except StoreFault:             # the store cannot be read now: this process's own copy
            blob = None
        return self._snapshot(blob) if blob is not None else self._saved.get(bid, {})

    @staticmethod
    def _snapshot(blob: bytes) -> dict:
        """A stored snapshot: plain data (lab.records) with only the snapshot's fields, else {}. A field
        stored under its older name (RENAMED: "draft" for the draft variant) is read under its name now,
        so a snapshot stored by an earlier version of the lab still seeds a browser's page."""
        try:
            value = records.loads(blob)
        except ValueError as exc:
            log.warning("A settings snapshot in the class store was ignored (%s).", exc)
            return {}
        if not isinstance(value, dict):
            return {}
        value = {**{RENAMED[k]: v for k, v in value.items() if k in RENAMED}, **value}   # the new name wins
        return {k: v for k, v in value.items() if k in SNAPSHOT_FIELDS}

    def save(self, bid: str, state: LabState) -> None:
        with self._lock:
            self._saved[bid] = {f: getattr(state, f) for f in SNAPSHOT_FIELDS}
            self._saved.move_to_end(bid)
            while len(self._saved) > self.size:
                self._saved.popitem(last=False)
            if self.store is not None:
                self._dirty.add(bid)

    def flush(self) -> None:
        """Write the snapshots saved since the last flush to the shared store (one operation),
        keeping its `size` newest."""
        with self._lock:
            rows = {bid: records.dumps(self._saved[bid]).encode() for bid in self._dirty if bid in self._saved}
            self._dirty.clear()
        if not rows:
            return
        try:
            self.store.save_snapshots(rows, self.size)
        except StoreFault:             # said by the store; kept here, and written at a later flush
            with self._lock:
                self._dirty.update(rows)

    def write_again(self) -> None:
        """The store is back (it may have lost them): every snapshot held here goes at the next flush."""
        with self._lock:
            self._dirty.update(self._saved)
