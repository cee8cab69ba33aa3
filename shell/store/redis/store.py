"""The class store on a Redis server: one class served from several machines (`SPECLAB_STORE=
redis://HOST:PORT/DB`, the password in the URL or SPECLAB_STORE_PASSWORD).

    store = RedisStore("redis://10.0.0.5:6379/0", password="…")   # never raises for a Redis away

Every key starts with `speclab:` and every family is capped and expires (CLASS_TTL after the last
process of the class stopped beating; each heartbeat starts it again): `secret`, `run`; the poll's
`questions` and `revealed` (question numbers 1–99), `votes:N` (MAX_VOTERS each); `procs` and
`proc:ID` (live processes: GONE_AFTER without a heartbeat and one is gone), `presence:ID` (a
process's open pages, MAX_PAGES); `snapshots` (the newest `keep`); `values` (outcomes KEEP_SHARED /
KEEP_SHARED_BYTES, others KEEP_VALUES). Events go by pub/sub on `speclab:events`, nothing stored.

A Redis that is down, unreachable, refuses the password or is read-only is one sentence (`problem`,
the lecturer's view; said once in the terminal): every operation then fails at once (StoreFault, no
wait on the network), so each process teaches on its own from its memory, and its watch thread
tries again every RETRY seconds; once Redis answers and takes writes, the process rejoins the class:
its id, its pages and what it kept in memory are written again, its listeners hear "rejoin".
"""
from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import threading
import time
from urllib.parse import urlsplit

import redis
from redis import exceptions as errors
from redis.backoff import NoBackoff
from redis.retry import Retry

from lab.i18n import N_, Said
from shell.store.contract import GONE_AFTER, ClassStore, said_once
from shell.store.events import INTERVAL, StoreFault
from shell.store.files import server_pid
from shell.store.redis import scripts
from shell.store.redis.rows import RedisPoll, RedisValues

log = logging.getLogger(__name__)

PREFIX = "speclab:"
TIMEOUT = 2.0           # seconds a Redis command may take before Redis counts as unreachable
RETRY = 1.0             # seconds between two tries to rejoin a Redis that failed
CLASS_TTL = 7 * 24 * 3600   # a class's keys go this long after its last process stopped


class RedisStore(RedisPoll, RedisValues, ClassStore):
    """The class's shared state in one Redis database. Thread-safe (redis-py's pool)."""

    def __init__(self, url: str, password: str | None = None, run: str | None = None,
                 interval: float = INTERVAL, prefix: str = PREFIX):
        """`run`: the serving run the class's keys belong to; another run's are emptied first (None:
        keep them). A malformed URL raises ValueError; a Redis away is a fault, tried again later."""
        super().__init__(interval)
        self.where = where(url)
        extra = {"password": password} if password and not urlsplit(url).password else {}
        self.client = redis.Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT,
                                           retry=Retry(NoBackoff(), 0), **extra)
        self.prefix, self.ttl, self._run = prefix, CLASS_TTL, run
        self.proc = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
        self.server = server_pid()
        self.salt = secrets.token_bytes(16)          # this process's own until the class's is read
        self._scripts = {name: self.client.register_script(getattr(scripts, name)) for name in SCRIPTS}
        self._sub, self._sub_lock = None, threading.Lock()
        self._down, self._tried, self._joined = True, float("-inf"), False
        self._sessions = 0
        try:
            self._join()
        except StoreFault:              # said; the watch thread tries again every RETRY seconds
            pass
        self.start()

    # --- calls, faults and rejoining ---
    def _do(self, fn, *args, **kwargs):
        """`fn(*args)` on Redis; StoreFault (at once while Redis is away) instead of Redis's errors."""
        if self._down:
            raise StoreFault(self.problem or N_("The class's shared store is not reachable."))
        try:
            return fn(*args, **kwargs)
        except redis.RedisError as exc:
            raise self.fault(exc) from None

    def _script(self, name: str, *args):
        return self._do(self._scripts[name], args=[self.prefix, *args])

    def fault(self, exc: Exception) -> StoreFault:
        """Redis failed (`exc`): every call fails at once until the watch thread rejoins."""
        self._down = True
        why = problem_of(exc)
        return self._failed(
            Said(N_("The class's shared store (Redis) {why} right now: new votes and settings stay on this "
                    "server process until it is back."), why=Said(why)),
            f"The class store {self.where} {why} ({' '.join(str(exc).split())}); each process keeps its votes "
            f"and settings until it is back, then rejoins the class: {dict(ADVICE)[why]}.")

    def rejoin(self) -> bool:
        """Try Redis again now (the watch thread does every RETRY seconds while it fails); True once
        this process is in the class again, having written what it kept meanwhile."""
        if not self._down:
            return True
        self._tried = time.monotonic()
        try:
            self._join()
        except StoreFault:
            return False
        self.hear("rejoin")
        self.write_kept()
        if self._down:                      # failed again while writing back: the watch thread tries again
            return False
        self.problem = None                 # over once what this process kept is in the class's store
        said_once(logging.WARNING, "The class store %s is back; this process rejoined the class.", self.where)
        return True

    def _join(self) -> None:
        """Into the class: its run and secret, this process's events and heartbeat."""
        client, p = self.client, self.prefix
        try:
            client.set(f"{p}probe:{self.proc}", 1, ex=10)      # a read-only Redis refuses this
            if self._run is not None and client.get(f"{p}run") != self._run.encode():
                for keys in batches(client.scan_iter(match=f"{p}*", count=500)):
                    client.delete(*keys)
                client.set(f"{p}run", self._run, ex=self.ttl)
            client.set(f"{p}secret", self.salt.hex(), nx=True, ex=self.ttl)
            secret = bytes.fromhex(client.get(f"{p}secret").decode())
            sub = client.pubsub(ignore_subscribe_messages=True)
            sub.subscribe(f"{p}events")
        except (redis.RedisError, AttributeError, ValueError) as exc:
            raise self.fault(exc) from None
        if not self._joined:
            self.salt = secret              # the class's: ids signed by any of its processes hold here
        elif secret != self.salt:
            said_once(logging.WARNING, "This process started while the class store %s was away, so the browser "
                      "ids it signed are its own until it restarts.", self.where)
        with self._sub_lock:
            old, self._sub = self._sub, sub
        if old is not None:
            old.close()
        self._down, self._joined = False, True
        self.heartbeat(sessions=self._sessions)

    def tick(self) -> None:
        if self._down and (time.monotonic() - self._tried < RETRY or not self.rejoin()):
            return
        super().tick()

    # --- events: Redis pub/sub ---
    def _message(self, kind: str, data) -> str:
        return json.dumps({"o": self.proc, "k": kind, "d": json.dumps(data)})

    def _emit(self, kind: str, text: str) -> None:
        self._do(self.client.publish, f"{self.prefix}events", json.dumps({"o": self.proc, "k": kind, "d": text}))

    def _look(self) -> list[tuple[str, str]]:
        """The events published since the last look: a PING on the subscription fences them, so every
        event published before this call is heard by it."""
        with self._sub_lock:
            if self._down or self._sub is None:
                raise StoreFault(self.problem or N_("The class's shared store is not reachable."))
            token, messages = secrets.token_hex(4).encode(), []
            try:
                self._sub.ping(token)
                deadline = time.monotonic() + TIMEOUT
                while True:                 # None: nothing yet, or a subscription notice it skipped
                    message = self._sub.get_message(timeout=max(0.0, deadline - time.monotonic()))
                    if message is not None and message["type"] == "pong" and message["data"] == token:
                        break
                    if message is not None and message["type"] == "message":
                        messages.append(message["data"])
                    if message is None and time.monotonic() > deadline:
                        raise redis.TimeoutError("no answer to a ping on the class's events")
            except redis.RedisError as exc:
                raise self.fault(exc) from None
        events = []
        for raw in messages:
            try:
                event = json.loads(raw)
                if event["o"] != self.proc:
                    events.append((str(event["k"]), str(event["d"])))
            except (ValueError, KeyError, TypeError):
                log.warning("An event on the class store's channel was not the lab's and was ignored.")
        return events

    # --- the processes and their sessions ---
    def heartbeat(self, sessions: int | None = None) -> None:
        """This process is alive (with `sessions` open pages, if given); forget processes gone silent,
        their pages with them."""
        if sessions is not None:
            self._sessions = sessions
        self._script("HEARTBEAT", self.proc, self._sessions, self.server, int(GONE_AFTER), self.ttl,
                     "1" if sessions is not None else "", self._message("sessions", None))

    def _sessions_elsewhere(self) -> int:
        return int(self._script("SESSIONS", self.proc))


SCRIPTS = ("HEARTBEAT", "SESSIONS", "POLL_STATE", "VOTE", "CLEAR", "SNAPSHOTS", "PUT", "DROP", "ADD", "JOIN", "LEAVE")

ADVICE = ((N_("cannot be reached"), "check that redis-server runs there and that this machine may reach it"),
          (N_("refuses the password"), "check the password in SPECLAB_STORE or SPECLAB_STORE_PASSWORD"),
          (N_("refuses writes (read-only or full)"), "make it a primary (REPLICAOF NO ONE) with room to write"),
          (N_("answered with an error"), "check that the database holds only the lab's keys"))


def problem_of(exc: Exception) -> str:
    """What is wrong with Redis, in the words of the sentence (a key of ADVICE)."""
    text = str(exc)
    if isinstance(exc, (errors.AuthenticationError, errors.AuthorizationError, errors.NoPermissionError)) \
            or text.startswith(("NOAUTH", "WRONGPASS")):
        return "refuses the password"
    if isinstance(exc, (errors.ReadOnlyError, errors.OutOfMemoryError)) \
            or text.startswith(("READONLY", "NOREPLICAS", "MISCONF", "OOM")):
        return "refuses writes (read-only or full)"
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError)):
        return "cannot be reached"
    return "answered with an error"


def where(url: str) -> str:
    """The Redis server of `url` as the terminal may show it: never its password."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or '/0'}"


def batches(items, size: int = 500):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
