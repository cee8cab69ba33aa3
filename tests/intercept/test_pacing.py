"""Pacing on the shared event loop (intercept.pacing): throttled redraws; a page's writes in order
and whole (intercept.writes)."""
import asyncio
import concurrent.futures

import pytest
from panel.io.state import set_curdoc

from intercept.pacing import Throttled


class ServedDoc:
    """A served page's document, as far as Throttled sees it: timeouts are kept, run by the test."""
    session_context = object()

    def __init__(self):
        self.timeouts = []

    def add_timeout_callback(self, fn, ms):
        self.timeouts.append((fn, ms))


def test_throttled_runs_the_first_move_at_once_and_gathers_a_drag():
    calls, clock = [], [100.0]
    doc = ServedDoc()
    with set_curdoc(doc):
        redraw = Throttled(lambda: calls.append(clock[0]), gap=0.05, clock=lambda: clock[0])
        redraw()                                   # a key press: at once
        assert calls == [100.0] and doc.timeouts == []
        clock[0] = 100.01
        redraw(); redraw(); redraw()               # a drag within the gap: one call, at its end
        assert calls == [100.0] and len(doc.timeouts) == 1
        fn, ms = doc.timeouts[0]
        assert 39 <= ms <= 41
        clock[0] = 100.05
        fn()
        assert calls == [100.0, 100.05]
        clock[0] = 100.2                           # the next move, later than the gap: at once
        redraw()
        assert calls == [100.0, 100.05, 100.2] and len(doc.timeouts) == 1


def test_throttled_runs_at_once_outside_a_served_page():
    calls = []
    redraw = Throttled(lambda: calls.append(1), gap=10)
    redraw(); redraw()
    assert calls == [1, 1]


def test_served_only_for_a_document_with_a_session():
    from intercept.pacing import served

    class Doc:
        session_context = None
    assert not served() and not served(None) and not served(Doc())
    Doc.session_context = object()
    assert served(Doc())


@pytest.mark.parametrize("kept", [False, True])
def test_a_change_deferred_while_the_last_batch_is_written_is_sent(monkeypatch, kept):
    """Panel's write task clears the document's mark after its batch, even when a change was deferred
    meanwhile; the next task then returns at once and the change stays unsent (kept=False shows it).
    With intercept.writes installed the deferred change is written by one more task."""
    from panel.io import document

    from intercept import writes
    class Doc:                                   # Panel keeps its write tasks by weak reference
        pass
    doc, sent = Doc(), []
    monkeypatch.setattr(document, "_WRITE_BLOCK", {})
    monkeypatch.setattr(document, "_WRITE_MSGS", {})

    async def panels_task(d):                  # what Panel's _dispatch_msgs does, reduced
        if d not in document._WRITE_BLOCK:
            return
        sent.extend(document._WRITE_MSGS.pop(d, {}).get("conn", []))
        await asyncio.sleep(0)                   # awaiting the writes: a change is deferred meanwhile
        if not sent[1:]:
            document._WRITE_MSGS[d] = {"conn": ["last"]}
            document._dispatch_write_task(d, document._dispatch_msgs, d)
        del document._WRITE_BLOCK[d]
    monkeypatch.setattr(document, "_dispatch_msgs", panels_task)
    if kept:
        writes.install()

    async def burst():
        document._WRITE_BLOCK[doc] = True
        document._WRITE_MSGS[doc] = {"conn": ["first"]}
        await document._dispatch_msgs(doc)
        for _ in range(5):                       # let the scheduled tasks run
            await asyncio.sleep(0)
    # on a thread of its own: after the browser tests this thread runs Playwright's event loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, burst()).result(timeout=30)
    assert sent == (["first", "last"] if kept else ["first"])


def test_bokehs_messages_are_written_behind_panels_in_the_order_they_were_made(monkeypatch):
    """A message Bokeh makes while Panel still holds an unwritten one for the same page joins
    Panel's queue behind it: the browser never receives a model's reference before its definition."""
    from bokeh.document import Document
    from bokeh.models import Div
    from bokeh.document.events import ModelChangedEvent
    from bokeh.protocol import Protocol
    from bokeh.server.connection import ServerConnection
    from panel.io import document

    from intercept import writes
    monkeypatch.setattr(ServerConnection, "send_patch_document", ServerConnection.send_patch_document)
    monkeypatch.setattr(document, "_dispatch_msgs", document._dispatch_msgs)   # both restored after
    monkeypatch.setattr(document, "_WRITE_BLOCK", {})
    monkeypatch.setattr(document, "_WRITE_MSGS", {})
    written = []

    class Socket:                                  # Panel writes to it through extra_socket_handlers
        pass
    monkeypatch.setitem(document.extra_socket_handlers, Socket,
                        lambda conn, msg=None, events=None: written.append(msg) or [])
    writes.install()
    doc, div = Document(), Div(text="before")
    doc.add_root(div)
    class Session:                                 # what a connection subscribes to
        def subscribe(self, connection):
            pass
    conn = ServerConnection(Protocol(), Socket(), None, Session())

    async def page_changes():
        document._WRITE_BLOCK[doc] = True          # Panel's message, deferred while the socket was busy
        document._WRITE_MSGS[doc] = {conn: ["panel's"]}
        div.text = "after"
        await conn.send_patch_document(ModelChangedEvent(doc, div, "text", "after"))   # Bokeh's
        for _ in range(5):                         # let the write task run
            await asyncio.sleep(0)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, page_changes()).result(timeout=30)
    assert written[0] == "panel's" and len(written) == 2
    assert '"after"' in written[1].content_json and written[1].header["msgtype"] == "PATCH-DOC"
