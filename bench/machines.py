"""One class on two machines on loopback (issue 53): a real redis-server holds the class store, two
servers (`python -m serving --num-procs 1`, each its own port and cache, as two machines) serve it,
and a real nginx in front (deploy/nginx.conf, run by deploy/proxy.py) spreads the students by their
signed browser id. Then the same class on one machine with the SQLite store, side by side.

    python bench/machines.py [--students 400] [--join-interval 0.5] [--tiny] [--no-baseline]

Each student comes from an address of its own (127.0.x.y, as many laptops would; the machines serve
with --use-xheaders and the server's own per-address limits: 4 browsers, 1 vote an address) and runs
a lesson through the proxy as a websocket client (bench/wsclient.py's PageSession, its cookie sent as
a browser sends it): open chapter 10 and move its α/γ/c sliders, answer its question (the vote
counted when the card shows it), open chapter 4 and run rounds, then keep the page open until the
class ends. A lecturer's page on each machine watches question 10's count: for the k-th vote
counted, the time until that machine's lecturer view shows k answers.

Mid-class (once half the students have joined) one machine is killed (SIGKILL: nothing said or saved
on the way). Each student whose page was on it reloads through the proxy: chapter 10 again ("reload
after the kill"), where the card must show the answer the student gave, then goes on. At the end:
the votes in the store against the votes counted (none lost), the lecturer's view on the machine
left, the tracebacks in each machine's log, the latency table, and the machine's load.

All traffic stays on 127.0.0.1; every wait is bounded.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from classroom import load_average, memory  # noqa: E402
from machinesclass import ClassRun, run_class  # noqa: E402
from recorder import Recorder, report_server_log  # noqa: E402
from wsclient import LECTURER_TOKEN, ROOT, free_port  # noqa: E402

MAX_STUDENTS = 1000
PASSWORD = "bench-" + os.urandom(6).hex()


class Machine:
    """`python -m serving --num-procs 1` on `port`, its cache `cache`, its log in `folder`."""

    def __init__(self, name: str, folder: Path, port: int, store: str, tiny: bool, origins: list[str]):
        self.name, self.port, self.log = name, port, folder / f"{name}.log"
        cache = folder / f"cache-{name}"
        prepared = Path(os.environ.get("SPECLAB_CACHE") or Path.home() / ".cache" / "speculative-lab") / "smollm2-135m"
        if not tiny and prepared.is_dir() and not (cache / "smollm2-135m").exists():
            cache.mkdir(parents=True, exist_ok=True)       # the prepared pair, linked: no second conversion
            subprocess.run(["cp", "-al", str(prepared), str(cache / "smollm2-135m")], check=True)
        env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", SPECLAB_LECTURER_TOKEN=LECTURER_TOKEN,
                   SPECLAB_STORE=store, SPECLAB_STORE_PASSWORD=PASSWORD, SPECLAB_CACHE=str(cache))
        for name_ in ("SPECLAB_BROWSERS_PER_ADDRESS", "SPECLAB_VOTES_PER_ADDRESS", "SPECLAB_PAIR"):
            env.pop(name_, None)                            # the server's own per-address limits
        if tiny:
            env["SPECLAB_PAIR"] = "tiny"
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "serving", "--num-procs", "1", "--port", str(port), "--address", "127.0.0.1",
                 "--use-xheaders", "--liveness", *(f"--allow-websocket-origin={o}" for o in origins)],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out, start_new_session=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}/app"

    def wait(self, timeout: float = 900) -> None:
        import urllib.request
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"machine {self.name} exited:\n{self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(self.url, timeout=60)
                return
            except OSError:
                time.sleep(1)
        raise SystemExit(f"machine {self.name} did not answer within {timeout:.0f} s")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()


def warm(machines: list[Machine], timeout: float = 900) -> None:
    """Wait for each machine's start-up warm-up (shell/frame/warmup.py logs "warm-up: … ready"), as a
    lecturer starts the servers before the class comes in."""
    start = time.time()
    for m in machines:
        while not re.search(r"warm-up: .* ready", m.log.read_text(errors="replace")):
            if m.proc.poll() is not None or time.time() - start > timeout:
                raise SystemExit(f"machine {m.name} did not finish its warm-up:\n{m.log.read_text()[-3000:]}")
            time.sleep(1)
    print(f"warm-up done on {len(machines)} machine{'s' if len(machines) > 1 else ''} in {time.time() - start:.0f} s",
          flush=True)


def tracebacks(machine: Machine) -> int:
    print(f"machine {machine.name}: ", end="")
    report_server_log(machine.log)
    text = machine.log.read_text(errors="replace")
    return len([b for b in text.split("Traceback")[1:]
                if not any(x in b for x in ("WebSocketClosedError", "StreamClosedError"))])


async def two_machines(args, folder: Path) -> tuple[Recorder, dict]:
    """The class on two machines behind nginx, one killed mid-class; its recorder and figures."""
    from deploy.proxy import Proxy
    from tests.shell.redisserver import RedisServer
    redis = RedisServer(folder / "redis", password=PASSWORD).start()
    proxy_port = free_port()
    ports = [free_port(), free_port()]
    machines = [Machine(n, folder, p, redis.url, args.tiny, [f"127.0.0.1:{proxy_port}", f"127.0.0.1:{p}"])
                for n, p in zip("AB", ports)]
    proxy = Proxy([m.address for m in machines], folder / "nginx", port=proxy_port)
    try:
        for m in machines:
            m.wait()
        proxy.start()
        warm(machines)
        print(f"\n== two machines, Redis store, nginx in front: {args.students} students joining "
              f"{1 / args.join_interval:g} a second; {load_average()}", flush=True)
        run = ClassRun(proxy.url + "/app", args, lecturers={m.name: m.url for m in machines},
                       kill=lambda: kill_one(machines, proxy), where=proxy.machine_for)
        await run_class(run)
        figures = run.figures()
        figures["store votes"] = store_votes(redis.url)
        figures["tracebacks"] = sum(tracebacks(m) for m in machines)
        figures["load"] = load_average()
        figures["memory"] = {m.name: memory(m.proc) for m in machines if m.proc.poll() is None}
        return run.rec, figures
    finally:
        proxy.stop()
        for m in machines:
            m.stop()
        redis.stop()


def kill_one(machines: list[Machine], proxy) -> str:
    """Kill machine B (mid-class): the machine's name and address."""
    victim = machines[1]
    victim.kill()
    return victim.address


def store_votes(url: str) -> int:
    """Question 10's votes as the class store holds them (read as another machine would)."""
    from shell.store.shared import store_at
    store = store_at(url, password=PASSWORD)
    try:
        return len({voter for voter, _, left in store.poll_state(10).votes if not left})
    finally:
        store.stop()


async def one_machine(args, folder: Path) -> tuple[Recorder, dict]:
    """The same class on one machine with the SQLite store, no proxy, no kill."""
    port = free_port()
    machine = Machine("S", folder, port, str(folder / "class.sqlite"), args.tiny, [f"127.0.0.1:{port}"])
    try:
        machine.wait()
        warm([machine])
        print(f"\n== one machine, SQLite store: {args.students} students joining {1 / args.join_interval:g} "
              f"a second; {load_average()}", flush=True)
        run = ClassRun(machine.url, args, lecturers={"S": machine.url}, kill=None, where=None)
        await run_class(run)
        figures = run.figures()
        figures["tracebacks"] = tracebacks(machine)
        figures["load"] = load_average()
        figures["memory"] = {"S": memory(machine.proc)}
        return run.rec, figures
    finally:
        machine.stop()


def side_by_side(two: Recorder, one: Recorder | None) -> None:
    """The latency per interaction, two machines (Redis) beside one machine (SQLite)."""
    import statistics

    def cell(xs):
        if not xs:
            return f"{'–':>17}"
        xs = sorted(xs)
        p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
        return f"{len(xs):5d} {statistics.median(xs) * 1e3:5.0f} {p95 * 1e3:5.0f}"
    print(f"\n{'interaction':26} {'two machines, Redis':>19} {'one machine, SQLite':>21}")
    print(f"{'':26} {'n':>5} {'p50':>5} {'p95':>5}   {'n':>5} {'p50':>5} {'p95':>5}  (ms)")
    names = sorted(set(two.latency) | set(one.latency if one else {}))
    for name in names:
        print(f"{name:26} {cell(two.latency.get(name))}   {cell(one.latency.get(name) if one else None)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=400)
    ap.add_argument("--join-interval", type=float, default=0.5, help="seconds between students joining")
    ap.add_argument("--rounds", type=int, default=3, help="'Next round' clicks per student")
    ap.add_argument("--drags", type=int, default=3, help="slider moves per student")
    ap.add_argument("--tiny", action="store_true", help="serve the tiny random pair")
    ap.add_argument("--no-baseline", action="store_true", help="skip the one-machine SQLite class")
    args = ap.parse_args()
    if not 2 <= args.students <= MAX_STUDENTS or not 0.05 <= args.join_interval <= 60 \
            or not 0 <= args.rounds <= 20 or not 0 <= args.drags <= 30:
        raise SystemExit(f"--students must be 2–{MAX_STUDENTS}, --join-interval 0.05–60 s, --rounds 0–20, --drags 0–30")
    folder = Path(tempfile.mkdtemp(prefix="speclab-machines-"))
    print(f"{os.cpu_count()} cores; {load_average()}; files in {folder}", flush=True)
    two, figures = asyncio.run(two_machines(args, folder))
    report("two machines", two, figures)                # said now: the baseline takes as long again
    if not args.no_baseline:
        one, baseline = asyncio.run(one_machine(args, folder))
        report("one machine", one, baseline)
        side_by_side(two, one)
    shutil.rmtree(folder, ignore_errors=True)


def report(title: str, rec: Recorder, figures: dict) -> None:
    print(f"\n{title}:", end="")
    rec.report()
    for key, value in figures.items():
        print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
