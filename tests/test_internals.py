"""Every library internal the lab relies on (intercept/patched.py lists each, with what the lab
relies on and the versions it was written for), checked against the installed libraries: an upgrade
that removes one, re-signs it or changes the code of a function the lab wraps fails here with one
sentence naming it, instead of failing in a classroom. The meanings the lab relies on beyond names
and code are checked below too."""
from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import weakref

import panel as pn
import pytest

from intercept.patched import INTERNALS, Internal, difference, fingerprint, patched_now


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


@pytest.mark.parametrize("internal", INTERNALS, ids=[i.name for i in INTERNALS])
def test_the_internal_is_there_as_the_lab_uses_it(internal, instances):
    why = difference(internal, instances)
    assert why is None, why


def test_a_changed_internal_is_one_sentence_naming_it():
    """What a Panel or Bokeh upgrade would look like: gone, re-signed, or its code changed."""
    from bokeh.server.session import ServerSession
    real = fingerprint(ServerSession.request_expiration)
    gone = difference(Internal("bokeh.server.session.ServerSession._no_such", ("self",), "intercept/x"))
    resigned = difference(Internal("bokeh.server.session.ServerSession.request_expiration", ("self", "when"),
                                   "intercept/pacing.end_with_its_tab"))
    recoded = difference(Internal("bokeh.server.session.ServerSession.request_expiration", ("self",),
                                  "intercept/pacing.end_with_its_tab", "0" * 12))
    assert difference(Internal("bokeh.server.session.ServerSession.request_expiration", ("self",), "x", real)) is None
    for said, what in ((gone, "is gone"), (resigned, "changed its parameters to (self)"),
                       (recoded, f"changed its code (fingerprint {real}")):
        assert said.startswith("bokeh.server.session.ServerSession.") and what in said, said
        assert "written for bokeh 3" in said and said.count(". ") == 0 and said.endswith("intercept/patched.py.")


def test_every_function_the_interception_wraps_is_listed_with_its_fingerprint():
    """Installed, the interception has wrapped exactly the functions listed with a fingerprint, and
    each still finds the code it was written for under its wrapper."""
    import intercept
    intercept.install()
    assert patched_now() == [i.name for i in INTERNALS if i.fingerprint]
    assert [difference(i) for i in INTERNALS if i.fingerprint] == [None] * len(patched_now())


def test_what_the_lab_assumes_of_them(instances):
    """Beyond their names: the meanings the lab relies on."""
    from bokeh.server.connection import ServerConnection
    from panel.io import document

    session = next(obj for obj in instances.values() if type(obj).__name__ == "ServerSession")
    assert session.document.session_context._session is session        # in_document: the page's session
    assert session._pending_writes is None             # None outside a locked callback (in_document)
    assert pn.widgets.FloatSlider()._debounce > 0       # Panel holds browser changes by default (browser_slider)
    # shell/frame/quietlog.closed_tab recognises the assertion Bokeh raises on a detached connection by its code
    getter = ServerConnection.session.fget
    assert getter.__code__.co_name == "session"
    assert getter.__code__.co_filename.replace("\\", "/").endswith("bokeh/server/connection.py")
    # intercept/writes keys Panel's queue by document, weakly (a closed page's queue goes with it)
    assert isinstance(document._WRITE_MSGS, weakref.WeakKeyDictionary)
    assert isinstance(document._WRITE_BLOCK, weakref.WeakKeyDictionary)
    # uikit/lazy.Lazy.show finds its page's document through the (model, parent) pairs Panel keeps
    from bokeh.document import Document
    column, doc = pn.Column("x"), Document()
    doc.add_root(column.get_root(doc))
    assert [model.document for model, _parent in column._models.values()] == [doc]
    # intercept/doors answers a refused page on Panel's handler, which serves every app route
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import AutoloadJsHandler, DocHandler
    served = {handler for _pattern, handler, *_ in per_app_patterns}
    assert DocHandler in served and AutoloadJsHandler in served
    from bokeh.server.views.ws import WSHandler
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
