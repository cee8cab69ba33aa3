"""Every message a page is sent, written whole and in the order it was made.

Panel and Bokeh both write a page's changes to its websocket, and neither has a public hook for the
order: Panel's write task (`panel.io.document._dispatch_msgs`) and Bokeh's
`ServerConnection.send_patch_document` are replaced here, once per process (`install`; both are
listed in intercept/patched.py). Writing a page's messages is charged to its sender's event-loop
time (intercept.inbox).
"""
from __future__ import annotations

from intercept.inbox import Timed, bound_unread_writes, charge_sender


def install() -> None:
    """Never leave a page's last changes unsent, nor send them out of order; bound what a page that
    does not read is sent (intercept.inbox.bound_unread_writes). Once per process.

    Two writers share a page's websocket. Panel writes a change made inside its `unlocked()` at
    once, or, while the socket is busy, keeps the message in `_WRITE_MSGS` (the document marked in
    `_WRITE_BLOCK`) for its task `_dispatch_msgs`. Bokeh makes a message for every other change at
    once, but writes it only after the callback that made it returns. A message names a new model
    in full only the first time the model is sent, so a later message written first makes the
    browser fail with "reference pNNNN isn't known". Here Bokeh's messages join Panel's queue as
    they are made, so every message is written in the order it was made.

    Panel's task also clears the document's mark when it finishes its batch, even if a message was
    deferred while it awaited the writes; the next task then returns at once and the burst's last
    changes stayed unsent until the page changed again. Here a task that leaves messages behind
    unmarked marks the document again and schedules one more.
    """
    from bokeh.server.connection import ServerConnection
    from panel.io import document
    bound_unread_writes()                   # a page that does not read its updates is dropped (intercept.inbox)
    if getattr(document._dispatch_msgs, "speclab", False):
        return
    original = document._dispatch_msgs

    async def dispatch(doc):
        if doc not in document._WRITE_BLOCK and document._WRITE_MSGS.get(doc):
            document._WRITE_BLOCK[doc] = True      # deferred after the last task cleared the mark
        # writing a page's messages (their JSON) is the page's sender's event-loop time (intercept.inbox)
        await Timed(original(doc), lambda seconds: charge_sender(doc, seconds))
        if doc not in document._WRITE_BLOCK and document._WRITE_MSGS.get(doc):
            document._WRITE_BLOCK[doc] = True
            document._dispatch_write_task(doc, document._dispatch_msgs, doc)
    dispatch.speclab, dispatch.original = True, original
    document._dispatch_msgs = dispatch

    def send_patch_document(self, event):
        """Make the message now and queue it behind any unwritten one (Panel's task writes it)."""
        msg = self.protocol.create("PATCH-DOC", [event])
        doc = event.document
        document._WRITE_MSGS.setdefault(doc, {}).setdefault(self, []).append(msg)
        document._WRITE_BLOCK[doc] = True
        document._dispatch_write_task(doc, document._dispatch_msgs, doc)
        return _Queued()
    send_patch_document.speclab, send_patch_document.original = True, ServerConnection.send_patch_document
    ServerConnection.send_patch_document = send_patch_document


class _Queued:
    """What Bokeh awaits for a message handed to Panel's write queue: nothing more to wait for."""

    def __await__(self):
        return iter(())
