"""The lab's own errors, and how a page shows any error without server paths.

Every lab error is one sentence: what happened and what to do. It comes in two versions:

- `str(err)` is for the log and the lecturer's terminal; it may name folders on the server
  ("The target folder /srv/models/x has no config.json; ...").
- `err.public_message` is for pages, which students see: the same sentence without paths
  ("The target folder 'x' has no config.json; ..."). A sentence is a catalog message (marked `N_`)
  with named values (lab.i18n.Said), so each page shows it in its own language; one that names a
  model or folder names it `{name}`, and `PairError.naming` fills in both:

      raise PairError.naming(ref, N_("The {role} folder {name} has no config.json; ..."), role=ROLES["target"])

  Without a public sentence, the message itself is taken as public (absolute paths still scrubbed).

How the UI shows an error (the only call a page needs):

    from lab.errors import public_message
    try:
        ...
    except Exception as err:
        log.exception("...")                 # full message and traceback: terminal only
        alert.object = say(public_message(err))   # one path-free sentence, in the page's language

`public_message(err)` works for any exception: lab errors give their public sentence; anything
else gives a generic sentence naming only the exception type (its text may hold paths).

This module imports nothing from the lab but its catalogs (lab.i18n), so `lab.pairs.load` and
`lab.pairs.prepare` both import it without importing each other.
"""
from __future__ import annotations

import logging
import re
from pathlib import PurePath

from lab.i18n import N_, Said

__all__ = ["ROLES", "PairError", "PrepareError", "log_failure", "public_message", "public_ref", "scrub_paths"]

ROLES = {"target": Said(N_("target model")), "draft": Said(N_("draft model"))}   # a refusal's {role}

# an absolute POSIX path (/x/y), a home path (~/x) or a Windows path (C:\x), not part of a word
# or of a URL ("p/q", "models/pairs.toml", "https://pypi.org/..." are left alone)
_PATH = re.compile(r"(?<![\w.:/~\\-])(?:~?/(?!/)|[A-Za-z]:\\)[^\s'\"`,;()<>]*[^\s'\"`,;()<>.]")


def scrub_paths(text: str) -> str:
    """`text` with absolute and home paths replaced by '…' (a last safety net for pages); in a
    lab.i18n.Said, its values."""
    if isinstance(text, Said):
        return Said(text.message, **{k: scrub_paths(v) if isinstance(v, str) else v for k, v in text.values.items()})
    return _PATH.sub("…", text)


def public_ref(ref) -> str:
    """A model reference as a page may show it: a hub id as given ('gpt2'), a local folder by its
    last name only ('target'), quoted."""
    text = str(ref)
    local = isinstance(ref, PurePath) or text.startswith(("/", "~", ".")) or "\\" in text \
        or text.count("/") > 1
    return repr(PurePath(text).name or text) if local else repr(text)


class PairError(Exception):
    """A pair that cannot be used: `str(err)` is one sentence for the lecturer (what happened and
    what to do, paths included); `err.public_message` is that sentence without server paths."""

    def __init__(self, message: str, public: str | None = None):
        super().__init__(message)
        self._public = public

    @classmethod
    def naming(cls, ref, message: str, **values) -> "PairError":
        """The error whose one sentence (`message`, marked N_, with its `values`) names the model or
        folder `ref` as `{name}`: for the terminal with `ref` as given, for pages as `public_ref` shows it."""
        return cls(Said(message, name=ref, **values), public=Said(message, name=public_ref(ref), **values))

    @property
    def public_message(self) -> str:
        return scrub_paths(self._public if self._public is not None else self.args[0])

    def __reduce__(self):  # keep `public` across pickling (multiprocessing, logging handlers)
        return (type(self), (self.args[0], self._public))


class PrepareError(PairError):
    """The embedded pair could not be prepared (download, checksum, cache folder); see lab.pairs.prepare."""


def public_message(err: BaseException) -> str:
    """The one sentence a page may show for `err`, never with server paths."""
    public = getattr(err, "public_message", None)
    if isinstance(public, str) and public:
        return scrub_paths(public)
    return Said(N_("The lab hit an unexpected error ({kind}); the lecturer's terminal has the details, so tell "
                   "the lecturer."), kind=type(err).__name__)


def log_failure(logger: logging.Logger, what: str, err: BaseException) -> None:
    """Log a failure for the lecturer's terminal: a lab error is its one sentence ("what: sentence"),
    with the traceback only when the logger shows DEBUG (`--verbose`); anything else with its
    traceback (an unexpected error needs it)."""
    if isinstance(err, PairError):
        logger.error("%s: %s", what, err, exc_info=err if logger.isEnabledFor(logging.DEBUG) else None)
    else:
        logger.error("%s", what, exc_info=err)
