"""`python -m serving --num-procs N`: the pair is loaded once, before the server forks, and every
forked process serves it (its model work runs after the fork); with one process the launcher is
plain `panel serve app.py --setup shell/start.py`."""
import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import serving.__main__ as launcher
from lab.errors import PairError
from serving import serving_processes
from tests.helpers import wait_until

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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SPECLAB_PAIR": "tiny", "SPECLAB_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    env.pop("SPECLAB_STORE", None)
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "serving", *args, "--port", str(port), "--address", "127.0.0.1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    return server, log, f"http://127.0.0.1:{port}/app"


def stop(server: subprocess.Popen) -> None:
    os.killpg(server.pid, 15)                   # the parent and the processes it forked
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, 9)


def test_two_processes_share_the_pair_loaded_before_the_fork(tmp_path):
    server, log, url = serve(tmp_path, "--num-procs", "2")
    try:
        wait_until(lambda: len(re.findall(r"warm-up: .* ready", log.read_text())) == 2, timeout=180,
                   message="both processes' warm-up (model work after the fork) done")
        assert urllib.request.urlopen(url, timeout=30).status == 200
    finally:
        stop(server)
    text = log.read_text()
    assert text.count("pair loaded before the fork, shared by 2 processes: tiny llama target") == 1
    assert text.count("torch on 1 thread, sharing the pair loaded before the fork") == 2, text[-3000:]
    assert "Traceback" not in text, text[-4000:]


def test_one_process_loads_the_pair_after_the_server_starts(tmp_path):
    server, log, url = serve(tmp_path)
    try:
        wait_until(lambda: "warm-up:" in log.read_text() and " ready" in log.read_text(), timeout=180,
                   message="the warm-up done")
        assert urllib.request.urlopen(url, timeout=30).status == 200
    finally:
        stop(server)
    text = log.read_text()
    assert "before the fork" not in text and text.count("pair loaded: tiny llama target") == 1
    assert "Traceback" not in text, text[-4000:]
