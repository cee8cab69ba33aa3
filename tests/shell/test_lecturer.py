import asyncio

import pytest

from lab import runtime
from shell import lecturer, sessions


def test_no_token_configured_means_no_controls(monkeypatch):
    monkeypatch.delenv("SPECLAB_LECTURER_TOKEN", raising=False)
    monkeypatch.setattr("sys.argv", ["app.py"])
    assert lecturer.configured_token() is None
    assert lecturer.lecturer_view("anything", "s1") is None
    assert lecturer.lecturer_view(None, "s1") is None


def test_wrong_token_is_refused_right_token_gets_the_panel(monkeypatch):
    monkeypatch.setenv("SPECLAB_LECTURER_TOKEN", "s3cret")
    monkeypatch.setattr("sys.argv", ["app.py"])
    refused = lecturer.lecturer_view("guess", "s1")
    assert "not right" in refused.object
    assert lecturer.lecturer_view(None, "s1") is None          # students: nothing at all
    assert isinstance(lecturer.lecturer_view("s3cret", "s1"), lecturer.LecturerPanel)


def test_token_from_args_wins(monkeypatch):
    monkeypatch.setenv("SPECLAB_LECTURER_TOKEN", "env")
    assert lecturer.configured_token(["--lecturer-token", "arg"]) == "arg"
    assert lecturer.token_ok("arg", "arg") and not lecturer.token_ok("", "arg")
    assert not lecturer.token_ok(None, "arg") and not lecturer.token_ok("arg", None)


def test_failed_switch_keeps_the_working_pair(monkeypatch):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    before = runtime.current_pair()
    panel = lecturer.LecturerPanel("s1")
    panel.pair_select.options = panel.pair_select.options + ["no-such-pair"]
    panel.pair_select.value = "no-such-pair"
    asyncio.run(panel._on_switch())
    assert "no pair named" in panel.status.object and "keeps the pair" in panel.status.object
    assert runtime.current_pair() is before


def test_switch_to_another_pair_for_everyone(monkeypatch):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    panel = lecturer.LecturerPanel("s1")
    panel.pair_select.options = panel.pair_select.options + ["tiny-gpt2"]
    panel.pair_select.value = "tiny-gpt2"
    try:
        asyncio.run(panel._on_switch())
        assert runtime.current_pair().name == "tiny-gpt2"
        assert "Everyone now uses" in panel.status.object
    finally:
        runtime._switched = None


def test_classroom_forgets_closed_sessions():
    room = sessions.Classroom()

    class Doc:
        def __init__(self):
            self.callbacks = []

        def add_next_tick_callback(self, cb):
            self.callbacks.append(cb)

    a, b = Doc(), Doc()
    room.join("a", a, None)
    room.join("b", b, None)
    assert len(room) == 2 and room.reload_all(except_id="a") == 1 and len(b.callbacks) == 1
    room.leave("b")
    assert len(room) == 1
