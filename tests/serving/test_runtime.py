"""The pair a server serves (serving.runtime.PairInUse): the one its own arguments ask for, loaded once
per server; in a server process the launcher forked, the one the launcher loaded before the fork."""
from lab.pairs.tiny import tiny_pair
from serving import runtime


def test_the_servers_arguments_choose_its_pair():
    server = runtime.PairInUse(["--pair", "tiny"])
    assert server.started is None                                  # nothing loads until asked
    assert server.requested().name == "tiny"
    assert server.current().name == "tiny" and server.service().pair is server.current()
    assert server.load() is server.current()                       # loaded once, kept


def test_a_forked_server_serves_the_pair_loaded_before_the_fork(monkeypatch):
    asked = []
    monkeypatch.setattr(runtime, "load_requested", lambda argv, progress=None: asked.append(argv) or tiny_pair())
    monkeypatch.setattr(runtime, "_BEFORE_FORK", None)             # this test process is no launcher
    assert runtime.loaded_before_fork() is None
    before = runtime.load_before_fork(["--pair", "tiny"])
    assert asked == [["--pair", "tiny"]] and runtime.loaded_before_fork() is before
    server = runtime.PairInUse(["--pair", "tiny"])
    assert server.loaded() is before                               # the lecturer's menu names it at once
    assert server.current() is before and len(asked) == 1         # not loaded again
