"""What a browser sends, bounded per client (intercept.inbox): a flood of property changes collapses
to its latest values as the sender's allowance refills, unusable messages are one log line a minute,
and a client that does not read its websocket is dropped. The hooks are bound once; each page's
checks are read from the table its session registered them in (intercept.checks)."""
import asyncio
import json
import logging

import pytest
from bokeh.document import Document
from bokeh.models import Slider
from bokeh.protocol import Protocol
from bokeh.server.connection import ServerConnection
from bokeh.server.protocol_handler import ProtocolHandler
from bokeh.server.session import ServerSession

from intercept import inbox
from intercept.checks import HOOKS, OncePerMinute, PageChecks, register_page
from tests.helpers import run_apart, FakeClock

PROTOCOL = Protocol()


def message(*events):
    return PROTOCOL.assemble(json.dumps({"msgid": "1", "msgtype": "PATCH-DOC"}), "{}",
                             json.dumps({"events": list(events)}))


def changed(model_id, attr, new):
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}


@pytest.fixture
def served():
    """A served page's Bokeh session with one slider (a tour deck's step is such a property)."""
    doc, slider = Document(), Slider(start=0, end=1000, value=0, title="step")
    doc.add_root(slider)
    seen = []
    slider.on_change("value", lambda attr, old, new: seen.append(new))
    inbox.install()
    yield doc, slider, seen
    register_page(doc, None)


def send_all(doc, messages, until=lambda: True, timeout=10.0):
    """Hand every message to Bokeh's handler as a websocket would, then wait (on the loop) for `until`."""
    async def go():
        connection = ServerConnection(protocol=PROTOCOL, socket=None, application_context=None,
                                      session=ServerSession("s1", doc))
        replies = [await ProtocolHandler().handle(m, connection) for m in messages]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not until() and loop.time() < deadline:
            await asyncio.sleep(0.01)
        return replies
    return run_apart(go())


def test_a_flood_of_changes_from_one_sender_applies_only_the_latest_as_its_allowance_refills(served):
    """200 step changes from one page whose sender may send 5 now: 5 are applied at once, the other
    195 wait as one (the latest), applied when the allowance refills; nothing is lost at the end."""
    doc, slider, seen = served
    budget = [True] * 5
    register_page(doc, PageChecks(admit=lambda d: budget.pop() if budget else False))
    steps = [message(changed(slider.id, "value", n)) for n in range(1, 201)]

    def refill_once_held():
        waiting = [w for w in inbox._WAITING.values()]
        if waiting and len(waiting[0].messages) == 1 and not budget and len(seen) == 5:
            budget.append(True)                   # the allowance refills by one
        return slider.value == 200
    replies = send_all(doc, steps, until=refill_once_held)
    assert all(r.msgtype == "OK" for r in replies)
    assert seen == [1, 2, 3, 4, 5, 200] and slider.value == 200


def test_clicks_past_the_allowance_wait_in_a_short_line_then_are_dropped(served):
    doc, slider, seen = served
    register_page(doc, PageChecks(admit=lambda d: False))
    clicks = [message({"kind": "MessageSent", "msg_type": "bokeh_event",
                       "msg_data": {"type": "event", "name": "button_click", "values": {}}})] * 40
    send_all(doc, clicks, timeout=0.2)
    (waiting,) = [w for w in inbox._WAITING.values() if w.messages]
    assert len(waiting.messages) == inbox.HELD_EVENTS            # the rest were dropped
    waiting.messages.clear()


@pytest.mark.parametrize("bad", [changed("p-no-such-model", "value", 3),
                                 {"kind": "NoSuchKind", "model": {"id": "x"}},
                                 {"kind": "ModelChanged"}], ids=["unknown id", "unknown kind", "no model"])
def test_a_malformed_patch_is_one_log_line_a_minute_never_a_traceback(served, caplog, bad, monkeypatch):
    doc, slider, seen = served
    monkeypatch.setattr(HOOKS, "unusable", OncePerMinute(clock=FakeClock(100.0)))
    with caplog.at_level(logging.DEBUG):
        replies = send_all(doc, [message(bad)] * 200)
    assert all(r.msgtype == "ERROR" for r in replies) and slider.value == 0
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and lines[0].name == "intercept.checks" and lines[0].exc_info is None
    assert "cannot apply" in lines[0].getMessage() and "Traceback" not in caplog.text
    HOOKS.unusable.clock.now += 61                       # a minute later: one more line, with the count
    with caplog.at_level(logging.DEBUG):
        send_all(doc, [message(bad)])
    assert "199 more from it" in caplog.records[-1].getMessage()


def test_a_client_that_does_not_read_its_websocket_is_dropped_past_the_bound(caplog):
    """A real tornado websocket whose client never reads: once `limit` bytes wait unsent, the server
    closes the connection (one log line) instead of holding every update."""
    import base64
    import os
    import socket

    import tornado.web
    import tornado.websocket
    from tornado.httpserver import HTTPServer

    inbox.bound_unread_writes(limit=256 * 1024)
    closed, sent, writes = asyncio.Event(), [], []

    class Pushy(tornado.websocket.WebSocketHandler):
        async def open(self):
            chunk = "x" * 65536
            for _ in range(2000):                  # 128 MB if nothing stopped it
                if self.ws_connection is None or self.ws_connection.is_closing():
                    break
                writes.append(self.write_message(chunk))      # awaited at the end, as Panel does
                sent.append(len(chunk))
                await asyncio.sleep(0)

        def on_close(self):
            closed.set()

    async def go():
        server = HTTPServer(tornado.web.Application([(r"/ws", Pushy)]))
        sock, = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server.add_sockets([sock])
        port = sock.getsockname()[1]
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        client.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        try:
            await asyncio.wait_for(closed.wait(), 30)          # never reads a byte after the handshake
        finally:
            client.close()
            server.stop()
            await asyncio.gather(*writes, return_exceptions=True)
    with caplog.at_level(logging.WARNING, logger="intercept.checks"):
        run_apart(go())
    assert sum(sent) < 64 * 2 ** 20                          # stopped long before the 128 MB
    assert any("did not read its updates" in r.getMessage() for r in caplog.records)
    assert "Traceback" not in caplog.text


def test_a_sender_past_its_read_allowance_waits_before_its_message_is_even_read(served):
    """While `pace` says to wait, the message is not handled (and tornado reads nothing more from
    that websocket): a flood backs up in the sender's own socket."""
    import time
    doc, slider, seen = served
    waits = [0.0, 0.3]                         # the first message waits 0.3 s, the next one not
    register_page(doc, PageChecks(pace=lambda d: waits.pop() if waits else 0.0))
    start = time.perf_counter()
    send_all(doc, [message(changed(slider.id, "value", 5))])
    assert time.perf_counter() - start >= 0.3 and seen == [5]


def test_a_sessions_callbacks_are_charged_to_its_page_their_steps_not_their_waits():
    """Every callback of a page's session (Panel applying a change, a click's async callback, a
    redraw) is timed and charged to the page: each step on the event loop, not what it awaits."""
    import time
    costs = []
    inbox.install()
    doc = Document()
    register_page(doc, PageChecks(cost=lambda doc, seconds: costs.append((doc, seconds))))

    async def click_callback():
        time.sleep(0.03)                 # a step that holds the loop
        await asyncio.sleep(0.2)         # waiting (for the model worker): the loop is free
        time.sleep(0.03)
        return "done"

    async def go():
        session = ServerSession("s1", doc)
        assert await session.with_document_locked(lambda: time.sleep(0.02) or "sync") == "sync"
        done = await session.with_document_locked(click_callback)
        gone = ServerSession("s2", Document())        # Bokeh discards a session in a locked callback
        await gone.with_document_locked(lambda: gone.destroy())
        return done
    assert run_apart(go()) == "done"
    seconds = [s for d, s in costs if d is doc]
    assert seconds[0] >= 0.02 and 0.06 <= sum(seconds[1:]) < 0.15


def test_the_hooks_are_bound_once_and_read_each_pages_own_checks(served):
    """Installing again wraps nothing twice; a page held back by its checks does not hold back a
    page whose browser registered none, or another page's checks."""
    from bokeh.server.session import ServerSession
    doc, slider, seen = served
    handler = ServerSession._handle_patch
    inbox.install()
    assert ServerSession._handle_patch is handler and not getattr(handler.original, "speclab", False)
    register_page(doc, PageChecks(admit=lambda d: False))          # this page's browser is past its allowance
    other, knob = Document(), Slider(start=0, end=10, value=0, title="other")
    other.add_root(knob)
    send_all(doc, [message(changed(slider.id, "value", 7))], timeout=0.1)
    send_all(other, [message(changed(knob.id, "value", 3))])
    assert slider.value == 0 and knob.value == 3                   # held; the other applied at once
    register_page(other, PageChecks(admit=lambda d: True))
    send_all(other, [message(changed(knob.id, "value", 4))])
    assert knob.value == 4 and slider.value == 0
    for waiting in inbox._WAITING.values():
        waiting.messages.clear()
