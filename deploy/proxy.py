"""The proxy in front of several machines: deploy/nginx.conf with the machines' addresses filled in.

For the person who deploys the lab (prints a site for nginx's http block):

    python deploy/proxy.py --machine 10.0.0.11:5006 --machine 10.0.0.12:5006 [--listen 80] > speclab.conf

For tests and benches, a real nginx run as any user, on a free port of 127.0.0.1, with everything it
writes (pid, logs, temporary files) in one folder, in the foreground (no daemon, no root path):

    with Proxy(["127.0.0.1:5006", "127.0.0.1:5007"], tmp_path / "nginx") as proxy:
        proxy.url                    # http://127.0.0.1:PORT
"""
from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"
MACHINE = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$")    # HOST:PORT, nothing else
LISTEN = re.compile(r"^((\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?\d{1,5}$")


def site(machines: list[str], listen: str = "80") -> str:
    """deploy/nginx.conf for `machines` (each HOST:PORT, a machine serving the lab) behind `listen`
    (a port, or ADDRESS:PORT). A machine or listen address that is not one is refused (ValueError):
    nothing but an address reaches the config."""
    if not machines:
        raise ValueError("name at least one machine (HOST:PORT)")
    for machine in machines:
        if not MACHINE.match(machine):
            raise ValueError(f"{machine!r} is not a machine's HOST:PORT")
    if not LISTEN.match(listen):
        raise ValueError(f"{listen!r} is not a port or ADDRESS:PORT to listen on")
    servers = "\n".join(f"    server {m} max_fails=1 fail_timeout=10s;" for m in machines)
    return TEMPLATE.read_text().replace("@MACHINES@", servers).replace("@LISTEN@", listen)


def standalone(machines: list[str], listen: str, folder: Path) -> str:
    """A whole nginx.conf around `site(...)` for an nginx run by any user: its pid, logs and
    temporary files in `folder`, in the foreground, one worker."""
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in
                     ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} warn;\n"
            f"events {{ worker_connections 4096; }}\n"
            f"http {{\n    access_log off;\n{temp}\n"
            + "\n".join("    " + line if line else "" for line in site(machines, listen).splitlines())
            + "\n}\n")


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now, and that this process has not handed out
    before: the kernel may offer a just-closed port again, and two servers started side by side (two
    machines, a proxy) must not be given the same one."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError("no free TCP port on 127.0.0.1 that was not handed out already")


class Proxy:
    """A real nginx (Debian's) in front of `machines`, on a free port of 127.0.0.1, with its files in
    `folder`; `start()` returns once it answers, `stop()` ends it."""

    def __init__(self, machines: list[str], folder: Path, port: int | None = None):
        exe = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
        if exe is None:
            raise RuntimeError("nginx is not installed: apt-get install -y nginx (.ci/run does)")
        self.exe, self.machines, self.folder = exe, list(machines), Path(folder)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Proxy:
        self.folder.mkdir(parents=True, exist_ok=True)
        conf = self.folder / "nginx.conf"
        conf.write_text(standalone(self.machines, f"127.0.0.1:{self.port}", self.folder))
        self.proc = subprocess.Popen([self.exe, "-p", str(self.folder), "-e", str(self.folder / "error.log"),
                                      "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:                      # until it listens (a poll, not a timed guess)
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {self.errors()[-2000:]}") from None
                time.sleep(0.05)

    def machine_for(self, cookie: str | None = None, path: str = "/liveness") -> str:
        """The machine (HOST:PORT) the proxy sends a request with browser id `cookie` to (none: a
        first visit from this address); the one that answered, where the first did not."""
        request = urllib.request.Request(self.url + path, headers={"Cookie": f"speclab_id={cookie}"} if cookie else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                tried = reply.headers.get("X-Speclab-Machine", "")
        except urllib.error.HTTPError as err:      # the machine answered (a 404 without --liveness)
            tried = err.headers.get("X-Speclab-Machine", "")
        return tried.split(",")[-1].strip()        # nginx lists every machine it tried

    def errors(self) -> str:
        log = self.folder / "error.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()        # nginx's fast shutdown
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Print deploy/nginx.conf for the machines that serve one class.")
    ap.add_argument("--machine", action="append", required=True, metavar="HOST:PORT",
                    help="a machine serving the lab (python -m serving ... --use-xheaders); repeat per machine")
    ap.add_argument("--listen", default="80", help="the proxy's port or ADDRESS:PORT (default 80)")
    args = ap.parse_args(argv)
    try:
        print(site(args.machine, args.listen), end="")
    except ValueError as err:
        print(f"{err}.", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
