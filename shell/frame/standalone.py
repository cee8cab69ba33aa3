"""A page built outside a server (the static export, export/): its document, and the Bokeh models
its objects made there.

Panel counts a Bokeh Document that belongs to no session as a page whose browser has not connected
yet: the changes it holds back meanwhile (a layout's new children) are dropped, to be sent in full
on connection. And Panel keeps no public map from one of its objects to the Bokeh models it made in
a document. These two functions are the lab's only ways into Panel for either (no public way exists;
tests/test_internals.py checks both internals on every Panel upgrade), so the export itself touches
no private name.

    doc = page_document()                     # its changes dispatched, as a connected page's are
    ids = [m.id for m in bokeh_models(widget, doc)]
"""
from __future__ import annotations

import threading

import panel as pn
from bokeh.document import Document
from bokeh.model import Model


def page_document() -> Document:
    """A new Document that Panel updates as a served, connected page's, on this thread: every change
    made to its objects reaches its models at once (panel.io.state's `_thread_id_` and `_connected`,
    which a served page's connection sets)."""
    doc = Document()
    pn.state._thread_id_[doc] = threading.get_ident()
    pn.state._connected[doc] = True
    return doc


def bokeh_models(obj: pn.viewable.Viewable, doc: Document) -> list[Model]:
    """The Bokeh models Panel made for `obj` (a widget, a pane) in `doc` (Panel's `Viewable._models`)."""
    return [model for model, _ in list(obj._models.values()) if model.document is doc]
