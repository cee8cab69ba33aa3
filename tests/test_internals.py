"""Every framework internal the lab relies on, in one place, each checked for what the lab assumes.

The lab uses public APIs where they exist. Where Panel, Bokeh, tornado, transformers or torch have
none, it reaches into one of the names below; each entry says where the lab does so. An upgrade that
renames, removes or re-signs one fails here, naming that place, instead of failing in a classroom
(slider moves that wait, pages that outlive their tabs, a GGUF preparation that prints bars, …).
The test modules that drive Bokeh's session checks directly (tests/shell/test_pages.py) and read
BokehJS's document (tests/ui) are listed too.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import inspect
import weakref

import panel as pn
import pytest

# (dotted name, what the lab assumes of it: a parameter list, "attribute" or "instance attribute",
#  where the lab uses it)
INTERNALS = [
    ("panel.reactive.Syncable._debounce", "instance attribute", "uikit/browser.browser_slider"),
    ("panel.reactive.Syncable._process_events", ["self", "events"], "uikit/pacing.before_browser_values"),
    ("panel.reactive.Syncable._process_param_change", ["self", "params"],
     "uikit/browser (its sliders' models made unsynced)"),
    ("bokeh.server.session.ServerSession._pending_writes", "instance attribute", "uikit/pacing.in_document"),
    ("bokeh.server.session.ServerSession._handle_patch", ["self", "message", "connection"],
     "uikit/inbox (every browser message: paced per sender, unusable ones one log line)"),
    ("bokeh.server.session.ServerSession.with_document_locked", ["self", "func", "args", "kwargs"],
     "uikit/inbox (every callback of a page's session timed and charged to its sender)"),
    ("tornado.websocket.WebSocketHandler.write_message", ["self", "message", "binary"],
     "uikit/inbox.bound_unread_writes (tests/uikit/test_inbox.py runs it on a real websocket)"),
    ("bokeh.server.session.ServerSession.request_expiration", ["self"], "uikit/pacing.end_with_its_tab"),
    ("bokeh.server.contexts.BokehSessionContext._session", "instance attribute", "uikit/pacing.in_document"),
    ("bokeh.server.connection.ServerConnection.send_patch_document", ["self", "event"],
     "uikit/pacing.keep_deferred_writes"),
    ("panel.io.document._dispatch_msgs", ["doc"], "uikit/pacing.keep_deferred_writes"),
    ("panel.io.document._dispatch_write_task", ["doc", "func", "args", "kwargs"], "uikit/pacing.keep_deferred_writes"),
    ("panel.io.document._WRITE_BLOCK", "attribute", "uikit/pacing.keep_deferred_writes"),
    ("panel.io.document._WRITE_MSGS", "attribute", "uikit/pacing.keep_deferred_writes"),
    ("panel.io.document.extra_socket_handlers", "attribute", "tests/uikit/test_pacing.py"),
    ("bokeh.server.connection.ServerConnection.session", "property", "shell/quietlog.closed_tab (its code's name)"),
    ("panel.io.resources.LOCAL_DIST", "attribute", "shell/sessions.stylesheets_from_here"),
    ("bokeh.document.models.DocumentModelManager.freeze", ["self"], "uikit/lazy (a section built in one walk)"),
    ("panel.io.state._state._thread_id_", "attribute",
     "shell/frame/standalone.page_document (an exported page's changes dispatched)"),
    ("panel.io.state._state._connected", "attribute",
     "shell/frame/standalone.page_document (an exported page's changes dispatched)"),
    ("panel.viewable.Renderable._models", "instance attribute",
     "uikit/lazy.Lazy.show (the page's document), shell/frame/standalone.bokeh_models (an exported "
     "widget's Bokeh models)"),
    ("transformers.modeling_gguf_pytorch_utils.tqdm", "attribute", "lab/pairs/prepare.py (silences its bars)"),
    ("transformers.PreTrainedModel._init_weights", ["self", "module"], "lab/pairs/draftmodels.ShortlistLlamaForCausalLM"),
    ("transformers.PreTrainedModel._tied_weights_keys", "attribute", "lab/pairs/draftmodels.ShortlistLlamaForCausalLM"),
    ("torch.nn.Module._parameters", "instance attribute", "lab/pairs/packing.py"),
    ("torch.nn.Module._buffers", "instance attribute", "lab/pairs/packing.py"),
    ("panel.io.server.DocHandler.get", ["self", "args", "kwargs"],
     "uikit/doors.before_page_builds (a page request gated before its session is built, shell/gate)"),
    ("panel.io.server.AutoloadJsHandler.get", ["self", "args", "kwargs"],
     "uikit/doors.before_page_builds (the page's autoload.js form builds a session too)"),
    ("bokeh.server.views.ws.WSHandler._async_open", ["self", "token"],
     "uikit/doors.before_page_builds (a websocket naming no session gated too)"),
    ("bokeh.server.contexts.ApplicationContext.get_session", ["self", "session_id"],
     "uikit/doors.before_page_builds (does the websocket's session exist?)"),
    ("bokeh.server.views.ws.WSHandler._receive", ["self", "fragment"],
     "uikit/doors.guard_messages (an unreadable message: one log line, the connection closed)"),
    ("bokeh.server.views.ws.WSHandler._handle", ["self", "message"], "uikit/doors.guard_messages"),
    ("tornado.websocket.WebSocketHandler.max_message_size", "property",
     "uikit/doors.guard_messages (Bokeh's WSHandler given a smaller cap)"),
    ("bokeh.server.contexts.ApplicationContext._cleanup_sessions", ["self", "unused_session_linger_milliseconds"],
     "tests/shell/test_pages.py (Bokeh's periodic session check, run at once: no public way)"),
]


def resolve(dotted: str):
    """(owner, name) for a dotted name: the longest importable module, then attributes down to the owner."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ImportError(dotted)


def live_instances() -> dict[type, object]:
    """A live Bokeh server session and its contexts (some internals are set per object)."""
    from bokeh.application import Application
    from bokeh.server.contexts import ApplicationContext
    from bokeh.util.token import generate_jwt_token
    from tornado.ioloop import IOLoop

    async def a_session():
        app = ApplicationContext(Application(), io_loop=IOLoop.current())
        session = await app.create_session_if_needed("s", token=generate_jwt_token("s"))
        return app, session
    # on a thread of its own: after the browser tests, this thread has Playwright's event loop running
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        app, session = pool.submit(asyncio.run, a_session()).result(timeout=60)
    import torch
    return {ApplicationContext: app, type(session): session, type(session.document.session_context): session.document.session_context,
            pn.reactive.Syncable: pn.widgets.FloatSlider(), torch.nn.Module: torch.nn.Linear(2, 2)}


@pytest.fixture(scope="module")
def instances():
    return live_instances()


@pytest.mark.parametrize("dotted, assumed, used_by", INTERNALS, ids=[i[0] for i in INTERNALS])
def test_the_internal_is_there_as_the_lab_uses_it(dotted, assumed, used_by, instances):
    owner, name = resolve(dotted)
    where = f"{dotted} (used by {used_by})"
    if assumed == "instance attribute":
        live = next((obj for cls, obj in instances.items() if isinstance(obj, owner)), None)
        assert live is not None, f"no live {owner.__name__} to check {where}"
        assert hasattr(live, name), f"{where} is gone"
    elif assumed == "property":
        assert isinstance(inspect.getattr_static(owner, name, None), property), f"{where} is no longer a property"
    elif assumed == "attribute":
        assert hasattr(owner, name), f"{where} is gone"
    else:
        fn = inspect.getattr_static(owner, name, None)
        assert fn is not None, f"{where} is gone"
        fn = getattr(fn, "__func__", fn)
        fn = getattr(fn, "__wrapped__", fn)
        for kept in ("unscreened", "untold", "original", "ungated"):    # the lab's own wrappers keep it
            fn = getattr(fn, kept, fn)
        assert list(inspect.signature(fn).parameters) == assumed, f"{where} changed its parameters"


def test_what_the_lab_assumes_of_them(instances):
    """Beyond their names: the meanings the lab relies on."""
    from bokeh.server.connection import ServerConnection
    from panel.io import document

    session = next(obj for obj in instances.values() if type(obj).__name__ == "ServerSession")
    assert session.document.session_context._session is session        # in_document: the page's session
    assert session._pending_writes is None             # None outside a locked callback (in_document)
    assert pn.widgets.FloatSlider()._debounce > 0       # Panel holds browser changes by default (browser_slider)
    # shell/quietlog.closed_tab recognises the assertion Bokeh raises on a detached connection by its code
    getter = ServerConnection.session.fget
    assert getter.__code__.co_name == "session"
    assert getter.__code__.co_filename.replace("\\", "/").endswith("bokeh/server/connection.py")
    # keep_deferred_writes keys Panel's queue by document, weakly (a closed page's queue goes with it)
    assert isinstance(document._WRITE_MSGS, weakref.WeakKeyDictionary)
    assert isinstance(document._WRITE_BLOCK, weakref.WeakKeyDictionary)
    # uikit/lazy.Lazy.show finds its page's document through the (model, parent) pairs Panel keeps
    from bokeh.document import Document
    column, doc = pn.Column("x"), Document()
    doc.add_root(column.get_root(doc))
    assert [model.document for model, _parent in column._models.values()] == [doc]
    # uikit/doors.guard_messages does what Bokeh's _receive and _handle do, minus their log lines
    from bokeh.server.views.ws import WSHandler
    receive = getattr(WSHandler._receive, "original", WSHandler._receive)
    handle = getattr(WSHandler._handle, "original", WSHandler._handle)
    assert "await self.receiver.consume(fragment)" in inspect.getsource(receive)
    assert "await self.handler.handle(message, self.connection)" in inspect.getsource(handle)
    # … and before_page_builds answers a refused page on Panel's handler, which serves every app route
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import AutoloadJsHandler, DocHandler
    served = {handler for _pattern, handler, *_ in per_app_patterns}
    assert DocHandler in served and AutoloadJsHandler in served
    # … and a websocket's session is made by Bokeh's WSHandler._async_open (Panel's calls it last)
    ws = next(handler for handler in served if issubclass(handler, WSHandler))
    assert ws is WSHandler or "_async_open" not in vars(ws) or "super()._async_open(token)" in inspect.getsource(ws._async_open)
    # lab/pairs/prepare.py replaces the gguf module's tqdm with a silenced one: it must be tqdm's callable
    import transformers.modeling_gguf_pytorch_utils as gguf_utils
    assert callable(gguf_utils.tqdm)


def test_packings_layer_class_is_there_or_packing_is_off():
    """lab/pairs/packing.py uses torch.utils.mkldnn.MkldnnLinear(dense, dtype) where this torch has it, and
    keeps layers dense where it has not."""
    from lab.pairs import packing
    cls = packing.packer()
    if cls is None:
        assert not packing.enabled()
    else:
        assert list(inspect.signature(cls.__init__).parameters)[:3] == ["self", "dense_module", "dtype"]
