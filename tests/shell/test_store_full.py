"""A class store on a full disk: pages still open, every write kept in the process's memory, one
sentence in the terminal and on the lecturer's view, no traceback (issue 50)."""
from __future__ import annotations

import errno
import logging
import os
import sqlite3
import subprocess

import pytest

from shell.frame.classstate import ClassState
from shell.store.sqlite import SQLiteStore


def _fill(folder) -> None:
    """Write a file until the filesystem says it is full."""
    try:
        with open(folder / "filler", "wb") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC


@pytest.fixture
def full_store(tmp_path, monkeypatch):
    """A class store whose disk is full: a small tmpfs filled up when this runs as root, else a
    faked ENOSPC from SQLite."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = os.getuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)], capture_output=True).returncode == 0
    store = None
    try:
        store = SQLiteStore(mount / "class" / "c.sqlite")
        store.put("before", b"written while there was room")
        if mounted:
            _fill(mount)
        else:
            def full():
                raise sqlite3.OperationalError("database or disk is full")
            monkeypatch.setattr(store, "_db", full)
        yield store
    finally:
        if store is not None:
            store.stop()
        if mounted:
            subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_keeps_the_class_going_in_memory(full_store, caplog):
    from shell.frame.app import load_html
    from shell.room.identity import identify
    from shell.poll.store import Question

    with caplog.at_level(logging.INFO):
        the_class = ClassState(full_store)
        # new browsers (identity's per-address limit lives in the store): each gets its id
        bids = [identify("", "10.0.0.7", the_class.signer, the_class.new_ids) for _ in range(3)]
        assert all(the_class.signer.verified(b) for b in bids)
        # a student's settings snapshot: kept here, written later
        the_class.snapshots._saved[bids[0]] = {"gamma": 7}
        the_class.snapshots._dirty.add(bids[0])
        the_class.snapshots.flush()
        assert the_class.snapshots.get(bids[0]) == {"gamma": 7}
        # the poll: a question asked, a page joining, a vote counted in this process
        the_class.poll.ask(Question(10, "choice", ("faster", "slower"), (0, 20)))
        the_class.poll.join("s1", bids[0])
        assert the_class.poll.vote(10, bids[0], "slower") is None
        # the lecturer's token attempts and shared profiles: kept too
        the_class.attempts.failed(bids[1], "address x")
        assert the_class.attempts.wait_of("address x") == 0.0
        full_store.put("profile:tiny:aligned", b"{}")
        assert full_store.get("profile:tiny:aligned") == (1, b"{}")
    problem = the_class.store_problem()
    assert problem and "cannot be written" in problem
    assert problem in load_html(the_class.line, problem).replace("&#x27;", "'")     # the lecturer's view
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "cannot be written" in errors[0].getMessage()     # one sentence
    assert not any(r.exc_info for r in caplog.records)                             # no traceback


def test_a_page_opens_on_a_full_disk_and_says_so(full_store):
    from shell.frame import app
    from shell.room.identity import identify
    the_class = ClassState(full_store)
    for args in ({}, {"chapter": [b"dilemma"]}):
        bid = identify("", "10.0.0.8", the_class.signer, the_class.new_ids)
        page = app.SessionPage(app.PageAsk.from_args(args), bid, "s-" + bid[:6], None, the_class)
        state = page.student()                                  # the badge and the settings: the page's own
        state.gamma = 5                                         # saved for this browser's next page
        the_class.snapshots.flush()
        assert the_class.snapshots.get(bid)["gamma"] == 5
        said = [o.object for o in page.template.main[0].objects if "notice" in str(getattr(o, "object", ""))]
        assert any("cannot be written" in s for s in said)     # the page says it in one sentence


def test_votes_cast_on_a_full_store_show_in_the_tallies_once(full_store, tmp_path):
    """Votes kept in this process's memory while the store refuses them count in the histogram,
    merged with the store's; when the disk has room again, a vote the store takes replaces its copy
    in memory, so no vote counts twice."""
    from shell.poll.store import Question
    the_class = ClassState(full_store)
    poll = the_class.poll
    poll.ask(Question(11, "choice", ("faster", "slower")))
    poll.join("s1", "browser-a")
    assert poll.vote(11, "browser-a", "slower") is None
    assert poll.vote(11, "browser-b", "faster") is None
    tally = poll.tally(11)
    assert tally.counts == (1, 1) and tally.connected == 1 and tally.here == 1
    assert poll.answer_of(11, "browser-a") == 1
    filler = tmp_path / "disk" / "filler"
    if filler.exists():                          # room again on the real tmpfs: the store takes votes
        filler.unlink()
        assert poll.vote(11, "browser-a", "faster") is None     # changed: now in the store only
        assert poll.vote(11, "browser-b", "faster") is None     # the same again: in the store once
        assert poll.vote(11, "browser-c", "slower") is None
        assert poll.tally(11).counts == (2, 1)
        assert full_store.read("SELECT COUNT(*) FROM votes WHERE number = 11")[0][0] == 3
