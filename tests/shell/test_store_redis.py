"""A class store on Redis that fails (issue 53): stopped mid-class, a wrong password, read-only, nothing
listening — each one sentence in the terminal and on the lecturer's view, never a traceback; the
class keeps going in the process's memory (new ids, settings, votes, token tries) and the process
rejoins the class when Redis is back, writing there what it kept. Against a real redis-server."""
from __future__ import annotations

import logging

import pytest

from shell.frame.classstate import ClassState
from shell.poll.store import Question
from shell.store.shared import open_class_store, store_at
from tests.helpers import wait_until
from tests.shell.redisserver import RedisServer, free_port


@pytest.fixture
def server(tmp_path):
    made = RedisServer(tmp_path / "redis", password="right").start()
    yield made
    made.stop()


@pytest.fixture
def stores():
    made = []
    yield made
    for store in made:
        store.stop()


def teach(the_class, tag: str) -> str:
    """What a class does meanwhile: a new browser, its settings, a question and a vote, a wrong
    token; returns the browser's id."""
    from shell.room.identity import identify
    bid = identify("", f"10.0.0.{len(tag)}", the_class.signer, the_class.new_ids)
    assert the_class.signer.verified(bid)
    the_class.snapshots._saved[bid] = {"gamma": 6}
    the_class.snapshots._dirty.add(bid)
    the_class.snapshots.flush()
    assert the_class.snapshots.get(bid) == {"gamma": 6}
    the_class.poll.ask(Question(10, "choice", ("faster", "slower"), (0, 20)))
    the_class.poll.join(f"s-{tag}", bid)
    assert the_class.poll.vote(10, bid, "slower") is None
    the_class.attempts.failed(bid, f"address {tag}")
    return bid


def said_once(caplog, words: str) -> str:
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and words in errors[0], errors                   # one sentence in the terminal
    assert "right" not in errors[0] and "wrong" not in errors[0]              # never the password
    assert not any(r.exc_info for r in caplog.records)                        # no traceback
    return errors[0]


def lecturer_sees(the_class, words: str) -> None:
    from shell.frame.app import load_html
    problem = the_class.store_problem()
    assert problem and words in problem
    assert problem in load_html(the_class.line, problem).replace("&#x27;", "'")


def test_a_redis_stopped_mid_class_keeps_the_class_going_and_it_rejoins(server, stores, caplog):
    store = store_at(server.url, password="right")
    stores.append(store)
    the_class = ClassState(store)
    with caplog.at_level(logging.INFO):
        first = teach(the_class, "before")
        assert the_class.poll.tally(10).counts == (0, 1)        # as the lecturer's view reads it
        server.stop(save=True)                                   # the operator restarts Redis
        second = teach(the_class, "meanwhile")                   # kept in this process's memory
        lecturer_sees(the_class, "cannot be reached")
        tally = the_class.poll.tally(10)
        assert tally.counts == (0, 2) and tally.connected == 2   # the last reading and what came since
        said_once(caplog, "cannot be reached")
        server.start()
        wait_until(lambda: store.problem is None, timeout=30, message="the process to rejoin the class")
    assert "rejoined the class" in caplog.text
    other = store_at(server.url, password="right")             # another machine of the class
    stores.append(other)
    assert {v for v, _, _ in other.poll_state(10).votes} == {the_class.poll.voter(b) for b in (first, second)}
    assert other.poll_state(10).present == {the_class.poll.voter(b) for b in (first, second)}
    wait_until(lambda: other.snapshot_of(second) is not None, timeout=30, message="the settings written")
    assert the_class.poll.tally(10).counts == (0, 2)           # each vote once


def test_a_wrong_password_is_one_sentence_and_the_class_goes_on(server, stores, caplog):
    with caplog.at_level(logging.INFO):
        store = store_at(server.url, password="wrong")
        stores.append(store)
        the_class = ClassState(store)
        teach(the_class, "locked out")
        lecturer_sees(the_class, "refuses the password")
        said_once(caplog, "refuses the password")
    server.admin("CONFIG", "SET", "requirepass", "wrong")       # the operator fixes it
    wait_until(lambda: store.problem is None, timeout=30, message="the process to rejoin the class")
    assert store.poll_state(10).votes                 # what it kept is written before it says it is back
    assert store.question(10) is not None


def test_a_read_only_redis_is_one_sentence_and_the_class_goes_on(server, stores, caplog):
    store = store_at(server.url, password="right")
    stores.append(store)
    the_class = ClassState(store)
    with caplog.at_level(logging.INFO):
        server.admin("REPLICAOF", "127.0.0.1", str(free_port()))   # now a replica: writes refused
        teach(the_class, "read only")
        lecturer_sees(the_class, "refuses writes")
        said_once(caplog, "refuses writes")
        server.admin("REPLICAOF", "NO", "ONE")
        wait_until(lambda: store.problem is None, timeout=30, message="the process to rejoin the class")
    assert store.poll_state(10).votes and the_class.poll.tally(10).counts == (0, 1)   # written before it says back


def test_nothing_listening_and_a_bad_url_are_one_sentence_each(caplog, stores):
    with caplog.at_level(logging.INFO):
        store, problem = open_class_store({"SPECLAB_STORE": f"redis://127.0.0.1:{free_port()}/0"})
        stores.append(store)
        assert problem is None and "cannot be reached" in store.problem     # a store, trying again
        assert store.get("anything") is None and store.sessions_elsewhere() == 0
        said_once(caplog, "cannot be reached")
        store, problem = open_class_store({"SPECLAB_STORE": "redis://127.0.0.1:port/0"})
        assert store is None and "not a Redis URL" in problem
    assert not any(r.exc_info for r in caplog.records)
