"""A check the browser tests' servers run under: every PATCH-DOC message reaches its websocket in
the order it was made.

A message names a new Bokeh model in full only the first time the model is sent; one written
before an earlier-made message makes the browser fail with "reference pNNNN isn't known", and only
now and then (it depends on how a page's callbacks interleave). This check sees the swap on the
server every time it happens, whether or not the browser then trips on it: it logs a line starting
with OUT_OF_ORDER, which `served` (tests/ui/helpers.py) counts as a failure.

    python -c "import tests.ui.wire_order as w; w.serve()" serve app.py --port 5006
"""
from __future__ import annotations

import itertools
import sys
import traceback

OUT_OF_ORDER = "PATCH-DOC OUT OF ORDER"


def install() -> None:
    """Number each PATCH-DOC message as it is made; log any written after a later-made one."""
    from bokeh.protocol import Protocol
    from tornado.websocket import WebSocketHandler

    numbers = itertools.count()
    made: dict[str, tuple[int, int, str]] = {}     # header -> (number, protocol, where it was made)
    last: dict[int, tuple[int, str]] = {}          # protocol (one per connection) -> last written
    create, write = Protocol.create, WebSocketHandler.write_message

    def numbered_create(self, msgtype, *args, **kwargs):
        msg = create(self, msgtype, *args, **kwargs)
        if msgtype == "PATCH-DOC":
            made[msg.header_json] = (next(numbers), id(self), "".join(traceback.format_stack(limit=8)[:-1]))
        return msg

    def checked_write(self, message, binary=False, *args, **kwargs):
        if isinstance(message, str) and message in made:
            number, protocol, where = made.pop(message)
            before = last.get(protocol)
            if before is not None and number < before[0]:
                sys.stderr.write(f"{OUT_OF_ORDER}: message {number} written after message {before[0]}\n"
                                 f"-- {number} was made at:\n{where}-- {before[0]} at:\n{before[1]}")
                sys.stderr.flush()
            if before is None or number > before[0]:
                last[protocol] = (number, where)
        return write(self, message, binary, *args, **kwargs)

    Protocol.create = numbered_create
    WebSocketHandler.write_message = checked_write


def serve() -> None:
    """`panel …` with the check installed (the arguments after -c's code are Panel's)."""
    install()
    from panel.command import main
    sys.argv[0] = "panel"
    main()
