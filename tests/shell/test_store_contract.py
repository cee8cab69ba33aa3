"""The class store's contract (shell.store.contract), the same on both backends: a SQLite file and a
real Redis server. Processes of one class (several stores on one place, and OS processes) count every
vote exactly, hear each other's changes, share the secret, the students' settings, the open pages,
the cost profile and the outcomes; every key family is capped; values are JSON records, never code."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from lab.speed import costs
from serving.service import ModelService
from shell.poll.shared import SharedPollStore
from shell.poll.store import Question
from shell.room.sessions import OpenPages
from shell.room.snapshots import Snapshots
from shell.store import contract
from shell.store.shared import store_at
from tests.helpers import wait_until
from tests.shell.redisserver import RedisServer
from uikit.state import LabState

VOTER = textwrap.dedent("""
    import sys
    from shell.poll.shared import SharedPollStore
    from shell.poll.store import Question
    from shell.store.shared import store_at
    where, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    poll = SharedPollStore(store_at(where, interval=3600))
    poll.ask(Question(10, "choice", ("faster", "slower")))
    for i in range(n):                      # every browser votes, then changes its mind every third time
        browser = f"{who}-{i}"
        assert poll.vote(10, browser, "faster") is None
        if i % 3 == 0:
            assert poll.vote(10, browser, "slower") is None
    print("done")
""")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


class Backend:
    """One place of the class store (a file, or a Redis database): `open()` a process's store on it,
    all stopped afterwards; `silence(store)` makes that process look killed to the others."""

    def __init__(self, kind: str, where: str):
        self.kind, self.where, self.made = kind, where, []

    def open(self, **kw):
        self.made.append(store_at(self.where, **{"interval": 3600, **kw}))
        return self.made[-1]

    def silence(self, store) -> None:
        if self.kind == "sqlite":
            with store.write() as db:
                db.execute("UPDATE procs SET seen = 0 WHERE proc = ?", (store.proc,))
        else:                               # its key expires as when it stops beating
            store.client.delete(f"{store.prefix}proc:{store.proc}")


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path):
    if request.param == "sqlite":
        place = Backend("sqlite", str(tmp_path / "class.sqlite"))
    else:
        server = request.getfixturevalue("redis_server")
        server.admin("FLUSHALL")
        place = Backend("redis", server.url)
    yield place
    for store in place.made:
        store.stop()


def test_two_processes_voting_at_once_count_every_vote(backend):
    n = 150
    backend.open()                          # the store exists before both start
    procs = [subprocess.Popen([sys.executable, "-c", VOTER, backend.where, who, str(n)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    tally = SharedPollStore(backend.open()).tally(10)
    changed = len(range(0, n, 3))
    assert tally.counts == (2 * (n - changed), 2 * changed) and tally.answered == 2 * n


def test_a_vote_in_one_process_is_heard_in_another(backend):
    a, b = SharedPollStore(backend.open()), SharedPollStore(backend.open())
    heard = []
    b.subscribe(lambda number, what: heard.append((number, what)))
    a.ask(Question(10, "choice", ("faster", "slower")))
    for i in range(40):
        a.vote(10, f"browser{i}", "slower")
    assert b.store.poll() == 41 and heard == [(10, "ask"), (10, "vote")]    # a burst is heard once
    assert b.tally(10).counts == (0, 40)
    b.reveal(10)
    assert "already revealed" in a.vote(10, "browser0", "faster")
    assert a.vote(10, "browser0", "slower") is None                  # the same answer again: kept
    b.reset_all()
    assert a.tally(10).answered == 0 and not a.tally(10).revealed


def test_the_watch_thread_hears_changes_without_being_asked(backend):
    a, b = SharedPollStore(backend.open()), SharedPollStore(backend.open(interval=0.05))
    heard = []
    b.subscribe(lambda number, what: heard.append(what))
    a.ask(Question(3, "choice", ("1", "5")))
    a.vote(3, "x", "5")
    wait_until(lambda: "vote" in heard, timeout=10, message="the other process to hear the vote")


def test_announcements_reach_the_other_processes_only(backend):
    a, b = backend.open(), backend.open()
    heard_a, heard_b = [], []
    a.on("pair", heard_a.append), b.on("pair", heard_b.append)
    a.announce("pair", "weak")
    a.poll(), b.poll()
    assert heard_a == [] and heard_b == ["weak"]


def test_browsers_here_are_counted_across_processes_and_a_silent_process_is_gone(backend):
    a, b = SharedPollStore(backend.open()), SharedPollStore(backend.open())
    a.ask(Question(10, "choice", ("faster", "slower")))
    a.join("s1", "alice"), b.join("s2", "alice"), b.join("s3", "bob")   # alice has a tab in each
    a.vote(10, "alice", "faster")
    tally = a.tally(10)
    assert (tally.connected, tally.here) == (2, 1)
    a.leave("s1")                           # alice's tab in process a closes; her tab in b stays
    assert a.tally(10).connected == 2
    backend.silence(b.store)                # process b falls silent (killed): its pages are gone
    assert a.tally(10).connected == 0
    a.store.heartbeat()                     # and the next heartbeat forgets it
    assert a.store.poll_state(10).present == set()


def test_a_new_run_starts_empty_and_the_secret_is_shared(backend):
    a = SharedPollStore(backend.open(run="first"))
    a.ask(Question(10, "choice", ("faster", "slower")))
    a.vote(10, "x", "faster")
    b = SharedPollStore(backend.open(run="first"))
    assert b.tally(10).answered == 1 and b.voter("x") == a.voter("x") and b.store.salt == a.store.salt
    c = SharedPollStore(backend.open(run="second"))      # a new server: last lesson's votes are gone
    assert c.question(10) is None and c.voter("x") != a.voter("x")


def test_settings_follow_a_browser_to_another_process(backend, tiny_service):
    a, b = Snapshots(store=backend.open()), Snapshots(store=backend.open())
    state = LabState(tiny_service)
    state.temperature, state.answers = 0.7, {10: "slower"}
    a.save("browser1", state)
    assert a.get("browser1")["temperature"] == 0.7 and b.get("browser1") == {}   # not flushed yet
    a.flush()
    assert b.get("browser1")["temperature"] == 0.7 and b.get("browser1")["answers"] == {10: "slower"}


def test_the_store_keeps_the_newest_snapshots(backend):
    store = backend.open()
    for i in range(5):
        store.save_snapshots({f"b{i}": b'{"gamma": %d}' % i}, keep=3)
    assert [store.snapshot_of(f"b{i}") for i in range(5)] == [None, None, b'{"gamma": 2}', b'{"gamma": 3}',
                                                             b'{"gamma": 4}']


def test_the_lecturer_counts_the_sessions_of_every_process(backend):
    a, b = OpenPages(backend.open()), OpenPages(backend.open())
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


def test_outcomes_and_the_cost_profile_are_computed_once_for_the_class(backend):
    pairs = [Pair(), Pair()]                                 # each process's own copy of the pair
    a, b = (ModelService(lambda p=p: p) for p in pairs)
    store = backend.open()
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


def test_shared_values_have_versions_and_outcomes_are_capped(backend, monkeypatch):
    store = backend.open()
    assert [store.put("profile:tiny:aligned", b"p%d" % i) for i in range(3)] == [1, 2, 3]
    assert store.get("profile:tiny:aligned") == (3, b"p2") and store.get("nothing") is None
    monkeypatch.setattr(contract, "KEEP_SHARED", 5)
    for i in range(12):
        store.put(f"outcome:{i}", b"x" * 10)
    assert [i for i in range(12) if store.get(f"outcome:{i}") is not None] == list(range(7, 12))
    monkeypatch.setattr(contract, "KEEP_SHARED_BYTES", 25)
    store.put("outcome:new", b"y" * 10)
    assert [i for i in range(12) if store.get(f"outcome:{i}") is not None] == [11]
    assert store.get("outcome:new") == (1, b"y" * 10) and store.get("profile:tiny:aligned") == (3, b"p2")
    store.drop("outcome:")
    assert store.get("outcome:new") is None and store.get("profile:tiny:aligned") is not None


def test_a_question_takes_at_most_its_cap_of_answers(backend, monkeypatch):
    monkeypatch.setattr(contract, "MAX_VOTERS", 3)
    poll = SharedPollStore(backend.open())
    poll.ask(Question(4, "choice", ("yes", "no")))
    assert [poll.vote(4, f"b{i}", "yes") for i in range(3)] == [None] * 3
    assert "all the answers" in poll.vote(4, "b3", "yes")
    assert poll.vote(4, "b0", "no") is None and poll.tally(4).counts == (2, 1)   # a changed answer still counts


def test_a_value_that_is_not_a_json_record_is_ignored_not_run(backend, tmp_path, tiny_service, caplog):
    """A pickle someone slipped into the store: the service reads JSON records only, so the value is
    ignored with one line and nothing runs."""
    import logging
    import pickle
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    store, key = backend.open(), ("outcome", "a request")
    tiny_service.share(store)
    try:
        tiny_service.cached(key, lambda: ("a", "tuple"))                 # shared as a JSON record
        for name in [n for n in _outcome_keys(store)]:
            store.put(name, pickle.dumps(Evil()))
        tiny_service.clear(shared=False)
        with caplog.at_level(logging.WARNING, logger="serving"):
            assert tiny_service.peek(key, "none") == "none"
    finally:
        tiny_service.share(None)
    assert not marker.exists() and "was not a lab record" in caplog.text


def _outcome_keys(store) -> list[str]:
    if hasattr(store, "read"):
        return [k for k, in store.read("SELECT key FROM shared WHERE key LIKE 'outcome:%'")]
    return [k.decode() for k in store.client.hkeys(f"{store.prefix}values") if k.startswith(b"outcome:")]
