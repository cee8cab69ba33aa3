"""The class poll when several server processes serve the class (shell.store.shared): students' votes taken
by one `panel serve` reach a lecturer's page served by another through the shared SQLite file; the
lecturer's reveal and reset reach the students back; and `--num-procs 2` forks two processes that
open the class's store in the cache folder and share the cores."""
import os
import sqlite3
import subprocess
import sys
import urllib.request

import pytest

from tests.helpers import wait_until
from tests.ui.helpers import LECTURER_TOKEN, QUESTION, ROOT, act, answer, free_port, has, lecturer_status, open_page, \
    served


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory):
    """Two servers of the tiny pair, each its own process, on one SPECLAB_STORE: (lecturer's, students')."""
    folder = tmp_path_factory.mktemp("two")
    env = {**os.environ, "SPECLAB_PAIR": "tiny", "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN,
           "SPECLAB_STORE": str(folder / "class.sqlite")}
    with served(env, folder / "one.log") as one, served(env, folder / "two.log") as two:
        yield one, two


def test_votes_in_one_process_reach_the_lecturer_in_another(two_servers, browser):
    lecturers_server, students_server = two_servers
    contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(3)]
    lecturer, a, b = (c.new_page() for c in contexts)
    try:
        for pg in (lecturer, a, b):
            pg.set_default_timeout(60000)
        open_page(lecturer, lecturers_server + f"?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
        act(lecturer, "reset-all").click()
        for pg in (a, b):
            open_page(pg, students_server + "?chapter=checking", QUESTION)
        wait_until(lambda: lecturer_status(lecturer).startswith("0 of 2 browsers here"),
                   message="the other process's students counted on the lecturer's page")
        answer(a, "1")
        answer(b, "5")
        wait_until(lambda: lecturer_status(lecturer).startswith("2 of 2 browsers here have answered"),
                   message="two votes from the other process on the lecturer's view")
        wait_until(lambda: has(lecturer, "A 1: 1 (50%)", "B 5: 1 (50%)"), message="the 1 / 1 split")
        act(lecturer, "reveal-3").click()
        for pg in (a, b):
            wait_until(lambda pg=pg: has(pg, "The class's answers (revealed): 2 of"),
                       message="the reveal to reach a student served by the other process")
        act(lecturer, "reset-question-3").click()
        wait_until(lambda: has(a, "press your answer again"), message="the reset to reach a student")
        wait_until(lambda: lecturer.locator(".sessions").first.inner_text().startswith("3 open sessions on this server"),
                   message="both processes' pages in the lecturer's count")
    finally:
        for c in contexts:
            c.close()


def test_num_procs_forks_processes_that_share_the_class(tmp_path, browser):
    """`panel serve --num-procs 2 --setup shell/start.py`: two processes, each loading the pair after
    the fork with one torch thread of the two cores, one class store in the cache folder; a vote
    reaches the lecturer whichever process serves each page, and a page whose websocket reached
    the other process than its HTML still takes everything from this server (offline)."""
    port = free_port()
    env = {**os.environ, "SPECLAB_PAIR": "tiny", "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN,
           "SPECLAB_CACHE": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1", "SPECLAB_BROWSERS_PER_ADDRESS": "1000",
           "SPECLAB_VOTES_PER_ADDRESS": "1000"}
    env.pop("SPECLAB_STORE", None)
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", "app.py", "--setup", "shell/start.py", "--num-procs", "2",
             "--port", str(port), "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/app"
    contexts = []
    try:
        try:
            wait_until(lambda: log.read_text().count("torch on 1 thread") == 2, timeout=120,
                       message="two serving processes, one torch thread each")
        except AssertionError as exc:       # say what the server said instead
            raise AssertionError(f"{exc}\n{log.read_text()[-3000:]}") from None
        stores = list((tmp_path / "cache" / "classroom").glob("serve-*.sqlite"))
        assert [s.name for s in stores] == [f"serve-{server.pid}.sqlite"]
        with sqlite3.connect(stores[0]) as db:
            assert db.execute("SELECT COUNT(*) FROM procs").fetchone()[0] == 2
        wait_until(lambda: urllib.request.urlopen(url, timeout=5).status == 200, message="the server to answer")
        contexts = [browser.new_context(viewport={"width": 1280, "height": 720}) for _ in range(2)]
        lecturer, student = (c.new_page() for c in contexts)
        outside, errors = [], []
        for pg in (lecturer, student):
            pg.set_default_timeout(60000)
            pg.on("request", lambda r: r.url.startswith(("http:", "https:")) and not r.url.startswith(url[:-4])
                  and outside.append(r.url))
            pg.on("console", lambda m: m.type == "error" and errors.append(m.text[:300]))
        open_page(lecturer, url + f"?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
        for _ in range(4):                  # the kernel hands each connection to either process
            open_page(student, url + "?chapter=checking", QUESTION)
        assert outside == [] and errors == [], (outside[:3], errors[:3])
        answer(student, "5")
        wait_until(lambda: lecturer_status(lecturer).startswith("1 of 1 browser here has answered"),
                   message="the vote on the lecturer's view")
    finally:
        for c in contexts:
            c.close()
        os.killpg(server.pid, 15)               # the parent and the processes it forked
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
    text = log.read_text()
    assert "Traceback" not in text, text[-4000:]
