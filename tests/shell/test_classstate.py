"""One object per server's class state (shell.frame.classstate): each server's class is its own, a
server has one, and nothing of it exists until the server starts."""
import panel as pn

from shell.frame.classstate import CACHE_KEY, ClassState, class_state
from shell.poll.store import Question


def test_two_classes_share_nothing():
    """Two servers' classes (as two tests build them): a vote, an open session, a page in line, a
    student's settings or a wrong lecturer token in one is not in the other."""
    one, two = ClassState(), ClassState()
    one.poll.ask(Question(10, "choice", ("faster", "slower")))
    assert one.poll.vote(10, "a" * 32, "slower") is None
    assert two.poll.tally(10) is None
    one.open_pages.join("s1", None, None)
    one.line.join()
    one.attempts.failed("browser")
    assert len(one.open_pages) == 1 and len(two.open_pages) == 0
    assert one.line.waiting() == 1 and two.line.waiting() == 0
    assert two.attempts.guessing() == (0, 0) and one.attempts.guessing()[0] == 1
    assert one.pair is not two.pair and one.heap is not two.heap and one.loader.heap is one.heap
    assert two.signer.verified(one.signer.new()) is None            # each class signs its own ids


def test_a_server_has_one_class_made_on_first_use(monkeypatch):
    monkeypatch.delenv("SPECLAB_STORE", raising=False)
    pn.state.cache.pop((CACHE_KEY,), None)
    try:
        first = class_state()
        assert class_state() is first and first.store is None and first.store_problem() is None
    finally:
        pn.state.cache.pop((CACHE_KEY,), None)


def test_a_class_served_by_several_processes_keeps_its_poll_in_the_shared_store(tmp_path, monkeypatch):
    """With a class store (`SPECLAB_STORE`, or `--num-procs`), the class's poll, settings and
    lecturer's tries go through it: a second server's class on the same file sees the vote."""
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")          # the store's watch thread shares the pair's profile
    environ = {"SPECLAB_STORE": str(tmp_path / "class.sqlite")}
    one, two = ClassState.open(environ), ClassState.open(environ)
    try:
        one.poll.ask(Question(10, "choice", ("faster", "slower")))
        assert one.poll.vote(10, "a" * 32, "slower", "10.0.0.1") is None
        assert two.poll.tally(10).counts == (0, 1)
        one.attempts.failed("browser", "address x")
        assert two.attempts.guessing() == (1, 1)
        assert two.signer.verified(one.signer.new())                 # one secret for the whole class
    finally:
        one.store.stop()
        two.store.stop()
