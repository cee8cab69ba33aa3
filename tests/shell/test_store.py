"""The class store's SQLite file (shell.store.sqlite) and where a server opens its store
(shell.store.shared): processes forked together all open a new file, a folder that cannot be used is
said once for the whole server, SPECLAB_STORE names a file or a Redis server. What every backend
does alike is tested on both in test_store_contract.py."""
import subprocess
import sys
import textwrap
import time

from shell.store.shared import open_class_store, serving_processes, store_at

OPENER = textwrap.dedent("""
    import sys, time
    from shell.store.sqlite import SQLiteStore
    folder, start, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    for i in range(n):                      # at the same instants as the other process
        while time.time() < start + 0.15 * i:
            pass
        SQLiteStore(f"{folder}/class-{i}.sqlite", run="one run", interval=3600).stop()
    print("done")
""")


def test_two_processes_creating_the_store_at_once_both_open_it(tmp_path):
    """`--num-procs 2` forks processes that open the class's new store file together: switching a
    new file to WAL answers "database is locked" at once to the second; each must still open it."""
    tmp_path.chmod(0o700)
    start, n = time.time() + 3, 25
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(tmp_path), str(start), str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]


def test_a_store_folder_that_cannot_be_used_is_said_once_for_the_whole_server(tmp_path, monkeypatch, caplog):
    """With --num-procs 2 every process finds the same problem with the class store's folder: the
    first process says it in the terminal, the other only on its pages."""
    import logging

    import tornado.process
    folder = tmp_path / "cache" / "classroom"
    folder.mkdir(parents=True)
    folder.chmod(0o777)                                      # others could write the class's data
    monkeypatch.setenv("SPECLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SPECLAB_STORE", raising=False)
    problems = []
    with caplog.at_level(logging.DEBUG, logger="shell.store"):
        for task in (0, 1):                                  # the two processes tornado forked
            monkeypatch.setattr(tornado.process, "task_id", lambda task=task: task)
            store, problem = open_class_store()
            assert store is None and problem
            problems.append(problem)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "can be written by other users" in said[0], said
    assert problems[0] == problems[1] and str(folder) not in problems[0]    # every page says it, path-free


def test_where_the_store_is(tmp_path, monkeypatch):
    assert open_class_store(environ={}) == (None, None)      # one process: everything in memory, as always
    store, problem = open_class_store(environ={"SPECLAB_STORE": str(tmp_path / "mine.sqlite")})
    store.stop()
    assert problem is None
    assert store.path == tmp_path / "mine.sqlite" and store.path.exists()
    assert serving_processes(["panel", "serve", "app.py", "--num-procs", "3"]) == 3
    assert serving_processes(["panel", "serve", "app.py", "--num-procs=2"]) == 2
    assert serving_processes(["panel", "serve", "app.py"]) == 1
