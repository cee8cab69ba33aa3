"""A lecturer's `panel serve app.py --args ...` reaches the pair loader: the badge shows the pair
asked for, and a pair that cannot be used is refused in one sentence while the lab serves another."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.request

from tests.ui.conftest import BENIGN, ROOT, _free_port, open_page, wait_until


@contextlib.contextmanager
def served(args: list[str], env: dict, log_path):
    """`panel serve app.py --args ARGS` on a free port; yields the app's URL; no tracebacks allowed."""
    port = _free_port()
    with open(log_path, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", "app.py", "--port", str(port), "--address", "127.0.0.1",
             f"--allow-websocket-origin=127.0.0.1:{port}", "--num-procs", "1", "--args", *args],
            cwd=ROOT, env={**env, "PYTHONUNBUFFERED": "1"}, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/app"

    def answers():
        assert proc.poll() is None, f"the server exited early:\n{log_path.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status == 200
        except OSError:
            return False
    try:
        wait_until(answers, timeout=120, interval=0.5, message="the server to answer")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    problems = [b for b in log_path.read_text().split("Traceback (most recent call last):")[1:]
                if not any(benign in b for benign in BENIGN)]
    assert not problems, f"the server logged a traceback:\n{problems[0][-3000:]}"


def badge_text(browser, url) -> str:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        pg = context.new_page()
        open_page(pg, url)
        badge = pg.get_by_role("note", name="model pair in use").first
        badge.wait_for(state="visible", timeout=90_000)
        return badge.inner_text()
    finally:
        context.close()


def test_args_choose_the_pair(browser, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECLAB_")}
    with served(["--pair", "tiny-gpt2", "--drafter", "lookup"], env, tmp_path / "server.log") as url:
        text = badge_text(browser, url)
    assert "tiny gpt2 target" in text and "tiny gpt2 draft" in text


def test_a_bad_path_in_args_is_refused_in_one_sentence(browser, tmp_path):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SPECLAB_")}, "SPECLAB_PAIR": "tiny"}
    args = ["--target", "/no/such/folder/target", "--draft", "/no/such/folder/draft"]
    with served(args, env, tmp_path / "server.log") as url:
        text = badge_text(browser, url)
    assert "tiny llama target" in text                       # the environment's pair serves instead
    assert "There is no model folder at" in text and "check the path" in text
    assert "/no/such/folder" not in text                     # pages never show server paths
    log = (tmp_path / "server.log").read_text()
    assert "/no/such/folder/target" in log                   # the lecturer's terminal keeps the detail
