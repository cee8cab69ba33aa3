"""The server's two doors, watched before any work is done behind them: page requests and websocket
messages.

A `GET /app` makes a whole Panel session (the app script, the page's frame) before the page is
sent, and Bokeh has no public hook before that work: Panel's `DocHandler.get` is wrapped once per
process (`install`), and a request the gate refuses (the class's, `intercept.checks.HOOKS.gate`,
given to `intercept.install`) is answered with its small page (a status such as 429, a
`Retry-After`) and no session at all, after a short wait (REFUSAL_WAIT: a script that waits for each
answer before its next request, as most do, then asks a few times a second per connection instead of
hundreds, so a flood costs the class little; at most REFUSALS_WAITING wait at once, each holding its
connection, the rest answered at once); a websocket naming no session (which would make one) asks
the same gate. The client address is
tornado's `request.remote_ip`, which reads X-Forwarded-For / X-Real-IP only when the server runs
with `--use-xheaders`.

A websocket message is capped in size (MAX_MESSAGE bytes: tornado closes the connection on a
larger one before it is read, `WebSocketHandler.max_message_size`), and one that Bokeh's receiver
or handler cannot use (not JSON, a wrong header, an unknown kind) closes its connection with one
log line per client a minute (intercept.checks's `OncePerMinute`), never a traceback: Bokeh's
`WSHandler._receive` and `_handle` are wrapped. Every internal is listed in intercept/patched.py.

    install()        # once per process; HOOKS.gate(request) -> None (build) or Refusal(status, html, retry)
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from intercept.checks import HOOKS, describe

MAX_MESSAGE = 256 * 2 ** 10     # bytes: the largest websocket message a browser may send (a page sends < 10 KB)
CLOSE_UNREADABLE = 1007         # the websocket's code for "a message this endpoint cannot use"
REFUSAL_WAIT = 0.25             # seconds a refused page request waits for its answer
REFUSALS_WAITING = 256          # refused requests waiting at once (each holds a connection); the rest: at once


@dataclass(frozen=True)
class Refusal:
    """A page request answered without a session: its HTTP status, a small HTML page, and the
    seconds after which the client may try again (0: no Retry-After)."""
    status: int
    page: str
    retry: int = 0


def install(limit: int = MAX_MESSAGE) -> None:
    """Both doors, once per process: every page request asks `HOOKS.gate(request)` (tornado's
    HTTPServerRequest) before Panel builds its session (the page, and its `autoload.js` form), and a
    Refusal is sent instead; every websocket message is capped and read quietly (`guard_messages`)."""
    from panel.io.server import AutoloadJsHandler, DocHandler
    for handler in (DocHandler, AutoloadJsHandler):
        _gate_get(handler)
    _gate_new_sessions_by_websocket()
    access = logging.getLogger("tornado.access")
    if not any(isinstance(f, _Refused) for f in access.filters):
        access.addFilter(_Refused())
    guard_messages(limit)


def gate(request) -> Refusal | None:
    """The class's page gate's answer for `request` (None: build the page; no gate, every page)."""
    return HOOKS.gate(request) if HOOKS.gate is not None else None


def _gate_get(handler) -> None:
    original = handler.get
    if getattr(original, "speclab", False):
        return

    async def get(self, *args, **kwargs):
        refusal = gate(self.request)
        if refusal is None:
            return await original(self, *args, **kwargs)
        if HOOKS.refusals_waiting < REFUSALS_WAITING:      # one event loop per process: no lock
            HOOKS.refusals_waiting += 1
            try:
                await asyncio.sleep(REFUSAL_WAIT)
            finally:
                HOOKS.refusals_waiting -= 1
        client = _client(self)
        HOOKS.unusable.say(f"page {client}", f"a client ({client}) asked for pages faster than the server "
                                             f"builds them, or with a wrong lecturer token: answered without a "
                                             f"page (HTTP {refusal.status})")
        self.set_status(refusal.status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        if refusal.retry:
            self.set_header("Retry-After", str(refusal.retry))
        self.finish(refusal.page)
    get.speclab, get.original = True, original
    handler.get = get


def _gate_new_sessions_by_websocket() -> None:
    """A websocket whose token names no session makes one (Bokeh's session ids are not signed): the
    same gate decides, and a refused one is closed at once (code 1013: try again later)."""
    from bokeh.protocol.exceptions import ProtocolError
    from bokeh.server.views.ws import WSHandler
    from bokeh.util.token import get_session_id
    original = WSHandler._async_open
    if getattr(original, "speclab", False):
        return

    async def _async_open(self, token):
        try:
            self.application_context.get_session(get_session_id(token))
        except ProtocolError:        # no such session: this connection would build a page
            refusal = gate(self.request)
            if refusal is not None:
                client = _client(self)
                HOOKS.unusable.say(f"page {client}", f"a browser ({client}) opened too many pages at once; "
                                                     "a connection was closed")
                self.close(1013, "Too many pages from this address; try again in a moment.")
                return None
        return await original(self, token)
    _async_open.speclab, _async_open.original = True, original
    WSHandler._async_open = _async_open


class _Refused(logging.Filter):
    """Tornado's access line for each refused page request (HTTP 429) is left out: the gate says it
    once per client a minute instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (args and args[0] == 429)


def _client(handler) -> str:
    return str(getattr(getattr(handler, "request", None), "remote_ip", "") or "a client")


def _unusable(handler, err: BaseException) -> None:
    """One log line per client a minute, and the connection closed."""
    client = _client(handler)
    HOOKS.unusable.say(f"frame {client}", f"a browser ({client}) sent a websocket message this server "
                                          f"cannot read; its connection was closed: {describe(err)}")
    handler.close(CLOSE_UNREADABLE, "This message could not be read; the connection was closed.")


def guard_messages(limit: int = MAX_MESSAGE) -> None:
    """Cap every websocket message at `limit` bytes, and close a connection whose message cannot be
    read or handled with one log line per client a minute (no traceback). Once per process."""
    from bokeh.server.views.ws import WSHandler
    WSHandler.max_message_size = property(lambda self: limit)   # tornado's own check, before reading
    if getattr(WSHandler._receive, "speclab", False):
        return
    receive, handle = WSHandler._receive, WSHandler._handle

    async def _receive(self, fragment):
        try:
            return await self.receiver.consume(fragment)
        except Exception as err:     # Bokeh's own errors, and a fragment that is not JSON at all
            _unusable(self, err)
            return None

    async def _handle(self, message):
        try:
            return await self.handler.handle(message, self.connection)
        except Exception as err:
            _unusable(self, err)
            return None
    _receive.speclab, _receive.original = True, receive
    _handle.speclab, _handle.original = True, handle
    WSHandler._receive, WSHandler._handle = _receive, _handle
