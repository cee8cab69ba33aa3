"""The model cache folder that preparing the embedded pair writes: where it is, its faults as one
sentence, the preparation lock and the temporary files (see lab.pairs.prepare).

    cache_dir(); embedded_dir()              # $SPECLAB_CACHE or ~/.cache/speculative-lab; its smollm2-135m
    classroom_dir()                          # its classroom/: the store several server processes share
    with cache_faults(root), locked(root):   # one PrepareError sentence for "cannot write"; one preparer
        removeleftovers(root)               # the `.speclab-tmp-*` a killed run left

Also the two calls every preparation step makes: `report(progress, fraction, message)` (one log line,
one path-free progress message) and `stage(name)` (the test hook that kills the process there).
A progress message is marked for the catalog (`N_`) with named values: the command line prints it in
English, the server's loading line shows it in each page's language (a lab.i18n.Said, shell.frame.loading).

    report(progress, 0.25, N_("unpacking {file}"), file="model.gguf")   # progress(0.25, Said(…))
"""
from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Callable

from lab.errors import PrepareError
from lab.i18n import N_, Said

log = logging.getLogger("lab.pairs.prepare")     # preparation logs as one: its stages and its faults

Progress = Callable[[float, str], None]

TMP_PREFIX = ".speclab-tmp-"      # every temporary file or folder preparation makes in the cache
LOCK_NAME = ".prepare.lock"
# errors that mean "this cache folder cannot be written", with the words the message uses
CACHE_ERRNOS = {getattr(errno, "EDQUOT", errno.ENOSPC): N_("the disk quota is used up"),  # no EDQUOT: Windows
                errno.EACCES: N_("permission denied"), errno.EPERM: N_("permission denied"),
                errno.EROFS: N_("the disk is read-only"), errno.ENOSPC: N_("the disk is full"),
                errno.ENOTDIR: N_("a file is in the way"), errno.ELOOP: N_("a symbolic link loops")}


def cache_dir() -> Path:
    return Path(os.environ.get("SPECLAB_CACHE") or Path.home() / ".cache" / "speculative-lab")


def embedded_dir(root: Path | None = None) -> Path:
    return (root or cache_dir()) / "smollm2-135m"


def classroom_dir(root: Path | None = None) -> Path:
    """Where several server processes of one class keep the store they share (shell.store.shared)."""
    return (root or cache_dir()) / "classroom"


def report(progress: Progress | None, fraction: float, message: str, detail: str = "", **values) -> None:
    """One stage: one debug log line (with `detail`, e.g. a folder) and one path-free progress message,
    `message` (marked `N_`) with its named `values` (the server's loader shows it as its one progress
    line, in each page's language; the command line prints it)."""
    said = Said(message, **values)
    log.debug("prepare %3.0f%% %s%s", 100 * fraction, said, f" {detail}" if detail else "")
    if progress is not None:
        progress(fraction, said)


def stage(name: str) -> None:
    """Test hook: `SPECLAB_TEST_KILL_AT=<name>` makes this process kill -9 itself here, so the tests
    can check that the next run recovers (tests/lab/test_prepare.py). Names: download, unpack,
    dequantise, save:<folder>, swap:<folder> (folder: target, draft-weak, draft-random, ...)."""
    if os.environ.get("SPECLAB_TEST_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


# --- faults of the cache folder -------------------------------------------------------------------

_ERRNO_IN_TEXT = re.compile(r"\(os error (\d+)\)|\[Errno (\d+)\]")


def errno_of(err: BaseException) -> int | None:
    """The errno behind `err` or its causes: OSError.errno, or the '(os error N)' / '[Errno N]' that
    Rust extensions (safetensors, tokenizers) and subprocesses (pip) put in their messages."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.errno is not None:
            return err.errno
        found = _ERRNO_IN_TEXT.search(str(err))
        if found:
            return int(found.group(1) or found.group(2))
        err = err.__cause__ or err.__context__
    return None


def _outside(err: BaseException, root: Path) -> bool:
    """Whether an OSError names a file outside the cache (then it is not the cache's fault)."""
    name = getattr(err, "filename", None)
    if not name:
        return False
    try:
        Path(os.path.abspath(name)).relative_to(os.path.abspath(root))
        return False
    except ValueError:
        return True


def cache_error(root: Path, err: BaseException) -> PrepareError | None:
    """The one-sentence PrepareError for an error that means `root` cannot be written, else None."""
    code = errno_of(err)
    if code not in CACHE_ERRNOS or _outside(err, root):
        return None
    return cache_sentence(root, CACHE_ERRNOS[code])


def cache_sentence(root: Path, reason: str) -> PrepareError:
    reason = Said(reason)
    return PrepareError(Said(N_("The lab cannot write its model cache at {root} ({why}); set SPECLAB_CACHE to a "
                                "writable folder with about 1 GB free and start again."), root=root, why=reason),
                        public=Said(N_("The lab cannot write its model cache on the server ({why}); the lecturer "
                                       "should set SPECLAB_CACHE to a writable folder with about 1 GB free and start "
                                       "again."), why=reason))


def make_root(root: Path) -> None:
    """Create the cache folder; one PrepareError sentence naming SPECLAB_CACHE when it cannot be
    (no permission, a read-only disk, a symbolic link that loops or leads nowhere, or a place no
    folder can go, such as /proc)."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise (cache_error(root, err) or _link_fault(root)
               or cache_sentence(root, N_("the folder cannot be created there"))) from err


def _link_fault(root: Path) -> PrepareError | None:
    """The sentence for a cache path that is a symbolic link to no folder, else None."""
    if not os.path.islink(root):
        return None
    try:
        os.stat(root)
    except OSError as err:
        return cache_sentence(root, N_("it is a symbolic link that loops") if err.errno == errno.ELOOP
                              else N_("it is a symbolic link to a folder that does not exist"))
    return None


@contextlib.contextmanager
def cache_faults(root: Path):
    """Turn 'cannot write the cache' errors raised anywhere inside into one PrepareError sentence."""
    try:
        yield
    except PrepareError:
        raise
    except Exception as err:
        fault = cache_error(root, err)
        if fault is None:
            raise
        log.debug("cache write failed", exc_info=True)
        raise fault from err


# --- temporary files, the lock ------------------------------------------------------------------

def leftovers(root: Path) -> list[Path]:
    """Temporary files and folders of preparation in the cache (ours, or a killed run's)."""
    home, downloads = embedded_dir(root), root / "downloads"
    found = []
    for folder in (root, home, downloads):
        try:
            found += [p for p in folder.iterdir() if p.name.startswith(TMP_PREFIX)
                      or (folder == home and p.name.endswith(".partial"))]   # layout of earlier versions
        except OSError:
            pass
    return found


def remove_leftovers(root: Path) -> None:
    """Remove temporary files (call only while holding the lock) and an empty downloads folder."""
    for path in leftovers(root):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
    with contextlib.suppress(OSError):
        (root / "downloads").rmdir()   # only succeeds when empty


@contextlib.contextmanager
def locked(root: Path, progress: Progress | None = None, wait: bool = True):
    """Hold the cache's preparation lock; yields False (lock not taken) only when `wait` is False."""
    try:
        import fcntl
    except ImportError:     # not POSIX: no lock, one preparer at a time is the lecturer's business
        yield True
        return
    make_root(root)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            taken = True
        except BlockingIOError:
            taken = False
        if not taken and wait:
            report(progress, 0.0, N_("waiting for another process that is preparing the models"), str(root))
            fcntl.flock(fd, fcntl.LOCK_EX)
            taken = True
        yield taken
    finally:
        os.close(fd)   # releases the lock; the (empty) lock file stays, as flock needs


def tidy(root: Path) -> None:
    """On a ready cache, remove a killed run's leftovers if any, unless another process is preparing."""
    if not leftovers(root):
        return
    with contextlib.suppress(OSError), locked(root, wait=False) as mine:
        if mine:
            remove_leftovers(root)


