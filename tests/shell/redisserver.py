"""A real redis-server for the class store's tests: Debian's, started on a free port in a folder of
its own (no service, no config file), stopped (and started again) by the test.

    server = RedisServer(tmp_path, password="right").start()
    server.url            # redis://127.0.0.1:PORT/0
    server.admin("REPLICAOF", "127.0.0.1", "1")      # a command as the operator would type it
    server.stop(save=True); server.start()           # a Redis that goes away and comes back
"""
from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path

import redis

from deploy.proxy import free_port  # noqa: F401  (test_store_redis takes its ports from here too)


class RedisServer:
    def __init__(self, folder: Path, password: str | None = None):
        exe = shutil.which("redis-server")
        assert exe is not None, "redis-server is not installed: apt-get install -y redis-server (.ci/run does)"
        self.exe, self.folder, self.password = exe, Path(folder), password
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", str(self.folder / "log")]
        if self.password:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:                                   # until it answers (a poll, not a timed assertion)
            try:
                self.admin("PING")
                return self
            except redis.ConnectionError:
                assert self.proc.poll() is None and time.monotonic() < deadline, \
                    f"redis-server did not start: {(self.folder / 'log').read_text()[-2000:]}"
                time.sleep(0.05)

    def admin(self, *command):
        """One command on a connection of its own, as the operator would send it."""
        client = redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_timeout=5)
        try:
            return client.execute_command(*command)
        finally:
            client.close()

    def stop(self, save: bool = False) -> None:
        """Kill the server (its data gone), or (`save`) shut it down as an operator would, its data
        saved in its folder for the next start."""
        if self.proc is not None and self.proc.poll() is None:
            if save:
                with contextlib.suppress(redis.ConnectionError):
                    self.admin("SHUTDOWN", "SAVE")
            else:
                self.proc.kill()
            self.proc.wait(timeout=30)
        self.proc = None
