"""Which class store a server opens, when several processes serve one class (shell.store.contract).

`panel serve app.py --num-procs N` forks N processes that each hold their own pages; what the class
shares goes through one store so that every process sees it: the poll (shell.poll.shared), the
students' settings across page loads (shell.room.snapshots), the class secret and per-address limits
(shell.room.identity), the lecturer's token tries (shell.room.attempts), the lecturer's actions (reset
the class, switch the pair: shell.lecturer.classwide) and the measurements every page prices with
(the cost profile, request outcomes: serving.sharing).

    store, problem = open_class_store()   # None with one process (everything stays in memory)
    store = store_at("redis://10.0.0.5:6379/0")      # or a SQLite file's path

Where the store is: `SPECLAB_STORE=redis://HOST:PORT/DB` (rediss:// for TLS; the password in the URL
or `SPECLAB_STORE_PASSWORD`): a Redis server that several machines share (shell.store.redis);
`SPECLAB_STORE=PATH`: a SQLite file (several servers on one machine share it; it keeps the class's
poll across restarts until the lecturer resets it); else, in processes forked by `--num-procs`,
`<cache folder>/classroom/serve-<parent pid>.sqlite`, started afresh with each server (the files of
servers that have exited are removed). The server's class state (shell.frame.classstate) opens it
when the server starts, never on import.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from pathlib import Path

from lab.i18n import N_, Said
from serving import serving_processes
from shell.store.contract import GONE_AFTER, ClassStore, first_process, said_once
from shell.store.events import INTERVAL, StoreFault
from shell.store.files import StoreRefused, alive, claim, forked, started

__all__ = ("GONE_AFTER", "ClassStore", "StoreFault", "first_process", "open_class_store", "said_once",
           "serving_processes", "share_cores", "store_at")

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def store_at(where: str, run: str | None = None, interval: float = INTERVAL, password: str | None = None) -> ClassStore:
    """The class store named by `where`: a Redis server's URL, else a SQLite file's path. StoreRefused
    (one sentence) for a place that cannot be used; a Redis that is away is a fault, not a refusal."""
    if where.startswith(REDIS_SCHEMES):
        try:
            from shell.store.redis.store import RedisStore
        except ImportError:
            raise StoreRefused(N_("SPECLAB_STORE names a Redis server but the redis client package is not "
                                  "installed{path}: pip install -r requirements.txt."), "") from None
        try:
            return RedisStore(where, password=password, run=run, interval=interval)
        except ValueError as exc:
            raise StoreRefused(N_("SPECLAB_STORE is not a Redis URL the lab can use ({why}){path}; write it as "
                                  "redis://HOST:PORT/DB."), "", why=str(exc)) from None
    from shell.store.sqlite import SQLiteStore
    return SQLiteStore(Path(where).expanduser(), run=run, interval=interval)


def open_class_store(environ=None) -> tuple[ClassStore | None, str | None]:
    """The class's shared store, or None when this process serves the class alone, or when the store
    cannot be used (said once in the terminal for the whole server: every process finds the same
    problem), with the sentence every page then shows (else None)."""
    env = os.environ if environ is None else environ
    try:
        if env.get("SPECLAB_STORE"):
            return store_at(env["SPECLAB_STORE"], password=env.get("SPECLAB_STORE_PASSWORD")), None
        if not forked():
            return None, None
        from lab.pairs.cachedir import classroom_dir
        folder, parent = classroom_dir(), os.getppid()
        path = claim(folder / f"serve-{parent}.sqlite")
        for old in folder.glob("serve-*.sqlite*"):               # servers that have exited
            pid = old.name.split("-", 1)[1].split(".", 1)[0]
            if pid.isdigit() and int(pid) != parent and not alive(int(pid)):
                with contextlib.suppress(OSError):
                    old.unlink()
        return store_at(str(path), run=f"{parent}:{started(parent)}"), None
    except StoreRefused as exc:
        said_once(logging.ERROR, "%s Each server process now keeps its own poll and settings.", exc)
        return None, Said(N_("{problem} Each server process keeps its own poll and settings until then."),
                          problem=exc.public)
    except (OSError, sqlite3.Error, StoreFault) as exc:
        said_once(logging.ERROR, "The class store cannot be opened (%s); each server process now keeps its own "
                  "poll and settings: check SPECLAB_STORE or the cache folder (free space, write access).", exc)
        return None, N_("The class's shared store cannot be opened on the server, so each server process keeps "
                        "its own poll and settings; the lecturer can check the cache folder.")   # translated where shown


def share_cores() -> int | None:
    """In a process forked by `--num-procs N`, give torch its share of the cores (at least one),
    so N model workers do not each spin on every core; returns the threads set, or None."""
    if not forked():
        return None
    import torch
    threads = max(1, (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
                  // serving_processes())
    torch.set_num_threads(threads)
    return threads
