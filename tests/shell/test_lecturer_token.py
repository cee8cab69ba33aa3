"""The lecturer token from a file or the environment (not `ps`), and wrong tries slowed per browser."""
import pytest

from shell.lecturer import controls as lecturer
@pytest.fixture
def attempts(monkeypatch, the_class):
    now = [1000.0]
    the_class.attempts = lecturer.Attempts(base=2.0, cap=60.0, free=1, clock=lambda: now[0])
    monkeypatch.setattr("sys.argv", ["app.py"])
    monkeypatch.delenv("SPECLAB_LECTURER_TOKEN_FILE", raising=False)
    monkeypatch.setenv("SPECLAB_LECTURER_TOKEN", "s3cret")
    return now


def test_token_from_a_file_named_in_the_environment_or_the_args(tmp_path, monkeypatch):
    monkeypatch.delenv("SPECLAB_LECTURER_TOKEN", raising=False)
    f = tmp_path / "token"
    f.write_text("from-file\n")
    assert lecturer.configured_token([], {"SPECLAB_LECTURER_TOKEN_FILE": str(f)}) == "from-file"
    assert lecturer.configured_token(["--lecturer-token-file", str(f)], {}) == "from-file"
    assert lecturer.configured_token(["--lecturer-token-file", str(f)], {"SPECLAB_LECTURER_TOKEN": "env"}) \
        == "from-file"                                          # the start command's choice wins
    assert lecturer.configured_token([], {"SPECLAB_LECTURER_TOKEN": "env"}) == "env"


def test_an_unreadable_or_empty_token_file_leaves_the_controls_off(tmp_path, caplog):
    empty = tmp_path / "empty"
    empty.write_text("  \n")
    assert lecturer.configured_token(["--lecturer-token-file", str(tmp_path / "missing")], {}) is None
    assert lecturer.configured_token([], {"SPECLAB_LECTURER_TOKEN_FILE": str(empty)}) is None
    assert "could not be read" in caplog.text and "is empty" in caplog.text


def test_wrong_tries_are_slowed_down_per_browser(attempts, the_class):
    assert "not right" in lecturer.lecturer_view(the_class, "typo", "s0", "browserA").object   # one free try
    assert "not right" in lecturer.lecturer_view(the_class, "guess", "s1", "browserA").object
    waited = lecturer.lecturer_view(the_class, "s3cret", "s2", "browserA")        # even the right token waits
    assert "Too many wrong lecturer tokens" in waited.object and "wait 3 seconds" in waited.object
    assert isinstance(lecturer.lecturer_view(the_class, "s3cret", "s3", "browserB"), lecturer.LecturerPanel)
    attempts[0] += 2.5
    assert "not right" in lecturer.lecturer_view(the_class, "guess2", "s4", "browserA").object
    attempts[0] += 3.0                                                  # the second wrong try: 4 s
    assert "Too many" in lecturer.lecturer_view(the_class, "s3cret", "s5", "browserA").object
    attempts[0] += 1.5
    assert isinstance(lecturer.lecturer_view(the_class, "s3cret", "s6", "browserA"), lecturer.LecturerPanel)
    assert the_class.attempts.wait("browserA") == 0                     # a right token clears the count


def test_the_wait_doubles_up_to_its_cap(attempts, the_class):
    a = the_class.attempts
    waits = []
    for _ in range(8):
        a.failed("x")
        waits.append(a.wait("x"))
    assert waits == [0.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]


def _checked(replies) -> int:
    """How many of the lecturer views were a checked (wrong) token, not a refusal to check."""
    return sum("not right" in r.object for r in replies)


def test_rotating_cookies_from_one_address_get_no_more_checks(attempts, the_class):
    """A script with a fresh cookie (browser id) per guess: counted per address, it gets as many
    checks as one browser would, then waits."""
    replies = [lecturer.lecturer_view(the_class, f"guess{i}", f"s{i}", f"fresh{i}", address="10.0.0.66") for i in range(60)]
    assert _checked(replies) == the_class.attempts.free + 1     # the free tries, and the one that starts the wait
    assert "Too many wrong lecturer tokens" in replies[-1].object
    other = lecturer.lecturer_view(the_class, "s3cret", "t", "lecturer", address="10.0.0.2")
    assert isinstance(other, lecturer.LecturerPanel)                    # the lecturer elsewhere is let in


def test_guesses_from_many_addresses_are_at_most_the_servers_hourly_share(attempts, the_class):
    """One guess every 10 s for an hour, each from a fresh address and cookie: the server checks at
    most its burst and then GUESSES_PER_HOUR an hour (≤ 100 in all)."""
    replies = []
    for i in range(360):
        replies.append(lecturer.lecturer_view(the_class, f"guess{i}", f"s{i}", f"fresh{i}", address=f"10.1.{i // 250}.{i % 250}"))
        attempts[0] += 10
    checked = _checked(replies)
    assert checked <= lecturer.GUESS_BURST + lecturer.GUESSES_PER_HOUR and checked <= 100
    assert any("on this server" in r.object for r in replies)


def test_the_lecturer_is_told_in_one_line_when_someone_is_guessing(attempts, the_class):
    assert lecturer.guessing_line(the_class.attempts) == ""
    for i in range(3):
        lecturer.lecturer_view(the_class, f"guess{i}", f"s{i}", f"fresh{i}", address=f"10.0.0.{i % 2}")
    line = lecturer.guessing_line(the_class.attempts)
    assert "Someone is guessing the lecturer token" in line and "3 wrong tries" in line and "2 addresses" in line
    panel = lecturer.LecturerPanel(the_class, "s-lecturer")
    assert panel.guessing.object == line


def test_the_right_token_works_right_after_a_guessing_burst_from_other_addresses(attempts, the_class):
    """The server-wide limit slows wrong guesses only: the token is compared first."""
    replies = [lecturer.lecturer_view(the_class, f"guess{i}", f"s{i}", f"fresh{i}", address=f"10.2.0.{i}")
               for i in range(lecturer.GUESS_BURST + 5)]
    assert the_class.attempts.server_wait() > 0                         # the server's share is spent …
    late = replies[-1].object
    assert "on this server" in late and "this browser" not in late and "own link still works" in late
    panel = lecturer.lecturer_view(the_class, "s3cret", "t", "lecturer", address="10.9.9.9")
    assert isinstance(panel, lecturer.LecturerPanel)                    # … and the lecturer is let in at once
    refused = lecturer.lecturer_view(the_class, "guess-again", "u", "fresh-u", address="10.9.9.8")
    assert "on this server" in refused.object


def test_a_page_with_a_wrong_token_is_refused_before_any_session(attempts, the_class):
    """The page gate (shell.room.gate) answers a wrong token with a small page, no session built; the
    right one passes, whatever was guessed before."""
    from types import SimpleNamespace
    from shell.room.gate import PageGate

    def request(token, address):
        return SimpleNamespace(remote_ip=address, cookies={}, arguments={"lecturer": [token.encode()]})
    gate = PageGate(4, the_class.signer, the_class.attempts, token=lambda: "s3cret")
    refusals = [gate(request(f"guess{i}", f"10.3.0.{i}")) for i in range(lecturer.GUESS_BURST + 3)]
    assert all(r is not None and len(r.page) < 2000 for r in refusals) and gate.built == 0
    assert "not right" in refusals[0].page and "on this server" in refusals[-1].page
    assert gate(request("s3cret", "10.3.1.1")) is None and gate.built == 1
