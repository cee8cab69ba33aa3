"""The class's shared store (shell.store.shared) without a browser: two OS processes voting into one SQLite
file count every vote exactly; one process hears another's changes; the students' settings, the
open sessions, the cost profile and request outcomes are the same in every process."""
import subprocess
import sys
import textwrap
import time

import pytest

from lab.speed import costs
from serving.service import ModelService
from shell.poll.shared import SharedPollStore
from shell.poll.store import Question
from shell.room.sessions import OpenPages
from shell.room.snapshots import Snapshots
from shell.store.shared import GONE_AFTER, ClassStore, open_class_store, serving_processes
from tests.helpers import wait_until
from uikit.state import LabState

VOTER = textwrap.dedent("""
    import sys
    from shell.poll.shared import SharedPollStore
    from shell.poll.store import Question
    from shell.store.shared import ClassStore
    path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    poll = SharedPollStore(ClassStore(path, interval=3600))
    poll.ask(Question(10, "choice", ("faster", "slower")))
    for i in range(n):                      # every browser votes, then changes its mind every third time
        browser = f"{who}-{i}"
        assert poll.vote(10, browser, "faster") is None
        if i % 3 == 0:
            assert poll.vote(10, browser, "slower") is None
    print("done")
""")

OPENER = textwrap.dedent("""
    import sys, time
    from shell.store.shared import ClassStore
    folder, start, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    for i in range(n):                      # at the same instants as the other process
        while time.time() < start + 0.15 * i:
            pass
        ClassStore(f"{folder}/class-{i}.sqlite", run="one run", interval=3600).stop()
    print("done")
""")


@pytest.fixture
def stores(tmp_path):
    """Open several ClassStore instances on one file (each as a serving process would: its own
    process id in the file); all stopped afterwards."""
    made = []

    def open_one(**kw):
        made.append(ClassStore(tmp_path / "class.sqlite", **{"interval": 3600, **kw}))
        return made[-1]
    yield open_one
    for store in made:
        store.stop()


def test_two_processes_voting_at_once_count_every_vote(tmp_path):
    path, n = tmp_path / "class.sqlite", 150
    ClassStore(path, interval=3600).stop()          # the file exists before both start
    procs = [subprocess.Popen([sys.executable, "-c", VOTER, str(path), who, str(n)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    tally = SharedPollStore(ClassStore(path, interval=3600)).tally(10)
    changed = len(range(0, n, 3))
    assert tally.counts == (2 * (n - changed), 2 * changed) and tally.answered == 2 * n


def test_two_processes_creating_the_store_at_once_both_open_it(tmp_path):
    """`--num-procs 2` forks processes that open the class's new store file together: switching a
    new file to WAL answers "database is locked" at once to the second; each must still open it."""
    tmp_path.chmod(0o700)
    start, n = time.time() + 3, 25
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(tmp_path), str(start), str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]


def test_a_vote_in_one_process_is_heard_in_another(stores):
    a, b = SharedPollStore(stores()), SharedPollStore(stores())
    heard = []
    b.subscribe(lambda number, what: heard.append((number, what)))
    a.ask(Question(10, "choice", ("faster", "slower")))
    for i in range(40):
        a.vote(10, f"browser{i}", "slower")
    assert b.store.poll() == 41 and heard == [(10, "ask"), (10, "vote")]    # a burst is heard once
    assert b.tally(10).counts == (0, 40)
    b.reveal(10)
    assert "already revealed" in a.vote(10, "browser0", "faster")
    b.reset_all()
    assert a.tally(10).answered == 0 and not a.tally(10).revealed


def test_the_watch_thread_hears_changes_without_being_asked(stores):
    a, b = SharedPollStore(stores()), SharedPollStore(stores(interval=0.05))
    heard = []
    b.subscribe(lambda number, what: heard.append(what))
    a.ask(Question(3, "choice", ("1", "5")))
    a.vote(3, "x", "5")
    wait_until(lambda: "vote" in heard, timeout=10, message="the other process to hear the vote")


def test_browsers_here_are_counted_across_processes_and_a_silent_process_is_gone(stores):
    a, b = SharedPollStore(stores()), SharedPollStore(stores())
    a.ask(Question(10, "choice", ("faster", "slower")))
    a.join("s1", "alice"), b.join("s2", "alice"), b.join("s3", "bob")   # alice has a tab in each
    a.vote(10, "alice", "faster")
    tally = b.tally(10)
    assert (tally.connected, tally.here) == (2, 1)
    a.leave("s1")                           # alice's tab in process a closes; her tab in b stays
    assert b.tally(10).connected == 2
    with b.store.write() as db:              # process b falls silent (killed): its pages are gone
        db.execute("UPDATE procs SET seen = ? WHERE proc = ?", (time.time() - GONE_AFTER - 1, b.store.proc))
    assert a.tally(10).connected == 0
    a.store.heartbeat()                     # and the next heartbeat forgets it
    assert a.store.read("SELECT COUNT(*) FROM presence")[0][0] == 0


def test_a_new_run_starts_empty_and_the_salt_is_shared(stores, tmp_path):
    a = SharedPollStore(stores(run="first"))
    a.ask(Question(10, "choice", ("faster", "slower")))
    a.vote(10, "x", "faster")
    b = SharedPollStore(stores(run="first"))
    assert b.tally(10).answered == 1 and b.voter("x") == a.voter("x")
    c = SharedPollStore(stores(run="second"))           # a new server: last lesson's votes are gone
    assert c.question(10) is None and c.voter("x") != a.voter("x")


def test_settings_follow_a_browser_to_another_process(stores, tiny_service):
    a, b = Snapshots(store=stores()), Snapshots(store=stores())
    state = LabState(tiny_service)
    state.temperature, state.answers = 0.7, {10: "slower"}
    a.save("browser1", state)
    assert a.get("browser1")["temperature"] == 0.7 and b.get("browser1") == {}   # not flushed yet
    a.flush()
    assert b.get("browser1")["temperature"] == 0.7 and b.get("browser1")["answers"] == {10: "slower"}


def test_the_lecturer_counts_the_sessions_of_every_process(stores):
    a, b = OpenPages(stores()), OpenPages(stores())
    heard = []
    a.subscribe(lambda *args: heard.append(args))
    for i in range(3):
        b.join(f"s{i}", None, None)
    a.join("mine", None, None)
    a.report(), b.report()                  # what their watch threads do
    assert a.total() == b.total() == 4
    a.store.poll()
    assert (None, "sessions") in heard


class Pair:
    """A pair as far as sharing sees it: a name (a service's profiles keep a weak reference to it)."""
    name = "fake"


def test_outcomes_and_the_cost_profile_are_computed_once_for_the_class(stores):
    pairs = [Pair(), Pair()]                                 # each process's own copy of the pair
    a, b = (ModelService(lambda p=p: p) for p in pairs)
    store = stores()
    a.share(store), b.share(store)
    calls = []
    assert a.cached(("outcome", 1), lambda: calls.append(1) or "computed") == "computed"
    assert b.cached(("outcome", 1), lambda: calls.append(2) or "again") == "computed" and calls == [1]
    assert b.peek(("generation", 1)) is None                 # only what pages must agree on is shared
    measured = costs.CostProfile(pair="fake", draft_seconds=0.01, verify_seconds=(0.02, 0.03), prefill_seconds=0.1,
                                 prefill_tokens=64, spread=0.1, load=0.5, cores=2, threads=1, busy=False)
    a.profiles.adopt(pairs[0], measured)                     # process a measured it
    a.profiles.sync(store)
    assert b.profiles.already_measured("aligned") is None
    b.profiles.sync(store)
    assert b.profiles.already_measured("aligned") == measured     # process b prices with the same profile
    a.clear()                                                # the lecturer's reset: shared outcomes go
    assert b.peek(("outcome", 1)) == "computed"              # b's own copy until b clears
    b.clear(shared=False)
    assert b.peek(("outcome", 1)) is None


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
    with caplog.at_level(logging.DEBUG, logger="shell.store.shared"):
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
