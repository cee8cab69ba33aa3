"""Who may write the class store's file: only the server's own user.

The store (shell.store.shared) holds the class's poll, the students' settings and the shared measurements.
Another user of the machine who could write it could change what every page shows, so the server
only uses a store whose folder is its own, reached through no link, nobody else can write, and whose files (the database and SQLite's
`-wal`, `-shm` and `-journal` beside it) are the server's own, regular and writable by it alone. A
new folder is made 0700 and a new file 0600 (SQLite gives its `-wal` and `-shm` the database's mode).
Anything else is refused with one sentence (`StoreRefused`) naming what is wrong and what to do.

    claim(Path("~/speclab/class.sqlite").expanduser())   # made or checked; StoreRefused if unsafe
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from lab.i18n import N_, Said
from lab.pairs.cachedir import CACHE_ERRNOS

SIDE_FILES = ("-wal", "-shm", "-journal")    # SQLite's files beside the database
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
OTHERS_READ = stat.S_IRGRP | stat.S_IROTH


class StoreRefused(RuntimeError):
    """The class store cannot be used: one sentence (`template`, marked N_, naming the place `{path}`)
    with the path for the terminal (`str`) and without it for the pages (`public`, a lab.i18n.Said
    each page shows in its own language)."""

    def __init__(self, template: str, path: Path, **values):
        super().__init__(str(Said(template, path=path, **values)))
        self.public = Said(template, path="", **values)


def claim(path: Path) -> Path:
    """Make `path`'s folder (0700) and file (0600) if new; check both are the server user's alone,
    reached through no link. Returns `path`; raises StoreRefused with one sentence otherwise."""
    path = Path(os.path.abspath(path))
    folder = path.parent
    _no_links(folder)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError as exc:
        raise StoreRefused(N_("The class store's folder {path} cannot be made or read ({why}); set SPECLAB_STORE "
                              "to a file in a folder you can write."), folder, why=_why(exc)) from None
    if stat.S_ISLNK(info.st_mode):
        raise StoreRefused(FOLDER_LINK, folder)
    if not stat.S_ISDIR(info.st_mode):
        raise StoreRefused(N_("The class store's folder {path} is not a folder; remove it or set "
                              "SPECLAB_STORE to another place."), folder)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise StoreRefused(N_("The class store's folder {path} belongs to another user, who could rename or "
                              "replace the class's files; use a folder of your own "
                              "(SPECLAB_STORE=~/speclab/class.sqlite)."), folder)
    if info.st_mode & OTHERS_WRITE:
        raise StoreRefused(N_("The class store's folder {path} can be written by other users, who could "
                              "then change the class's data; use a folder only you can write "
                              "(SPECLAB_STORE=~/speclab/class.sqlite, or chmod 700 the folder)."), folder)
    for name in (path.name, *(path.name + side for side in SIDE_FILES)):
        _check_file(folder / name)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0), 0o600))
    except OSError as exc:
        raise StoreRefused(N_("The class store {path} cannot be written ({why}); set SPECLAB_STORE to a file "
                              "in a folder you can write."), path, why=_why(exc)) from None
    return path


FOLDER_LINK = N_("The class store's folder {path} is a link (or is reached through one); name the real "
                 "place in SPECLAB_STORE, a folder of your own.")
FILE_LINK = N_("The class store file {path} is a link (or is reached through one); name the real place in "
               "SPECLAB_STORE, a folder of your own.")


def _no_links(folder: Path) -> None:
    """No part of the way to the store's folder is a symbolic link (one another user could repoint)."""
    for place in (folder, *folder.parents):
        try:
            if stat.S_ISLNK(os.lstat(place).st_mode):
                raise StoreRefused(FOLDER_LINK, place)
        except FileNotFoundError:
            continue
        except OSError:
            return          # said below, when the folder is made or read


def _why(exc: OSError) -> str:
    if exc.errno in CACHE_ERRNOS:        # in the sentence's words (else the system's own)
        return Said(CACHE_ERRNOS[exc.errno])
    return (exc.strerror or type(exc).__name__).lower()


def _check_file(path: Path) -> None:
    """An existing store file is a regular file of this user that nobody else can write; one that
    others can read is made 0600 (students' ids are in it)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreRefused(N_("The class store file {path} cannot be read ({why}); remove it or set "
                              "SPECLAB_STORE to another place."), path, why=_why(exc)) from None
    if stat.S_ISLNK(info.st_mode):
        raise StoreRefused(FILE_LINK, path)
    if stat.S_ISDIR(info.st_mode):
        raise StoreRefused(N_("The class store file {path} is a folder, not a file; name a file in "
                              "SPECLAB_STORE (such as ~/speclab/class.sqlite) or remove that folder."), path)
    if not stat.S_ISREG(info.st_mode):
        raise StoreRefused(N_("The class store file {path} is not a regular file; remove it or set "
                              "SPECLAB_STORE to another place."), path)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise StoreRefused(N_("The class store file {path} belongs to another user, who could change the "
                              "class's data; remove it or set SPECLAB_STORE to a file of your own."), path)
    if info.st_mode & OTHERS_WRITE:
        raise StoreRefused(N_("The class store file {path} can be written by other users; remove it (the "
                              "server makes a new one only you can use) or set SPECLAB_STORE elsewhere."), path)
    if info.st_mode & OTHERS_READ:
        os.chmod(path, 0o600)


def forked() -> bool:
    """Whether this process is one of several that `--num-procs` forked (tornado numbers them)."""
    import sys
    if "tornado.process" not in sys.modules:
        return False
    return sys.modules["tornado.process"].task_id() is not None


def server_pid() -> int:
    """The server this process serves for: the launching process when forked by --num-procs."""
    return os.getppid() if forked() else os.getpid()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def started(pid: int) -> str:
    """The process's start time as the system counts it (a reused pid gets another), '' if unknown."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""
