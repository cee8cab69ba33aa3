"""`python -m serving --num-procs N`: the pair is loaded once, before the server forks, and every
forked process serves it (its model work runs after the fork); with one process the launcher is
plain `panel serve app.py --setup shell/start.py`. The launcher owns its processes: SIGTERM or
SIGINT stops them all within 10 s in one line, a process that dies is one line, and loading before
the fork is as quiet as one process."""
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from deploy.proxy import free_port
import serving.__main__ as launcher
from lab.errors import PairError
from serving import serving_processes
from tests.helpers import save_tiny, wait_until

ROOT = Path(__file__).resolve().parents[2]


def test_serving_processes_reads_num_procs():
    assert serving_processes([]) == 1
    assert serving_processes(["--port", "5006", "--num-procs", "3"]) == 3
    assert serving_processes(["--num-procs=2"]) == 2
    assert serving_processes(["--num-procs", "0"]) == (os.cpu_count() or 1)


def test_a_pair_that_cannot_load_before_the_fork_is_left_to_each_process(monkeypatch):
    def fails(lab_args):
        raise PairError("No model folder at /nowhere: give a hub id or a local folder.")
    monkeypatch.setattr(launcher, "load_before_fork", fails)
    line = launcher.preload(2, ["--target", "/nowhere", "--draft", "/nowhere"])
    assert line == ("No model folder at /nowhere: give a hub id or a local folder. "
                    "Each of the 2 processes will load the pair itself.")


def serve(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, Path, str]:
    port = free_port()
    env = {**os.environ, "SPECLAB_PAIR": "tiny", "SPECLAB_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    env.pop("SPECLAB_STORE", None)
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            # the port before `args`: a lab's `--args …` takes every argument after it
            [sys.executable, "-m", "serving", "--port", str(port), "--address", "127.0.0.1", *args],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    return server, log, f"http://127.0.0.1:{port}/app"


def stop(server: subprocess.Popen) -> None:
    os.killpg(server.pid, 15)                   # the parent and the processes it forked
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, 9)


def test_with_one_process_the_launcher_is_plain_panel_serve(monkeypatch):
    """Without --num-procs nothing is loaded before the server starts: the launcher runs `panel serve
    app.py --setup shell/start.py` with the same arguments (tests/shell/test_start.py serves that and
    sees the pair loaded once, after the start)."""
    import panel.command
    from serving import runtime
    ran = []
    monkeypatch.setattr(sys, "argv", ["serving"])
    monkeypatch.setattr(panel.command, "main", lambda: ran.append(list(sys.argv)))
    monkeypatch.setattr(launcher, "preload", lambda *a: pytest.fail("loaded before a fork that never comes"))
    assert launcher.main(["--port", "5006", "--args", "--pair", "tiny"]) == 0
    assert ran == [["panel", "serve", str(ROOT / "app.py"), "--setup", str(ROOT / "shell" / "start.py"),
                    "--port", "5006", "--args", "--pair", "tiny"]]
    assert runtime.loaded_before_fork() is None


def test_the_launcher_stops_its_processes_on_sigterm_and_on_sigint_alike(monkeypatch):
    """SIGTERM and SIGINT to the launcher alone run the same stop (the end-to-end checks below send
    SIGTERM to the launcher and Ctrl-C to its group); each forked process gets its quiet SIGINT."""
    import logging
    from serving import supervise
    handlers, forks = {}, []
    monkeypatch.setattr(supervise, "_launcher_pid", None)
    monkeypatch.setattr(signal, "signal", lambda sig, handler: handlers.__setitem__(sig, handler))
    monkeypatch.setattr(os, "register_at_fork", lambda after_in_child: forks.append(after_in_child))
    tornado = logging.getLogger("tornado.general")
    before = list(tornado.filters)
    try:
        supervise.own_children(2)
        added = [f for f in tornado.filters if f not in before]
    finally:
        tornado.filters[:] = before
    assert handlers == {signal.SIGTERM: supervise._stop, signal.SIGINT: supervise._stop}
    assert forks == [supervise._in_child] and supervise._launcher_pid == os.getpid()
    assert [type(f) for f in added] == [supervise.DeathLine] and added[0].total == 2


def test_a_cache_mistake_and_a_store_mistake_are_each_said_once_by_two_processes(tmp_path):
    """The embedded pair with a file where its cache folder should be: the launcher says so once
    before the fork; its two processes fail the same way (each page says it) and point to it. The
    class store in a folder others can write: refused by both processes, said by the first alone."""
    (tmp_path / "cache").write_text("not a folder")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SPECLAB_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1",
           "SPECLAB_STORE": str(tmp_path / "store" / "class.sqlite")}
    for name in ("SPECLAB_PAIR", "SPECLAB_TARGET", "SPECLAB_DRAFT"):
        env.pop(name, None)                 # the embedded pair, which lives in the cache
    (tmp_path / "store").mkdir()
    (tmp_path / "store").chmod(0o777)
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "serving", "--num-procs", "2", "--port", str(port),
                                   "--address", "127.0.0.1"], cwd=ROOT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: "Each of the 2 processes will load the pair itself" in log.read_text(), timeout=120,
                   message="the launcher's line")
        wait_until(lambda: log.read_text().count("loading the model pair failed, as the launcher said above") == 2,
                   timeout=120, message="both processes' load failed")
    finally:
        stop(server)
    text = log.read_text()
    assert len([line for line in text.splitlines() if "model cache" in line]) == 1, text[-3000:]
    assert len([line for line in text.splitlines() if "can be written by other users" in line]) == 1, text[-3000:]
    assert "Traceback" not in text


# --- the launcher owns the processes it forks -------------------------------------------------------

def launch_two(tmp_path: Path, *lab_args: str):
    """`python -m serving --num-procs 2` started and warm: (launcher, its two processes, log, url)."""
    import psutil
    server, log, url = serve(tmp_path, "--num-procs", "2", *(("--args", *lab_args) if lab_args else ()))
    wait_until(lambda: len(re.findall(r"warm-up: .* ready", log.read_text())) == 2, timeout=180,
               message="both processes' warm-up done")
    children = psutil.Process(server.pid).children()
    assert len(children) == 2
    return server, children, log, url


def port_is_free(url: str) -> bool:
    """Nothing answers on the url's port, and a new server could listen there."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            return False
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)    # as tornado's listening socket
        s.bind(("127.0.0.1", port))
    return True


def all_gone(processes) -> bool:
    return not any(p.is_running() and p.status() != "zombie" for p in processes)


def assert_stopped_in_one_line(server, children, log: Path, url: str) -> None:
    import psutil
    started = time.monotonic()
    wait_until(lambda: all_gone([psutil.Process(server.pid), *children]) and port_is_free(url), timeout=10,
               interval=0.05, message="the launcher and both processes gone, the port free")
    assert time.monotonic() - started < 10
    assert server.wait(timeout=5) == 0
    text = log.read_text()
    assert text.rstrip().splitlines()[-1] == "stopped", text[-2000:]
    for noise in ("Traceback", "KeyboardInterrupt", "Interrupted", "Received signal", "SystemExit"):
        assert noise not in text, text[-3000:]


def test_two_processes_share_the_pair_a_dead_one_starts_again_and_sigterm_stops_all(tmp_path):
    """One launcher, end to end: the pair loaded once before the fork, both processes serving it; a
    process killed is one line while the other keeps serving, and it starts again; SIGTERM to the
    launcher stops them all, frees the port, and says one line."""
    import psutil
    server, children, log, url = launch_two(tmp_path)
    try:
        assert urllib.request.urlopen(url, timeout=30).status == 200
        text = log.read_text()
        assert text.count("pair loaded before the fork, shared by 2 processes: tiny llama target") == 1, text[-3000:]
        assert text.count("torch on 1 thread, sharing the pair loaded before the fork") == 2, text[-3000:]
        children[0].kill()
        line = wait_until(lambda: [s for s in log.read_text().splitlines() if str(children[0].pid) in s
                                   and "server process" in s], timeout=20, message="the death reported")
        assert len(line) == 1 and line[0].endswith(
            f"(pid {children[0].pid}) was killed (SIGKILL); starting it again, the other keeps serving"), line
        assert children[1].is_running()
        assert urllib.request.urlopen(url, timeout=30).status == 200
        wait_until(lambda: len(psutil.Process(server.pid).children()) == 2, timeout=60,
                   message="the killed process started again")
        now = psutil.Process(server.pid).children()
        os.kill(server.pid, signal.SIGTERM)
        assert_stopped_in_one_line(server, now, log, url)
    finally:
        if server.poll() is None:
            stop(server)


def test_ctrl_c_stops_every_process_and_loading_folders_before_the_fork_is_quiet(tmp_path):
    target, draft = save_tiny(tmp_path / "target"), save_tiny(tmp_path / "draft", seed=1)
    server, children, log, url = launch_two(tmp_path, "--target", str(target), "--draft", str(draft))
    try:
        os.killpg(server.pid, signal.SIGINT)           # Ctrl-C: SIGINT to the terminal's group
        assert_stopped_in_one_line(server, children, log, url)
    finally:
        if server.poll() is None:
            stop(server)
    text = log.read_text()
    # the pair loaded from folders before the fork: as quiet as one process
    assert "pair loaded before the fork" in text
    assert "Loading weights" not in text and "[transformers]" not in text, text[:3000]


def test_loading_a_folder_shows_library_noise_unless_quieted(tmp_path, monkeypatch, capfd):
    """The quiet check above can fail: loading a saved model prints transformers' progress bars
    (as in a fresh interpreter, where they are on), and `quiet_loading()` (the launcher's, the
    server's and `lab measure`'s) is what removes them."""
    from transformers.utils import logging as hf_logging
    from lab.pairs.load import load_model, quiet_loading
    folder = save_tiny(tmp_path / "m")
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "")       # then removed; put back as it was after
    monkeypatch.delenv("HF_HUB_DISABLE_PROGRESS_BARS")
    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    try:
        hf_logging.set_verbosity_warning()
        hf_logging.enable_progress_bar()
        capfd.readouterr()
        load_model(folder, "target")
        loud = capfd.readouterr().err
        quiet_loading()
        load_model(folder, "target")
        quiet = capfd.readouterr().err
    finally:
        hf_logging.set_verbosity(verbosity)
        (hf_logging.enable_progress_bar if bars else hf_logging.disable_progress_bar)()
    assert "Loading weights" in loud
    assert "Loading weights" not in quiet


def test_verbose_is_read_from_the_lab_arguments_and_the_environment():
    assert launcher.verbose(["--verbose"], environ={}) and launcher.verbose([], environ={"SPECLAB_VERBOSE": "1"})
    assert not launcher.verbose(["--pair", "tiny"], environ={"SPECLAB_VERBOSE": "0"})
