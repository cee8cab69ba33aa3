"""The library interception: where the lab reaches into Panel, Bokeh and tornado, in one place.

Panel and Bokeh have no public hook for what a class of students sharing one server needs, so the
lab wraps a few of their internal functions, all here: every message a browser sends paced and
counted against its sender and unusable ones answered quietly (inbox), every page's writes bounded
and kept in order (writes), every widget value checked before Panel applies it (validate), every
button's click dropped when its button is off or its browser clicks too fast (clicks), the server's
doors (doors: page requests gated before a session is built, websocket messages capped). `pacing`
holds the helpers that keep work on the shared event loop short. Every internal the lab patches or
uses, anywhere, is listed in `patched` with the versions it was written for; tests/test_internals.py
fails, naming it, when an installed Panel or Bokeh differs in what the lab relies on.

The hooks are bound once per process, by `install` (the server's class state calls it: shell.frame.
classstate); what they ask changes per page: each served page registers its checks (its browser's
allowances) in `checks`' table, which the hooks read. Importing a module of this package patches
nothing. Below uikit, above serving: uikit, chapters and shell may import it; it imports neither.

    install(gate)                                   # once per server: gate(request) -> None or a Refusal
    register_page(doc, PageChecks(admit=..., ...))  # per served page (intercept.checks)
"""
from __future__ import annotations


def install(gate=None) -> None:
    """Bind every hook of the interception, once per process (a later call binds nothing again), and
    let the doors ask `gate(request)` before a page is built (None: every page is built; a later
    call's gate replaces it, as a second class in one process, a test's, would)."""
    from intercept import doors, inbox, validate, writes
    from intercept.checks import HOOKS
    HOOKS.gate = gate
    inbox.install()            # every message paced and counted against its sender; callbacks timed
    writes.install()           # a page's writes in order and whole; a page that does not read, dropped
    validate.install()         # every widget value a browser sends checked first
    doors.install()            # page requests gated; websocket messages capped, unreadable ones closed
