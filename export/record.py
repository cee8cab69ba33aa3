"""What a page's document did, as Bokeh PATCH-DOC JSON the exported page's player applies.

A page is built afresh for each branch of its exploration (export/explore.py); every build
numbers its new Bokeh models from where the process's counter stood (`bokeh.util.serialization.
make_id`, public: the next id tells where a build starts). Builds of the same page make the same
models in the same order, so model `p(start + j)` of any build is model `p(start_E + j)` of the
build written to the HTML file (E): `IdFrame` maps a build's ids into E's, and a recorded patch
names the models the browser has.

    frame = IdFrame.starting_now()           # before building
    ...build the page in `doc`...
    tape = Tape(doc, frame.to(export_frame)) # listens from now on
    ...run the page's own callback...
    patch = tape.take()                      # {"events": [...]}, ids in the exported page's numbering
"""
from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache

from bokeh.core.serialization import Serializer
from bokeh.document import Document
from bokeh.models import CustomJS
from bokeh.document.events import DocumentPatchedEvent
from bokeh.util.serialization import make_id

_ID = re.compile(r"^p(\d+)$")
_TAG = re.compile(r"^__ref:(p\d+)$")      # Panel tags a model with its root's id
_MARK = re.compile(r"^speclab-(p\d+)-")    # a pane a browser redraw writes into (uikit.browser.PANE_CLASS)


class IdFrame:
    """Where one build's model ids start (ids below it are models every build shares)."""

    def __init__(self, start: int):
        self.start = start

    @classmethod
    def starting_now(cls) -> IdFrame:
        return cls(int(make_id()[1:]))

    def to(self, other: IdFrame):
        """A function mapping an id of this frame's build to the same model's id in `other`'s."""
        shift = other.start - self.start

        def mapped(model_id: str) -> str:
            m = _ID.match(model_id)
            if m is None or int(m.group(1)) < self.start:
                return model_id
            return f"p{int(m.group(1)) + shift}"
        return mapped


def map_ids(obj, mapped):
    """`obj` (serialized Bokeh JSON) with every model id mapped: `{"id": ...}` references, the
    full definitions of models a patch creates, and the redraw's id in the class that marks a pane
    (and the prefix a browser press finds the panes by)."""
    if isinstance(obj, dict):
        return {k: (mapped(v) if k == "id" and isinstance(v, str) else map_ids(v, mapped)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [map_ids(v, mapped) for v in obj]
    if isinstance(obj, str) and (m := _TAG.match(obj)):
        return f"__ref:{mapped(m.group(1))}"
    if isinstance(obj, str) and (m := _MARK.match(obj)):
        return f"speclab-{mapped(m.group(1))}-{obj[m.end():]}"
    return obj



class Tape:
    """Listens to a document's changes; `take()` hands them over as one patch."""

    def __init__(self, doc: Document, mapped=lambda i: i):
        self.doc, self.mapped = doc, mapped
        self.events: list[DocumentPatchedEvent] = []
        doc.models.flush_synced()          # the page as written: every model already known
        doc.on_change(self._heard)

    def _heard(self, event) -> None:
        if isinstance(event, DocumentPatchedEvent):
            self.events.append(event)

    def take(self) -> dict:
        """The changes since the last take, as PATCH-DOC content (models first made here in full,
        arrays inline as base64 so the patch is plain JSON)."""
        events, self.events = self.events, []
        if not events:
            return {"events": []}
        serializer = Serializer(references=self.doc.models.synced_references, deferred=False)
        encoded = serializer.encode(events)
        self.doc.models.flush_synced()
        return {"events": map_ids(encoded, self.mapped)}

    def close(self) -> None:
        self.doc.remove_on_change(self._heard)


def _canonical(obj):
    """Serialized values with set entries in one order (a set's order is not what a page shows)."""
    if isinstance(obj, dict):
        out = {k: _canonical(v) for k, v in obj.items()}
        if out.get("type") == "set" and isinstance(out.get("entries"), list):
            out["entries"] = sorted(out["entries"], key=lambda e: json.dumps(e, sort_keys=True, default=str))
        return out
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    return obj


def _default(model, name: str, value) -> bool:
    """Whether `value` is the property's default (a value set back to its default looks the same)."""
    try:
        default = _class_default(type(model), name)
        return type(default) is type(value) and bool(default == value)
    except Exception:     # a value that does not compare (arrays): counted as set
        return False


@lru_cache(maxsize=None)
def _class_default(cls, name: str):
    """A model class's default for property `name`, looked up once (only compared, never handed out)."""
    return cls.lookup(name).class_default(cls)


def fingerprint(doc: Document, mapped) -> str:
    """A digest of everything the document shows (each model's type and values other than their
    defaults, ids mapped, names and a JS callback's tags left out: Panel tags a link with Python's
    id() of its objects, another in each build): two states with the same digest look the same to the
    student."""
    serializer = Serializer(references=set(doc.models), deferred=False)   # models as references only
    items = []
    for model in doc.models:
        values = {k: v for k, v in model.properties_with_values(include_defaults=False).items()
                  if k != "name" and not _default(model, k, v) and not (k == "tags" and isinstance(model, CustomJS))}
        items.append([mapped(model.id), type(model).__name__, map_ids(serializer.encode(values), mapped)])
    items.sort(key=lambda item: item[0])
    return hashlib.sha1(json.dumps(_canonical(items), sort_keys=True, default=str).encode()).hexdigest()
