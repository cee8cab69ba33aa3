"""A quiet server log by default: no line per websocket, no closed-tab tracebacks; --verbose keeps all."""
import asyncio
import logging

import pytest
from tornado.websocket import WebSocketClosedError

from shell.frame import quietlog
@pytest.fixture
def fresh():
    """The loggers' levels as they were before the test (it configures the log again)."""
    levels = {name: logging.getLogger(name).level for name in quietlog.QUIET_LOGGERS}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def _record(exc):
    try:
        raise exc
    except Exception:
        import sys
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved",
                                 None, sys.exc_info())


def test_verbose_from_the_args_or_the_environment():
    assert quietlog.verbose(["--pair", "tiny", "--verbose"], {})
    assert quietlog.verbose([], {"SPECLAB_VERBOSE": "1"})
    assert not quietlog.verbose([], {}) and not quietlog.verbose([], {"SPECLAB_VERBOSE": "0"})


def test_quiet_by_default(fresh):
    quietlog.configure_logging(detail=False, again=True)
    assert not logging.getLogger("bokeh.server.views.ws").isEnabledFor(logging.INFO)   # open/close lines
    assert logging.getLogger("shell.frame.loading").isEnabledFor(logging.INFO)               # "pair loaded"
    closed = quietlog.ClosedTabs()
    assert not closed.filter(_record(WebSocketClosedError()))
    assert closed.filter(_record(ZeroDivisionError()))            # real errors stay


def test_a_message_of_a_tab_bokeh_has_let_go_of_is_a_closed_tab():
    from bokeh.server.connection import ServerConnection
    class Session:
        subscribe = unsubscribe = lambda self, connection: None
    connection = ServerConnection(protocol=None, socket=None, application_context=None, session=Session())
    connection.detach_session()                                  # what closing the tab does
    try:
        connection.session                                       # Bokeh's assertion: no session any more
    except AssertionError as err:
        assert quietlog.closed_tab(err) and not quietlog.ClosedTabs().filter(_record(err))
    else:
        raise AssertionError("Bokeh no longer asserts a connection's session")
    try:
        assert False, "ours"
    except AssertionError as err:                                 # any other assertion stays in the log
        assert not quietlog.closed_tab(err)


def test_verbose_keeps_every_line(fresh):
    quietlog.configure_logging(detail=True, again=True)
    assert logging.getLogger("bokeh.server.views.ws").level != logging.ERROR


def test_a_write_to_a_closed_tab_is_handled_on_the_event_loop(caplog):
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            quietlog.closed_tabs_handled(loop, {"message": "Task exception was never retrieved",
                                           "exception": WebSocketClosedError()})
            assert caplog.records == []
            quietlog.closed_tabs_handled(loop, {"message": "boom", "exception": ZeroDivisionError()})
        assert "boom" in caplog.text                               # anything else is still logged
    finally:
        loop.close()


def test_a_value_bokeh_refuses_is_one_line_without_the_message(caplog, monkeypatch):
    """A crafted patch (text for a slider's number) goes through Bokeh's own message handling; what
    Bokeh logs for it passes the filter as one line, and the slider keeps its value. (A served page's
    messages go through the interception first, which says such a value in a line of its own:
    tests/intercept/test_inbox.py; this is the filter behind it, so the interception, if an earlier
    test installed it in this process, is taken out for this test.)"""
    import json

    from bokeh.document import Document
    from bokeh.models import Slider
    from bokeh.protocol import Protocol
    from bokeh.server.connection import ServerConnection
    from bokeh.server.protocol_handler import ProtocolHandler
    from bokeh.server.session import ServerSession

    handle = ServerSession._handle_patch
    monkeypatch.setattr(ServerSession, "_handle_patch", getattr(handle, "original", handle))   # Bokeh's own
    doc, slider = Document(), Slider(start=0, end=10, value=3, title="γ")
    doc.add_root(slider)
    protocol = Protocol()
    content = {"events": [{"kind": "ModelChanged", "model": {"id": slider.id}, "attr": "value",
                           "new": "seven" + "!" * 50_000}]}                # a long message
    message = protocol.assemble(json.dumps({"msgid": "1", "msgtype": "PATCH-DOC"}), "{}", json.dumps(content))

    async def receive():
        connection = ServerConnection(protocol=protocol, socket=None, application_context=None,
                                      session=ServerSession("s1", doc))
        return await ProtocolHandler().handle(message, connection)
    logger, refused = logging.getLogger("bokeh.server.protocol_handler"), quietlog.RefusedValues()
    logger.addFilter(refused)
    try:
        with caplog.at_level(logging.ERROR, logger="bokeh.server.protocol_handler"):
            reply = asyncio.run(receive())
    finally:
        logger.removeFilter(refused)
    assert slider.value == 3 and reply.msgtype == "ERROR"        # Bokeh refused it; the slider kept its value
    (record,) = [r for r in caplog.records if r.name == "bokeh.server.protocol_handler"]
    line = record.getMessage()
    assert record.exc_info is None and "\n" not in line and len(line) < 300
    assert line.startswith("a browser sent a value a widget cannot take") and "got seven" in line


@pytest.mark.parametrize("detail", [False, True])
def test_a_browser_resending_a_known_model_is_quiet_unless_verbose(fresh, detail):
    """Bokeh's own deserializer meets a model definition it already has (what a browser sends now
    and then after a tour step): its warning reaches the terminal only with --verbose."""
    import warnings

    from bokeh.core.serialization import Deserializer, Serializer
    from bokeh.models import Div
    known = Div(text="shown before")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        quietlog.configure_logging(detail=detail, again=True)
        Deserializer(references=[known]).decode(Serializer().encode(known))
    said = [str(w.message) for w in seen]
    assert bool(said) == detail and all("reference already known" in s for s in said), said
