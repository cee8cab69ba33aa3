"""The server's log: quiet by default (what a lecturer needs: start, pair loaded, lecturer actions,
real errors), every detail with `--args --verbose` or SPECLAB_VERBOSE=1.

A tab that closes while the server answers it is not an error of the lab: its tracebacks stay out of
the log (`ClosedTabs`, `closed_tabs_handled`), and a value a browser sends that Bokeh refuses is one
line (`RefusedValues`). `configure_logging` sets it all once per process (shell.frame.app.configure).
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import warnings

from bokeh.util.warnings import BokehUserWarning


# Quiet by default: what a lecturer needs to see (start, pair loaded, lecturer actions, real errors).
QUIET_LOGGERS = {
    "bokeh.server.views.ws": logging.ERROR,   # a line per websocket open and close, and closed-tab sends
    "tornado.access": logging.WARNING,
    "transformers": logging.ERROR,
    "bokeh.core.validation.check": logging.ERROR,   # W-1002 and the like: a layout with no children yet
}
LAB_LOGGERS = ("lab", "serving", "shell", "chapters", "uikit", "intercept")   # ours: INFO (a few lines a class)
_logging_done = []


def verbose(argv: list[str] | None = None, environ=None) -> bool:
    """`panel serve app.py --args --verbose` or SPECLAB_VERBOSE=1: every detail in the log."""
    env = os.environ if environ is None else environ
    return "--verbose" in (sys.argv[1:] if argv is None else argv) or env.get("SPECLAB_VERBOSE", "") not in ("", "0")


def closed_tab(exc) -> bool:
    """A tab that left while the server was answering it: not an error of the lab.

    Besides tornado's closed-stream errors: a tab that closes with clicks still in flight has them
    (and its close) handled after Bokeh let go of its session, and Bokeh asserts that its
    connection still has one (`ServerConnection.session`, recognised by its code: a Bokeh internal,
    guarded in tests/test_internals.py)."""
    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError
    if isinstance(exc, (WebSocketClosedError, StreamClosedError)):
        return True
    tb = getattr(exc, "__traceback__", None)
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    return (isinstance(exc, AssertionError) and code is not None and code.co_name == "session"
            and code.co_filename.replace("\\", "/").endswith("bokeh/server/connection.py"))


class ClosedTabs(logging.Filter):
    """Keeps closed-tab tracebacks (tornado's unretrieved write futures) out of the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and closed_tab(record.exc_info[1]))


class RefusedValues(logging.Filter):
    """A value a browser sent that Bokeh's own types refuse (text for a slider's number): Bokeh has
    already refused it and the widget kept its value; one line, not a traceback and the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, ValueError) and str(exc).startswith("failed to validate"):
            record.msg, record.args, record.exc_info = "a browser sent a value a widget cannot take; " \
                "refused: %s", (str(exc)[:200],), None
        return True


def closed_tabs_handled(loop, context) -> None:
    """The server's event loop's exception handler: an error of a tab that has gone (`closed_tab`)
    is dropped, anything else goes to asyncio's own handler (the log)."""
    if not closed_tab(context.get("exception")):
        loop.default_exception_handler(context)


def configure_logging(detail: bool, again: bool = False) -> None:
    """Once per process: the quiet log (default) or every detail (`detail`). `again`: configure even
    if it was done before (the tests set each way in turn)."""
    if _logging_done and not again:
        return
    _logging_done.append(detail)
    for name in LAB_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    if detail:
        return
    for name, level in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger("bokeh.server.protocol_handler").addFilter(RefusedValues())
    # A browser that sends a model's full definition the server already has (BokehJS does, now and
    # then, after a tour step puts back a component it showed before): Bokeh keeps its own and warns,
    # a warning it made of an error because the case is recoverable (bokeh/bokeh#12915).
    warnings.filterwarnings("ignore", message="reference already known", category=BokehUserWarning)
    closed = ClosedTabs()
    for logger in (logging.getLogger(), logging.getLogger("asyncio"), logging.getLogger("tornado.application")):
        logger.addFilter(closed)
        for handler in logger.handlers:
            handler.addFilter(closed)
    try:   # the server's event loop: a write to a tab that has gone is dropped, not logged
        asyncio.get_event_loop().set_exception_handler(closed_tabs_handled)
    except RuntimeError:
        pass
    from lab.pairs.load import quiet_loading
    quiet_loading()          # transformers' notices go to its own handler; tqdm bars: the loader has one line
