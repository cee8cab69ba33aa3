import asyncio

import pytest

from shell.lecturer import controls as lecturer
from shell.room import sessions
from shell.frame.classstate import ClassState


def test_no_token_configured_means_no_controls(monkeypatch, the_class):
    monkeypatch.delenv("SPECLAB_LECTURER_TOKEN", raising=False)
    monkeypatch.setattr("sys.argv", ["app.py"])
    assert lecturer.configured_token() is None
    assert lecturer.lecturer_view(the_class, "anything", "s1") is None
    assert lecturer.lecturer_view(the_class, None, "s1") is None


def test_wrong_token_is_refused_right_token_gets_the_panel(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_LECTURER_TOKEN", "s3cret")
    monkeypatch.setattr("sys.argv", ["app.py"])
    refused = lecturer.lecturer_view(the_class, "guess", "s1")
    assert "not right" in refused.object
    assert lecturer.lecturer_view(the_class, None, "s1") is None          # students: nothing at all
    assert isinstance(lecturer.lecturer_view(the_class, "s3cret", "s1"), lecturer.LecturerPanel)


def test_token_from_args_wins(monkeypatch):
    monkeypatch.setenv("SPECLAB_LECTURER_TOKEN", "env")
    assert lecturer.configured_token(["--lecturer-token", "arg"]) == "arg"
    assert lecturer.token_ok("arg", "arg") and not lecturer.token_ok("", "arg")
    assert not lecturer.token_ok(None, "arg") and not lecturer.token_ok("arg", None)


def test_the_pair_menu_opens_at_the_pair_in_use(monkeypatch, the_class):
    """The menu names the pair the class is on (the tests serve tiny), never just the first listed."""
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    assert lecturer.LecturerPanel(the_class, "s1").pair_select.value == "tiny"   # asked for, not loaded yet
    the_class.pair.current()
    panel = lecturer.LecturerPanel(the_class, "s1")
    assert the_class.pair.loaded().name == "tiny" and panel.pair_select.value == "tiny"


def test_failed_switch_keeps_the_working_pair(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    before = the_class.pair.current()
    panel = lecturer.LecturerPanel(the_class, "s1")
    panel.pair_select.options = panel.pair_select.options + ["no-such-pair"]
    panel.pair_select.value = "no-such-pair"
    asyncio.run(panel.switch())
    assert "no pair named" in panel.status.object and "keeps the pair" in panel.status.object
    assert the_class.pair.current() is before


def test_switch_to_another_pair_for_everyone(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    panel = lecturer.LecturerPanel(the_class, "s1")
    panel.pair_select.options = panel.pair_select.options + ["tiny-gpt2"]
    panel.pair_select.value = "tiny-gpt2"
    asyncio.run(panel.switch())
    assert the_class.pair.current().name == "tiny-gpt2"
    assert "Everyone now uses" in panel.status.object
    assert ClassState().pair.current().name != "tiny-gpt2"      # another server (a fresh class) is not switched


def test_pairs_not_in_the_hub_cache_are_marked_and_refused_at_once(monkeypatch, the_class):
    """Offline, a hub pair not downloaded before class is marked in the menu and refused in one
    sentence without trying the hub; once in the Hugging Face cache it is offered plainly."""
    import huggingface_hub
    import time
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    cached: set[str] = set()
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache",
                        lambda repo, name, **kw: f"/cache/{repo}/{name}" if repo in cached else None)
    monkeypatch.setattr(the_class.pair, "switch", lambda *a, **k: pytest.fail("the hub must not be tried"))
    panel = lecturer.LecturerPanel(the_class, "s1")
    options = panel.pair_select.options
    assert "gpt2 (needs download)" in options and "qwen2.5-1.5b (needs download)" in options
    assert "smollm2-distilled" in options and "tiny" in options   # nothing to download
    assert panel.pair_names["gpt2 (needs download)"] == "gpt2"
    panel.pair_select.value = "gpt2 (needs download)"
    started = time.monotonic()
    asyncio.run(panel.switch())
    assert time.monotonic() - started < 1.0
    said = panel.status.object
    assert "gpt2 is not downloaded on this server" in said and "python -m lab prepare --pair gpt2" in said
    assert "`" not in said and said.count(". ") == 0              # one sentence, no literal backticks
    cached.update({"gpt2", "distilgpt2"})
    assert "gpt2" in lecturer.LecturerPanel(the_class, "s1").pair_select.options        # downloaded: offered plainly


def test_open_pages_forget_closed_sessions():
    room = sessions.OpenPages()

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


def test_reset_the_class_asks_first(monkeypatch, the_class):
    """"Reset the class" clears every student's work: the first press only asks, the second (a
    separate, named button) resets, and Cancel leaves everything as it was."""
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    reloads = []
    monkeypatch.setattr(the_class.open_pages, "reload_all", lambda except_id=None: reloads.append(except_id) or 3)
    panel = lecturer.LecturerPanel(the_class, "s1")
    assert panel.reset_button.label == "Reset the class…" and not panel.confirm_reset.visible
    panel.reset_button.clicks += 1
    assert reloads == [] and panel.confirm_reset.visible and panel.reset_warning.visible
    assert panel.confirm_reset.label == "Yes, clear every student's work" and not panel.reset_button.visible
    panel.cancel_reset.clicks += 1
    assert reloads == [] and not panel.confirm_reset.visible and panel.reset_button.visible
    panel.reset_button.clicks += 1
    panel.confirm_reset.clicks += 1
    assert reloads == ["s1"] and "3 student pages start again" in panel.status.object
    assert not panel.confirm_reset.visible and panel.reset_button.visible
    column = panel.__panel__().objects[0]               # the pair switch and the reset, a divider apart
    kinds = [type(o).__name__ for o in column.objects]
    rule = next(i for i, o in enumerate(column.objects) if getattr(o, "object", None) == "<hr>")
    assert kinds.index("Column") < rule < kinds.index("Column", rule)


def test_open_sessions_count_is_live(monkeypatch, the_class):
    monkeypatch.setenv("SPECLAB_PAIR", "tiny")
    forgotten = []
    monkeypatch.setattr(the_class.pair.service(), "forget", forgotten.append)
    room = the_class.open_pages
    room.join("lecturer", None, None)
    panel = lecturer.LecturerPanel(the_class, "lecturer")
    assert "1 open session on this server" in panel.sessions.object
    room.join("s2", None, None)
    room.join("s3", None, None)
    assert "3 open sessions on this server" in panel.sessions.object
    closed = the_class.heap.closed
    room.leave("s2")
    assert forgotten == ["s2"] and the_class.heap.closed == closed + 1     # its model work and page go
    assert "2 open sessions on this server" in panel.sessions.object


def test_the_class_poll_leads_with_the_chapter_on_screen():
    """The lecturer's page on chapter 3: its question first, the other eleven in a collapsed card."""
    import panel as pn

    from shell.poll.answers import PollStore
    from shell.poll.view import PollView
    view = PollView(PollStore(salt=b"t"), current=3)
    card = view.__panel__()
    i = card.objects.index(view.others)
    heads = lambda layout: [p.object for p in layout.select(pn.pane.HTML) if "plabel" in p.object]  # noqa: E731
    assert [h for o in card.objects[:i] for h in heads(o)] == [view.questions[3].head.object]
    assert view.others.collapsed and view.others.title == f"Other questions ({len(view.questions) - 1})"
    inside = heads(view.others)
    assert view.questions[3].head.object not in inside and len(inside) == len(view.questions) - 1
    landing = PollView(PollStore(salt=b"t"))                  # a page that asks nothing: all in the card
    assert landing.others.collapsed and landing.others.title == f"All {len(landing.questions)} questions"


def test_a_dropped_press_of_the_lecturers_buttons_is_said_on_the_lecturers_view(the_class):
    """The switch pressed while its last switch still runs (button off): one sentence in the status
    line, not only the debug log; the next press that runs clears it."""
    from intercept.clicks import DISABLED
    panel = lecturer.LecturerPanel(the_class, "s1")
    panel.switch_button.disabled = True
    panel.switch_button.clicks += 1
    assert "did nothing" in panel.status.object and DISABLED.split(",")[0] in panel.status.object
    panel.reset_button.disabled = True
    panel.status.object = ""
    panel.reset_button.clicks += 1
    assert "did nothing" in panel.status.object and not panel.reset_warning.visible
    panel.reset_button.disabled = False
    panel.reset_button.clicks += 1
    assert "did nothing" not in panel.status.object and panel.reset_warning.visible
