"""Only the server's user can write the class store: made 0700/0600, anything else refused in one
sentence; faults said once; a second server and dead processes noticed. (What every backend keeps,
bounds and refuses to run: test_store_contract.py.)"""
from __future__ import annotations

import logging
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from shell.store.shared import StoreFault, open_class_store
from shell.store.sqlite import SQLiteStore
from shell.store.files import StoreRefused, claim

NOBODY = 65534


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_new_store_is_the_servers_alone(tmp_path):
    path = tmp_path / "class" / "store.sqlite"
    store = SQLiteStore(path)
    store.put("k", b"v")
    assert mode(path.parent) == 0o700 and mode(path) == 0o600
    sides = [path.with_name(path.name + s) for s in ("-wal", "-shm")]
    assert all(p.exists() and mode(p) == 0o600 for p in sides)      # SQLite's WAL and SHM as well


def test_a_folder_others_can_write_is_refused(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)                                              # like /tmp
    with pytest.raises(StoreRefused, match="can be written by other users") as refused:
        claim(folder / "class.sqlite")
    assert str(folder) in str(refused.value) and str(folder) not in refused.value.public
    assert not (folder / "class.sqlite").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")
@pytest.mark.parametrize("name", ["class.sqlite", "class.sqlite-wal", "class.sqlite-shm"])
def test_a_file_of_another_user_is_refused(tmp_path, name):
    (tmp_path / name).write_bytes(b"")
    os.chown(tmp_path / name, NOBODY, NOBODY)
    with pytest.raises(StoreRefused, match="belongs to another user"):
        SQLiteStore(tmp_path / "class.sqlite")


def test_files_others_can_write_or_links_are_refused_and_readable_ones_closed(tmp_path):
    path = tmp_path / "class.sqlite"
    path.write_bytes(b"")
    path.chmod(0o666)
    with pytest.raises(StoreRefused, match="can be written by other users"):
        claim(path)
    path.chmod(0o644)
    claim(path)
    assert mode(path) == 0o600
    link = tmp_path / "link.sqlite"
    link.symlink_to(path)
    with pytest.raises(StoreRefused, match="is a link"):
        claim(link)


def test_a_refused_store_is_one_sentence_and_the_class_goes_on(tmp_path, caplog, monkeypatch):
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)
    with caplog.at_level(logging.ERROR, logger="shell.store"):
        store, problem = open_class_store({"SPECLAB_STORE": str(folder / "c.sqlite")})
    assert store is None
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is None
    assert "Each server process now keeps its own poll" in caplog.text
    assert problem and str(folder) not in problem
    from shell.frame.classstate import ClassState
    assert ClassState(store, problem).store_problem() == problem      # every page of the class says it


def test_a_dangling_link_in_place_of_the_folder_is_one_sentence(tmp_path, caplog, monkeypatch):
    (tmp_path / "classroom").symlink_to(tmp_path / "nowhere")
    with caplog.at_level(logging.ERROR, logger="shell.store"):
        assert open_class_store({"SPECLAB_STORE": str(tmp_path / "classroom" / "c.sqlite")})[0] is None
    assert len(caplog.records) == 1 and "is a link" in caplog.text


def test_a_store_that_cannot_be_written_is_said_once_and_kept_in_memory(tmp_path, caplog, monkeypatch):
    store = SQLiteStore(tmp_path / "c.sqlite")
    store.put("k", b"before")

    def full():
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(store, "_db", full)
    with caplog.at_level(logging.ERROR, logger="shell.store"):
        for i in range(3):
            store.put("k", f"v{i}".encode())                   # no StoreFault: kept in this process
        with pytest.raises(StoreFault):
            with store.write():
                pass
    assert store.get("k") == (3, b"v2")
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is None
    assert "disk" in store.problem and str(tmp_path) not in store.problem


def test_a_folder_of_another_user_is_refused_even_when_only_they_can_write_it(tmp_path):
    if os.getuid() != 0:
        pytest.skip("only root can give a folder to another user")
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o755)
    os.chown(folder, NOBODY, NOBODY)
    with pytest.raises(StoreRefused, match="belongs to another user") as refused:
        claim(folder / "class.sqlite")
    assert str(folder) not in refused.value.public
    assert not (folder / "class.sqlite").exists()


def test_a_folder_reached_through_a_link_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "via").symlink_to(real)
    with pytest.raises(StoreRefused, match="is a link"):
        claim(tmp_path / "via" / "class.sqlite")
    (tmp_path / "up").symlink_to(tmp_path)                               # a link further up the way
    with pytest.raises(StoreRefused, match="is a link"):
        claim(tmp_path / "up" / "real" / "class.sqlite")
    assert not (real / "class.sqlite").exists()
    assert claim(real / "class.sqlite") == real / "class.sqlite"        # the real place is fine


def test_a_folder_in_place_of_the_store_file_is_called_a_folder(tmp_path):
    (tmp_path / "class.sqlite").mkdir()
    with pytest.raises(StoreRefused, match="is a folder, not a file"):
        claim(tmp_path / "class.sqlite")


def test_a_second_server_on_the_same_store_is_warned(tmp_path, caplog):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        path = tmp_path / "c.sqlite"
        first = SQLiteStore(path)
        with first.write() as db:
            db.execute("UPDATE procs SET server = ?", (other.pid,))     # as if another server had opened it
        with caplog.at_level(logging.WARNING, logger="shell.store"):
            SQLiteStore(path)
        assert f"Another server (pid {other.pid})" in caplog.text
    finally:
        other.kill()
        other.wait()


def test_pages_of_a_dead_process_stop_counting(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store = SQLiteStore(tmp_path / "c.sqlite")
    with store.write() as db:
        db.execute("INSERT INTO procs VALUES ('gone', ?, ?, 7, 0)", (dead.pid, __import__("time").time()))
    assert store.sessions_elsewhere() == 7
    store.heartbeat()
    assert store.sessions_elsewhere() == 0
