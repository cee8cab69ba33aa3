"""What a browser sends and what it is sent, bounded per client, on the event loop every student shares.

Every change a browser sends (a slider move, a tour step, a click, a component's message) is one
PATCH-DOC message that Bokeh applies in `ServerSession._handle_patch`; Bokeh has no public hook
there, so that method is wrapped once per process (`install`; intercept/patched.py lists it). There, with
the checks the sender's page registered (intercept.checks: a page without any is never held):

- every message counts against its sender twice. Reading it (its `pace`): while the
  sender is past its allowance of messages read, its message waits before it is even handled, and
  tornado reads nothing more from that websocket meanwhile, so a flood backs up in the sender's own
  socket, not in the server. Applying it (its `admit`): past the sender's allowance of
  changes applied, a change of a property waits and only its latest value is applied as the
  allowance refills (a flood of tour steps becomes a few steps a second, a slider's last position
  is never lost), and a click or message waits in a short line (HELD_EVENTS), beyond which it is
  dropped. The shell's allowance counts changes and the event-loop time Panel took to apply the
  sender's earlier ones (its `cost`): an expensive change waits longer;
- a message that cannot be applied (an unknown model id, an unknown kind of event, a malformed
  value) is answered with Bokeh's ERROR reply and one log line per client a minute (`QUIET_FOR`),
  never a traceback;
- every callback of a page's session (`ServerSession.with_document_locked`, wrapped too) is timed
  and charged to that page's sender (its `cost`);
- a value Bokeh's own types refuse (text for a number) is said on the page
  (intercept.validate.refused_by_bokeh),
  with the same ERROR reply (one sentence: no traceback, no file path) and log line.

And every page's writes are bounded (`bound_unread_writes`): a client that does not read its
websocket has its connection closed once UNREAD_BYTES wait unsent for it, instead of the server
holding every update it is sent.
"""
from __future__ import annotations

import asyncio
import inspect
import logging
import time
import weakref
from collections import OrderedDict
from typing import Callable

from intercept.checks import HOOKS, checks_of, client_address, describe
from intercept.validate import refused_by_bokeh

log = logging.getLogger(__name__)

HELD_EVENTS = 16               # clicks and component messages that may wait past a sender's allowance
RETRY = 0.05                   # seconds between two looks at a waiting sender's allowance
UNREAD_BYTES = 8 * 2 ** 20     # bytes waiting unsent for one page before its connection is closed
REFUSED = "This value is not one this page accepts; it was ignored."


class Timed:
    """Await `coro`, calling `charge(seconds)` with the time each of its steps held the event loop
    (between its awaits; not the waits themselves)."""

    def __init__(self, coro, charge: Callable[[float], object]):
        self.coro, self.charge = coro, charge

    def __await__(self):
        steps = self.coro.__await__()
        value, error = None, None
        while True:
            start = time.perf_counter()
            try:
                waited = steps.send(value) if error is None else steps.throw(error)
            except StopIteration as stop:
                self.charge(time.perf_counter() - start)
                return stop.value
            self.charge(time.perf_counter() - start)
            try:
                value, error = (yield waited), None
            except BaseException as err:      # a cancellation or error goes into the coroutine
                value, error = None, err


def _timed(session, func):
    """`func` (a session's document callback), its event-loop time charged to the session's page."""
    def timed(*args, **kwargs):
        try:
            doc = session.document        # read first: discarding a session drops its document
        except AttributeError:
            return func(*args, **kwargs)
        start = time.perf_counter()
        try:
            result = func(*args, **kwargs)
        finally:
            charge_sender(doc, time.perf_counter() - start)
        if inspect.isawaitable(result):
            return Timed(result, lambda seconds: charge_sender(doc, seconds))
        return result
    return timed


def charge_sender(doc, seconds: float) -> None:
    """Charge `seconds` of the event loop to the sender of page `doc` (its `cost` check)."""
    cost = checks_of(doc).cost
    if cost is not None:
        cost(doc, seconds)


async def applied(original, session, message, connection):
    """Bokeh's own handling of one message, its failures answered without a traceback."""
    try:
        return await original(session, message, connection)
    except Exception as err:
        problem: BaseException = err
    refused = isinstance(problem, ValueError) and str(problem).startswith("failed to validate")
    if refused:                                # Bokeh's types refused a value: said on the page
        refused_by_bokeh(session.document, problem)
    client = client_address(session.document) or session.id
    HOOKS.unusable.say(client, f"a browser sent a value a widget cannot take ({client}); refused: {problem}"[:300]
                       if refused else f"a browser ({client}) sent a change this server cannot apply; it was "
                                       f"ignored: {describe(problem)}")
    # made outside the except block: Bokeh's ERROR reply then carries no traceback, only this sentence
    return connection.error(message, REFUSED if refused else "This change could not be applied; it was ignored.")


def signature(message) -> tuple | None:
    """(model id, property) of each change in a message made only of property changes, else None."""
    try:
        events = message.content["events"]
        keys = tuple((e["model"]["id"], e["attr"]) for e in events if e["kind"] == "ModelChanged")
    except (KeyError, TypeError, AttributeError):
        return None
    return keys if keys and len(keys) == len(events) and all(isinstance(k, str) for kv in keys for k in kv) \
        else None


class Waiting:
    """One page's messages past its sender's allowance: the latest per changed property, and a short
    line of the rest, applied in order as the allowance refills."""

    def __init__(self):
        self.messages: OrderedDict = OrderedDict()    # signature (or a number) → (message, connection)
        self.events = 0                               # of them, messages that are not property changes
        self.draining = False
        self._n = 0

    def add(self, message, connection) -> bool:
        """Keep `message` to apply later; False when it is dropped (the line of events is full)."""
        key = signature(message)
        if key is None:
            if self.events >= HELD_EVENTS:
                return False
            self._n += 1
            key, self.events = ("event", self._n), self.events + 1
        self.messages.pop(key, None)               # only a property's latest value is applied
        self.messages[key] = (message, connection)
        return True

    def pop(self):
        key, item = self.messages.popitem(last=False)
        if key[0] == "event":
            self.events -= 1
        return item


_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ServerSession → Waiting


async def _drain(session, original) -> None:
    waiting = _WAITING.get(session)
    if waiting is None:
        return
    try:
        while waiting.messages and not session.destroyed:
            admit = checks_of(session.document).admit
            if admit is not None and not admit(session.document):
                await asyncio.sleep(RETRY)
                continue
            message, connection = waiting.pop()
            await applied(original, session, message, connection)
    finally:
        waiting.draining = False
        if session.destroyed:
            _WAITING.pop(session, None)


def install() -> None:
    """Wrap Bokeh's `ServerSession._handle_patch` and `with_document_locked`, once per process."""
    from bokeh.server.session import ServerSession
    if getattr(ServerSession._handle_patch, "speclab", False):
        return
    locked = ServerSession.with_document_locked

    def with_document_locked(self, func, *args, **kwargs):
        """Every callback of a page's session (next tick, timeout, periodic) runs here: timed."""
        return locked(self, _timed(self, func), *args, **kwargs)
    with_document_locked.speclab, with_document_locked.original = True, locked
    ServerSession.with_document_locked = with_document_locked
    original = ServerSession._handle_patch

    async def _handle_patch(self, message, connection):
        checks = checks_of(self.document)
        if checks.pace is not None:
            while (wait := checks.pace(self.document)) > 0 and not self.destroyed:
                await asyncio.sleep(min(wait, 1.0))       # tornado reads nothing more from this page meanwhile
        waiting = _WAITING.get(self)
        if checks.admit is not None and (waiting is not None and waiting.messages or not checks.admit(self.document)):
            waiting = _WAITING.setdefault(self, Waiting())
            waiting.add(message, connection)
            if not waiting.draining:
                waiting.draining = True
                asyncio.get_running_loop().create_task(_drain(self, original))
            return connection.ok(message)
        return await applied(original, self, message, connection)
    _handle_patch.speclab, _handle_patch.original = True, original
    ServerSession._handle_patch = _handle_patch


def bound_unread_writes(limit: int = UNREAD_BYTES) -> None:
    """Close a page's websocket once `limit` bytes wait unsent for it (a client that does not read).
    Once per process: tornado's `IOStream.max_write_buffer_size` is set on each websocket's stream at
    its first write, and the write that would pass it closes the stream instead (one log line)."""
    from tornado.iostream import StreamBufferFullError
    from tornado.websocket import WebSocketHandler
    original = WebSocketHandler.write_message
    if getattr(original, "speclab", False):
        return

    def write_message(self, message, binary=False):
        stream = getattr(self.ws_connection, "stream", None)
        if stream is not None and stream.max_write_buffer_size is None:
            stream.max_write_buffer_size = limit
        try:
            return original(self, message, binary)
        except StreamBufferFullError:
            address = getattr(self.request, "remote_ip", "") or "a client"
            HOOKS.unusable.say(f"unread {address}", f"a page at {address} did not read its updates "
                                                     f"({limit // 2 ** 20} MB waiting); its connection was closed")
            stream.close()
            done = asyncio.get_event_loop().create_future()
            done.set_result(None)
            return done
    write_message.speclab, write_message.original = True, original
    WebSocketHandler.write_message = write_message
