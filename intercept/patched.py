"""Every library internal the lab patches or uses, what it relies on, and the versions it was written for.

The lab uses public APIs where they exist. Where Panel, Bokeh, tornado, transformers or torch have
none, it reaches into one of the names below (the interception in this package, and a few uses
elsewhere, each named). An upgrade that removes one, re-signs it, or changes the code of a function
the lab wraps or replaces fails tests/test_internals.py with one sentence naming it (`difference`),
instead of failing in a classroom (slider moves that wait, pages that outlive their tabs, a page's
updates out of order, a GGUF preparation that prints bars, …).

Each entry says what the lab relies on: a function's parameters, or that an attribute, an instance
attribute (checked on a live object) or a property is there; a function the lab wraps or replaces
also carries the fingerprint of the code it was written against (`fingerprint`: its syntax tree,
so comments, docstrings and layout may change freely). After an upgrade, read the new code, adapt
the lab's use, then write the new fingerprint and version here.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import textwrap
from dataclasses import dataclass
from importlib import metadata

# The versions each entry was written for (and last checked against).
WRITTEN_FOR = {"panel": "1.9.4", "bokeh": "3.9.2", "tornado": "6.6.1", "transformers": "5.23.0", "torch": "2.13.0"}
WRAPPERS = ("original", "__wrapped__", "__func__")   # where a wrapper keeps what it wraps (the lab's keep `original`)


@dataclass(frozen=True)
class Internal:
    """One library internal. `relies_on`: its parameter names (a function), or "attribute",
    "instance attribute" or "property"; `used_by`: where the lab uses it, and for what; `fingerprint`:
    for a function the lab wraps or replaces, the digest of the code it was written against."""
    name: str
    relies_on: tuple[str, ...] | str
    used_by: str
    fingerprint: str = ""

    @property
    def library(self) -> str:
        return self.name.split(".")[0]


def _fn(name, params, used_by, fingerprint=""):
    return Internal(name, tuple(params), used_by, fingerprint)


SESSION, WS, DOC = "bokeh.server.session.ServerSession", "bokeh.server.views.ws.WSHandler", "panel.io.document"
INTERNALS = (
    # intercept.inbox: every message a browser sends, paced and counted per sender; callbacks timed
    _fn(f"{SESSION}._handle_patch", ["self", "message", "connection"],
        "intercept/inbox (every browser message: paced per sender, unusable ones one log line)", "9995e55ba4dc"),
    _fn(f"{SESSION}.with_document_locked", ["self", "func", "args", "kwargs"],
        "intercept/inbox (every callback of a page's session timed and charged to its sender)", "ef123e51cbbb"),
    _fn("tornado.websocket.WebSocketHandler.write_message", ["self", "message", "binary"],
        "intercept/inbox.bound_unread_writes (a page that does not read is closed)", "ec55cab8bd08"),
    # intercept.writes: a page's messages written whole and in order
    _fn(f"{DOC}._dispatch_msgs", ["doc"], "intercept/writes (Panel's write task, kept going)", "4ed798e9b617"),
    _fn("bokeh.server.connection.ServerConnection.send_patch_document", ["self", "event"],
        "intercept/writes (Bokeh's messages queued behind Panel's)", "14a6b95e528c"),
    _fn(f"{DOC}._dispatch_write_task", ["doc", "func", "args", "kwargs"], "intercept/writes"),
    Internal(f"{DOC}._WRITE_BLOCK", "attribute", "intercept/writes"),
    Internal(f"{DOC}._WRITE_MSGS", "attribute", "intercept/writes"),
    # intercept.validate: every widget value a browser sends, checked first
    _fn("panel.reactive.Syncable._process_events", ["self", "events"],
        "intercept/validate.install (every browser value checked before Panel applies it)", "522356a1120c"),
    # intercept.doors: page requests gated, websocket messages capped and read quietly
    _fn("panel.io.server.DocHandler.get", ["self", "args", "kwargs"],
        "intercept/doors (a page request gated before its session is built, shell/room/gate)", "5ca1839f1593"),
    _fn("panel.io.server.AutoloadJsHandler.get", ["self", "args", "kwargs"],
        "intercept/doors (the page's autoload.js form builds a session too)", "940725977a90"),
    _fn(f"{WS}._async_open", ["self", "token"], "intercept/doors (a websocket naming no session gated too)",
        "3f39fc7f430b"),
    _fn("bokeh.server.contexts.ApplicationContext.get_session", ["self", "session_id"],
        "intercept/doors (does the websocket's session exist?)"),
    _fn(f"{WS}._receive", ["self", "fragment"],
        "intercept/doors.guard_messages (an unreadable message: one log line, the connection closed)", "4767d8aa677e"),
    _fn(f"{WS}._handle", ["self", "message"], "intercept/doors.guard_messages", "7d4f49599677"),
    Internal("tornado.websocket.WebSocketHandler.max_message_size", "property",
             "intercept/doors.guard_messages (Bokeh's WSHandler given a smaller cap)"),
    # intercept.pacing: work on the shared event loop
    Internal(f"{SESSION}._pending_writes", "instance attribute", "intercept/pacing.in_document"),
    Internal("bokeh.server.contexts.BokehSessionContext._session", "instance attribute", "intercept/pacing.in_document"),
    _fn(f"{SESSION}.request_expiration", ["self"], "intercept/pacing.end_with_its_tab"),
    # used elsewhere in the lab
    Internal("panel.reactive.Syncable._debounce", "instance attribute", "uikit/browser.browser_slider"),
    _fn("panel.reactive.Syncable._process_param_change", ["self", "params"],
        "uikit/browser (its sliders' models made unsynced)"),
    _fn("bokeh.document.models.DocumentModelManager.freeze", ["self"], "uikit/lazy (a section built in one walk)"),
    Internal("panel.viewable.Renderable._models", "instance attribute",
             "uikit/lazy.Lazy.show (the page's document), shell/frame/standalone (an exported widget's Bokeh models)"),
    Internal("panel.io.state._state._thread_id_", "attribute",
             "shell/frame/standalone (an exported page's changes dispatched at once)"),
    Internal("panel.io.state._state._connected", "attribute",
             "shell/frame/standalone (an exported page's changes dispatched at once)"),
    Internal("bokeh.server.connection.ServerConnection.session", "property",
             "shell/frame/quietlog.closed_tab (its code's name)"),
    Internal("panel.io.resources.LOCAL_DIST", "attribute", "shell/room/sessions.stylesheets_from_here"),
    Internal("transformers.modeling_gguf_pytorch_utils.tqdm", "attribute", "lab/pairs/prepare.py (silences its bars)"),
    _fn("transformers.PreTrainedModel._init_weights", ["self", "module"],
        "lab/pairs/draftmodels.ShortlistLlamaForCausalLM"),
    Internal("transformers.PreTrainedModel._tied_weights_keys", "attribute",
             "lab/pairs/draftmodels.ShortlistLlamaForCausalLM"),
    Internal("torch.nn.Module._parameters", "instance attribute", "lab/pairs/packing.py"),
    Internal("torch.nn.Module._buffers", "instance attribute", "lab/pairs/packing.py"),
    # used by the tests
    Internal(f"{DOC}.extra_socket_handlers", "attribute", "tests/intercept/test_pacing.py"),
    _fn("bokeh.server.contexts.ApplicationContext._cleanup_sessions", ["self", "unused_session_linger_milliseconds"],
        "tests/shell/test_pages.py (Bokeh's periodic session check, run at once: no public way)"),
)


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


def unwrapped(fn):
    """The library's own function under any wrapper (the lab's keep it as `original`)."""
    seen = set()
    while id(fn) not in seen:
        seen.add(id(fn))
        inner = next((getattr(fn, key) for key in WRAPPERS if getattr(fn, key, None) is not None), None)
        if inner is None:
            break
        fn = inner
    return fn


def fingerprint(fn) -> str:
    """A digest of `fn`'s code: its syntax tree without docstrings (comments and layout ignored)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:12]


def installed(library: str) -> str:
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "none"


def difference(internal: Internal, live: dict | None = None) -> str | None:
    """None when the installed library still has what the lab relies on; else one sentence naming
    the internal, what changed, the lab's use of it and the versions. `live`: objects (type → an
    instance) to look for an instance attribute on."""
    try:
        owner, name = resolve(internal.name)
        changed = _changed(internal, owner, name, live or {})
    except Exception as err:          # a module or class on the way has gone
        changed = f"cannot be found ({type(err).__name__}: {err})"
    if changed is None:
        return None
    lib = internal.library
    return (f"{internal.name} {changed} (written for {lib} {WRITTEN_FOR.get(lib, '?')}, installed {installed(lib)}): "
            f"{internal.used_by} relies on it; adapt that use, then update intercept/patched.py.")


def _changed(internal: Internal, owner, name: str, live: dict) -> str | None:
    kind = internal.relies_on
    if kind == "instance attribute":
        obj = next((obj for cls, obj in live.items() if isinstance(obj, owner)), None)
        if obj is None:
            return f"was not checked: no live {owner.__name__} was given"
        return None if hasattr(obj, name) else "is gone"
    if kind == "property":
        return None if isinstance(inspect.getattr_static(owner, name, None), property) else "is no longer a property"
    if kind == "attribute":
        return None if hasattr(owner, name) else "is gone"
    fn = inspect.getattr_static(owner, name, None)
    if fn is None:
        return "is gone"
    fn = unwrapped(fn)
    if tuple(inspect.signature(fn).parameters) != kind:
        return f"changed its parameters to ({', '.join(inspect.signature(fn).parameters)})"
    if internal.fingerprint and fingerprint(fn) != internal.fingerprint:
        return f"changed its code (fingerprint {fingerprint(fn)}, the lab's wrapper was written for {internal.fingerprint})"
    return None


def patched_now() -> list[str]:
    """The internals the interception has wrapped or replaced in this process (none before `install`)."""
    found = []
    for internal in INTERNALS:
        if internal.fingerprint:
            owner, name = resolve(internal.name)
            if getattr(inspect.getattr_static(owner, name, None), "speclab", False):
                found.append(internal.name)
    return found
