"""One class on two machines (issue 53): a real redis-server holds the class store, two servers
(`python -m serving --num-procs 1`, each with its own cache and port, as two machines would be) serve
it, and a real nginx in front (deploy/nginx.conf, rendered and run by deploy/proxy.py) spreads the
students by their signed browser id. A vote cast through machine B shows on the lecturer's view held
by machine A; the lecturer's reveal reaches pages on both; machine B killed, its student's page says
so in one sentence, and reloaded through the proxy it opens on A with the answer and prompt kept."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from deploy.proxy import Proxy
from tests.helpers import wait_until
from tests.shell.redisserver import RedisServer
from tests.ui.helpers import (BENIGN, LECTURER_TOKEN, PROMPT_BOX, ROOT, SETTINGS, act, answer, free_port, has,
                              lecturer_status, open_page, separate_browsers)

LOST = "The server of this page went away"        # assets/shell.js: a page whose machine went away
PROMPT = "the dog ran in the park"


class Machine:
    """`python -m serving --num-procs 1` on a port of its own, with its own cache, on the class store
    `store`; the proxy's address is an origin its pages' websockets may come from."""

    def __init__(self, folder, store: str, password: str, proxy_port: int):
        folder.mkdir(parents=True, exist_ok=True)
        self.port, self.log = free_port(), folder / "server.log"
        env = {**os.environ, "SPECLAB_PAIR": "tiny", "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN,
               "SPECLAB_STORE": store, "SPECLAB_STORE_PASSWORD": password, "SPECLAB_CACHE": str(folder / "cache"),
               # every test browser comes from 127.0.0.1 (shell.room.identity)
               "SPECLAB_BROWSERS_PER_ADDRESS": "1000", "SPECLAB_VOTES_PER_ADDRESS": "1000", "PYTHONUNBUFFERED": "1"}
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "serving", "--num-procs", "1", "--port", str(self.port), "--address",
                 "127.0.0.1", "--use-xheaders", "--liveness", f"--allow-websocket-origin=127.0.0.1:{proxy_port}",
                 f"--allow-websocket-origin=127.0.0.1:{self.port}"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def answers(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"a machine's server exited early:\n{self.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://{self.address}/liveness", timeout=5) as reply:
                return reply.status == 200
        except OSError:
            return False

    def kill(self) -> None:
        """The machine goes away: its server killed at once, nothing said or saved on the way."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def tracebacks(self) -> list[str]:
        text = self.log.read_text(errors="replace")
        return [block for block in text.split("Traceback (most recent call last):")[1:]
                if not any(benign in block for benign in BENIGN)]


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    """Redis, two machines on it and nginx in front: (proxy, {address: Machine})."""
    folder = tmp_path_factory.mktemp("machines")
    redis = RedisServer(folder / "redis", password="class-secret").start()
    proxy_port = free_port()
    made = [Machine(folder / name, redis.url, "class-secret", proxy_port) for name in ("one", "two")]
    assert len({m.address for m in made} | {f"127.0.0.1:{proxy_port}"}) == 3, "two servers were given one port"
    proxy = Proxy([m.address for m in made], folder / "nginx", port=proxy_port)
    try:
        wait_until(lambda: all(m.answers() for m in made), timeout=120, interval=0.3,
                   message="both machines to answer")
        proxy.start()
        yield proxy, {m.address: m for m in made}
    finally:
        proxy.stop()
        for m in made:
            m.stop()
        redis.stop()
    problems = [(m.address, t) for m in made for t in m.tracebacks()]
    assert not problems, f"a machine logged a traceback:\n{problems[0][1][-4000:]}"


def machine_of(context, proxy: Proxy) -> str:
    """The machine the proxy sends this browser's pages to (its cookie set by its first page)."""
    wait_until(lambda: any(c["name"] == "speclab_id" for c in context.cookies()), message="the browser's id cookie")
    reply = context.request.get(proxy.url + "/liveness")
    return reply.headers["x-speclab-machine"].split(",")[-1].strip()


def students_on_each(browser, proxy: Proxy, errors: list) -> dict[str, tuple]:
    """One student per machine: new browsers open the landing page through the proxy (a first visit,
    sent by address) until the ids they were given send one to each machine. {address: (context, page)}."""
    found, spare = {}, []
    for _ in range(12):                       # each new browser lands on either machine: 2 ⁻¹¹ to miss
        (context,), (pg,) = separate_browsers(browser, 1, errors)
        open_page(pg, proxy.url + "/app", "Can a small model make a big one faster")
        where = machine_of(context, proxy)
        (spare if where in found else found.setdefault(where, [])).append((context, pg))
        if len(found) == 2:
            break
    for context, _ in spare:
        context.close()
    assert len(found) == 2, "the proxy sent twelve browsers to one machine"
    return {where: pages[0] for where, pages in found.items()}


def test_one_class_on_two_machines_survives_one_going_away(machines, browser, shot):
    proxy, by_address = machines
    errors: list[str] = []
    students = students_on_each(browser, proxy, errors)
    b_address = next(iter(students))                        # the first student's machine is B
    a_address = next(a for a in by_address if a != b_address)
    (_, on_b), (_, on_a) = students[b_address], students[a_address]
    (lecturer_context,), (lecturer,) = separate_browsers(browser, 1, errors)
    try:
        open_page(lecturer, f"http://{a_address}/app?chapter=checking&lecturer={LECTURER_TOKEN}", "Class poll")
        act(lecturer, "reset-all").click()
        for pg, where in ((on_b, b_address), (on_a, a_address)):
            reply = pg.goto(proxy.url + "/app?chapter=checking", wait_until="domcontentloaded")
            assert reply.headers["x-speclab-machine"] == where        # each student on their machine
            pg.locator(".predict-card").first.wait_for(state="visible", timeout=60000)   # chapter 3's question
        wait_until(lambda: lecturer_status(lecturer).startswith("0 of 2 browsers here"),
                   message="both machines' students counted on the lecturer's view")

        answer(on_b, "5")                                      # a vote through machine B …
        on_b.locator(SETTINGS).click()
        on_b.get_by_label(PROMPT_BOX).fill(PROMPT)
        act(on_b, "apply-settings").click()
        on_b.locator(".settings-panel .badge").wait_for()      # saved (uikit.panels.SettingsPanel.commit)
        answer(on_a, "1")
        wait_until(lambda: lecturer_status(lecturer).startswith("2 of 2 browsers here have answered"),
                   message="… on the lecturer's view held by machine A")
        wait_until(lambda: has(lecturer, "A 1: 1 (50%)", "B 5: 1 (50%)"), message="the 1 / 1 split")
        act(lecturer, "reveal-3").click()
        for pg in (on_b, on_a):
            wait_until(lambda pg=pg: has(pg, "The class's answers (revealed): 2 of"),
                       message="the reveal to reach a student on each machine")

        by_address[b_address].kill()                           # machine B goes away mid-class
        wait_until(lambda: has(on_b, LOST), message="the student's page to say its machine went away")
        assert on_b.get_by_role("alert").filter(has_text=LOST).count() == 1
        shot(on_b, "machines-server-went-away")
        assert not has(on_a, LOST) and not has(lecturer, LOST)
        reply = on_b.reload(wait_until="domcontentloaded")      # through the proxy: on A now
        assert reply.headers["x-speclab-machine"].split(",")[-1].strip() == a_address
        on_b.locator(".predict-card").first.wait_for(state="visible", timeout=60000)
        # the card kept the answer (5, revealed as wrong) and the class's bars mark it as this browser's
        wait_until(lambda: has(on_b, "Not quite: the answer is 1", "B 5: 1 (50%) · your answer"),
                   message="the answer kept on machine A")
        on_b.locator(SETTINGS).click()
        wait_until(lambda: on_b.get_by_label(PROMPT_BOX).input_value() == PROMPT, message="the prompt kept")
        wait_until(lambda: lecturer_status(lecturer).startswith("2 of 2 browsers here have answered"),
                   message="both votes still on the lecturer's view")          # no vote lost
        assert not has(on_b, LOST)
    finally:
        for context in (lecturer_context, students[a_address][0], students[b_address][0]):
            context.close()
    assert not errors, f"console errors: {errors[:5]}"
