"""What the hooks ask about a page: the checks its session registered, the page gate, the log.

The hooks are bound once per process (`intercept.install`); what they ask changes per page. A served
page registers its checks when its session joins the class (`register_page(doc, PageChecks(...))`:
its browser's allowances, shell.room.browsers), and each hook reads the checks of the page whose
message, callback or click it holds. A page that registered none is never held back. The table is
keyed weakly by the page's document: a closed page's entry goes with it.

    register_page(doc, PageChecks(admit=..., pace=..., cost=..., click=...))
    checks_of(doc).admit          # None: no check
    HOOKS.gate                    # the page gate the doors ask (the class's, given to install)
"""
from __future__ import annotations

import dataclasses
import logging
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

QUIET_FOR = 60.0               # seconds: one log line per client this often for its unusable messages


@dataclass(frozen=True)
class PageChecks:
    """One page's checks, each asked with the page's document (None: no check)."""
    admit: Callable[[object], bool] | None = None            # may its change be applied now? (spends it)
    pace: Callable[[object], float] | None = None            # seconds before its message is read (0 spends it)
    cost: Callable[[object, float], object] | None = None    # its session's callback took this long
    click: Callable[[object], bool] | None = None            # may its browser click now?


NO_CHECKS = PageChecks()
_PAGES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # document → PageChecks


def register_page(doc, checks: PageChecks | None) -> None:
    """The checks every hook asks for page `doc` from now on (None: none)."""
    if checks is None or checks == NO_CHECKS:
        _PAGES.pop(doc, None)
    else:
        _PAGES[doc] = checks


def checks_of(doc) -> PageChecks:
    """The checks page `doc` registered (NO_CHECKS when none, or for None)."""
    if doc is None:
        return NO_CHECKS
    try:
        return _PAGES.get(doc, NO_CHECKS)
    except TypeError:          # not weakly referable: never registered
        return NO_CHECKS


def change_checks(doc, **changes) -> None:
    """Replace some of page `doc`'s checks, keeping the others (`click=None` drops that one)."""
    register_page(doc, dataclasses.replace(checks_of(doc), **changes))


class OncePerMinute:
    """Log a client's problem at most once per `every` seconds (then with how many were not logged)."""

    def __init__(self, every: float = QUIET_FOR, clock=time.monotonic, size: int = 4096):
        self.every, self.clock, self.size = every, clock, size
        self._last: OrderedDict[str, tuple[float, int]] = OrderedDict()   # client → (logged at, unlogged since)

    def say(self, client: str, text: str) -> bool:
        """Log `text` for `client` unless it was logged less than `every` seconds ago; whether it was."""
        now = self.clock()
        at, skipped = self._last.pop(client, (float("-inf"), 0))
        if now - at < self.every:
            self._last[client] = (at, skipped + 1)
            return False
        more = f" ({skipped} more from it in the last minute)" if skipped else ""
        log.warning("%s%s", text, more)
        self._last[client] = (now, 0)
        while len(self._last) > self.size:
            self._last.popitem(last=False)
        return True


class Hooks:
    """What every page shares: the page gate (`gate(request)` → None or a doors.Refusal; None: every
    page is built), the refused page requests waiting for their answer now (intercept.doors), and
    the log of unusable messages, one line per client a minute."""

    def __init__(self):
        self.gate: Callable[[object], object] | None = None
        self.refusals_waiting = 0
        self.unusable = OncePerMinute()


HOOKS = Hooks()


def client_address(doc) -> str:
    """The client address of a served page's request ('' when unknown: tests, scripts)."""
    request = getattr(getattr(doc, "session_context", None), "request", None)
    try:
        return str(getattr(request, "remote_ip", "") or "")
    except Exception:          # a request proxy without it
        return ""


def describe(err: BaseException) -> str:
    """An error in one short line: its kind and the start of its message."""
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text[:160]}{'…' if len(text) > 160 else ''}"
