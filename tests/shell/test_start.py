"""Ready before class: `panel serve app.py --setup shell/start.py` loads the pair and runs the warm-up
with no browser connected, and stops cleanly on SIGTERM."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from deploy.proxy import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_the_pair_loads_and_warms_at_start_without_any_browser(tmp_path):
    port, log = free_port(), tmp_path / "server.log"
    env = dict(os.environ, SPECLAB_PAIR="tiny", HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "panel", "serve", "app.py", "--setup", "shell/start.py",
                                   "--port", str(port), "--address", "127.0.0.1"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
    try:
        deadline = time.monotonic() + 180       # nothing connects: the server's own log says it
        while "default demos ready" not in log.read_text() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.2)
        text = log.read_text()
        assert "pair loaded: tiny llama target (target) and tiny llama draft (draft)" in text, text
        assert "default demos ready" in text, text
    finally:
        server.send_signal(signal.SIGTERM)
        rc = server.wait(60)
    text = log.read_text()
    assert rc == 0 and "terminate called" not in text, text
    assert "Traceback" not in text and text.count("pair loaded") == 1
