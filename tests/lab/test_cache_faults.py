"""Every mistake in the cache folder a lecturer can make is one sentence in the terminal, for
`python -m lab prepare` (exit status 1) and for the served lab's log (the page shows it too): a
folder that cannot be written, a read-only disk, a full disk, a file in place of the folder, a
symbolic link that loops, and a place no folder can go. The served lab is checked end to end on one
of them (a read-only disk) and its loader in process on those that need no namespace.

The disks are real: an empty tmpfs mounted read-only, and one with no free inode, each in a mount
namespace of its own (`unshare -rm`, no root needed where user namespaces are allowed). A folder
that cannot be written is a real chmod 555 folder, seen by an unprivileged user (`unshare -r
--map-user`, when the tests run as root, who writes through any mode)."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
ADVICE = "set SPECLAB_CACHE to a writable folder with about 1 GB free and start again."
MOUNT = 'mount -t tmpfs -o {options} tmpfs "$0" && exec "$@"'     # then the command, in that namespace


def _unwritable(tmp: Path):
    folder = tmp / "unwritable"
    folder.mkdir()
    folder.chmod(0o555)
    as_user = ["unshare", "-r", "--map-user=65534"] if os.geteuid() == 0 else []
    return folder, as_user


def _read_only(tmp: Path):
    folder = tmp / "read-only"
    folder.mkdir()
    return folder, ["unshare", "-rm", "sh", "-c", MOUNT.format(options="ro,size=1m"), str(folder)]


def _full(tmp: Path):
    folder = tmp / "full"
    folder.mkdir()       # room for the lock file, then no inode left: the next folder fails (ENOSPC)
    return folder, ["unshare", "-rm", "sh", "-c", MOUNT.format(options="size=64k,nr_inodes=2"), str(folder)]


def _file(tmp: Path):
    (tmp / "a-file").write_text("not a folder")
    return tmp / "a-file", []


def _loop(tmp: Path):
    (tmp / "loop").symlink_to("loop")
    return tmp / "loop", []


def _proc(tmp: Path):
    return Path("/proc/speclab-cache"), []


CASES = {   # name: (make the cache path and the command prefix that sees it, the reason said)
    "unwritable": (_unwritable, "permission denied"),
    "read-only": (_read_only, "the disk is read-only"),
    "full": (_full, "the disk is full"),
    "a file in place of the folder": (_file, "it is a file, not a folder"),
    "a symlink loop": (_loop, "it is a symbolic link that loops"),
    "no folder can go there": (_proc, "the folder cannot be created there"),
}


def sentence(cache: Path, reason: str) -> str:
    return f"The lab cannot write its model cache at {cache} ({reason}); {ADVICE}"


def environment(cache: Path) -> dict:
    env = {**os.environ, "SPECLAB_CACHE": str(cache), "PYTHONUNBUFFERED": "1"}
    for name in ("SPECLAB_PAIR", "SPECLAB_TARGET", "SPECLAB_DRAFT", "SPECLAB_STORE"):
        env.pop(name, None)        # the embedded pair, which lives in the cache
    return env


@pytest.fixture
def restore_modes(tmp_path):
    yield
    for path in tmp_path.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


@pytest.mark.parametrize("case", CASES)
def test_prepare_says_each_cache_mistake_in_one_sentence(case, tmp_path, restore_modes):
    make, reason = CASES[case]
    cache, prefix = make(tmp_path)
    done = subprocess.run([*prefix, sys.executable, "-m", "lab", "prepare"], cwd=ROOT, env=environment(cache),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [f"error: {sentence(cache, reason)}"], done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert all(line.startswith("[") for line in done.stdout.splitlines()), done.stdout   # progress lines only


IN_PROCESS = ("a file in place of the folder", "a symlink loop", "no folder can go there")   # need no namespace


@pytest.mark.parametrize("case", IN_PROCESS)
def test_the_servers_loader_logs_each_cache_mistake_in_one_sentence(case, tmp_path, monkeypatch, caplog):
    """The served lab's loader (shell.frame.loading, as `panel serve` runs it on its thread): its log
    says the mistake once, without a traceback, and its pages get the sentence without the path."""
    from serving.runtime import PairInUse
    from shell.frame.loading import PairLoader
    make, reason = CASES[case]
    cache, _ = make(tmp_path)
    monkeypatch.setenv("SPECLAB_CACHE", str(cache))
    for name in ("SPECLAB_PAIR", "SPECLAB_TARGET", "SPECLAB_DRAFT", "SPECLAB_STORE", "SPECLAB_LAUNCHER_SAID"):
        monkeypatch.delenv(name, raising=False)
    caplog.set_level(logging.INFO, logger="shell.frame.loading")
    loader = PairLoader(PairInUse([]))
    loader.load()
    said = [r for r in caplog.records if r.name == "shell.frame.loading" and "model cache" in r.getMessage()]
    assert [r.getMessage() for r in said] == [f"loading the model pair failed: {sentence(cache, reason)}"]
    assert said[0].exc_info is None and not loader.ready
    assert loader.error.startswith("The lab cannot write its model cache on the server") and str(cache) not in loader.error


def test_the_served_lab_logs_a_cache_mistake_in_one_sentence(tmp_path, restore_modes):
    """End to end, on a real read-only disk: `panel serve` with the loader above says the mistake once in
    its log, without a traceback (the other mistakes: the loader in process, above; each mistake's
    sentence on its real disk: `lab prepare`, first above)."""
    make, reason = CASES["read-only"]
    cache, prefix = make(tmp_path)
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [*prefix, sys.executable, "-m", "panel", "serve", str(ROOT / "app.py"), "--setup",
             str(ROOT / "shell" / "start.py"), "--port", "0", "--address", "127.0.0.1"],
            cwd=ROOT, env=environment(cache), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: "loading the model pair failed" in log.read_text() or server.poll() is not None,
                   timeout=180, message="the server with a read-only cache to report it")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, 9)
            server.wait(timeout=20)
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    lines = [line for line in text.splitlines() if "model cache" in line]
    assert len(lines) == 1 and lines[0].endswith(
        f"loading the model pair failed: {sentence(cache, reason)}"), text
