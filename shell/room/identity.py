"""Who a page belongs to, in a form a script cannot mint at will: signed browser ids, limited per
client address.

A browser is known by its `speclab_id` cookie. The server issues the id with the page (the shell's
keys write it into the cookie) and signs it with the class's secret, so a cookie the server did not
issue is not an identity: it counts as no cookie. A page without a valid cookie gets a new id, and
new ids are limited per client address (the class's `new_ids`): `browsers_per_address()` at once,
then one a minute. Past that, the address's further pages share one identity, the address's own (`pooled`),
which is not written into a cookie, so a real browser gets its own id once the address may mint
again. Token checks, votes, the model queue's fair share, clicks and messages are all counted per
identity, so a script that drops its cookie gains a handful of identities, not one per page.

The secret is the class store's (shell.store.shared: every process of a class signs alike, and ids outlive
a restart with `SPECLAB_STORE`), else one per process run. The limits live in the class store too
when there is one (`SharedTable`), so every process counts the same address: two processes that
mint for one address in the same instant may each pass once more.

    signer, new_ids = Signer(signing_key(store)), new_id_limit(store)     # one each per server
    bid = identify(cookie, address, signer, new_ids)    # the signed id, a new one, or the address's pool
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from collections import OrderedDict

from intercept.checks import client_address  # noqa: F401  (a served page's client address, for shell.room's callers)

BROWSERS_PER_ADDRESS = 4     # browsers one client address may start at once (SPECLAB_BROWSERS_PER_ADDRESS)
VOTES_PER_ADDRESS = 1        # poll answers counted per question from one client address (SPECLAB_VOTES_PER_ADDRESS)
NEW_ID_EVERY = 60.0          # seconds: then one more new browser id per address this often
SIGNED = re.compile(r"[0-9a-f]{32}\.[0-9a-f]{24}")


def browsers_per_address(environ=None) -> int:
    """How many browsers one client address stands for: `SPECLAB_BROWSERS_PER_ADDRESS` (a whole
    number ≥ 1; a class behind one proxy, or tests opening many browsers on 127.0.0.1, set it higher),
    else BROWSERS_PER_ADDRESS."""
    return _whole_number(environ, "SPECLAB_BROWSERS_PER_ADDRESS", BROWSERS_PER_ADDRESS)


def votes_per_address(environ=None) -> int:
    """How many poll answers to one question count from one client address: `SPECLAB_VOTES_PER_ADDRESS`
    (a whole number ≥ 1; students sharing a computer, or a class behind one proxy, set it higher), else
    VOTES_PER_ADDRESS: one, so a script minting browser ids on one machine is one vote."""
    return _whole_number(environ, "SPECLAB_VOTES_PER_ADDRESS", VOTES_PER_ADDRESS)


def _whole_number(environ, name: str, default: int) -> int:
    env = os.environ if environ is None else environ
    try:
        return max(1, int(env.get(name, default)))
    except ValueError:
        return default


def signing_key(store) -> bytes:
    """The key browser ids are signed with: the class store's (`store`: shell.store.shared.ClassStore), else
    a new one for this process."""
    if store is not None:                 # every process of the class signs with the class's secret
        return hashlib.blake2b(b"speclab browser id", key=store.salt).digest()
    return secrets.token_bytes(32)


class Signer:
    """Signs browser ids with a secret key and recognises the ids it signed."""

    def __init__(self, key: bytes):
        self._key = key

    def _mac(self, text: str) -> str:
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()[:24]

    def new(self) -> str:
        """A new signed browser id: 32 hex digits, a dot, their signature."""
        bid = secrets.token_hex(16)
        return f"{bid}.{self._mac(bid)}"

    def verified(self, cookie) -> str | None:
        """`cookie` when it is an id this server signed, else None."""
        if not isinstance(cookie, str) or not SIGNED.fullmatch(cookie):
            return None
        bid, mac = cookie.split(".")
        return cookie if hmac.compare_digest(mac, self._mac(bid)) else None

    def pooled(self, address: str) -> str:
        """The identity every page from `address` shares past its new-id limit (not a cookie)."""
        return "pool-" + self._mac("address " + address)

    def hashed(self, text: str) -> str:
        """A short keyed hash of `text` (an address), for keys that must not hold it."""
        return self._mac("key " + text)[:16]


class MemoryTable:
    """Small JSON-like records by key, in this process; the `size` touched last are kept."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._rows: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = self._rows.get(key)
            return dict(row) if row is not None else None

    def put(self, key: str, row: dict) -> None:
        with self._lock:
            self._rows[key] = dict(row)
            self._rows.move_to_end(key)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)


class SharedTable:
    """The same records in the class store (shell.store.shared.ClassStore's shared values, as JSON), so
    every serving process reads and counts the same."""

    def __init__(self, store, prefix: str):
        self.store, self.prefix = store, prefix

    def get(self, key: str) -> dict | None:
        found = self.store.get(f"{self.prefix}:{key}")
        if found is None:
            return None
        try:
            row = json.loads(found[1])
        except (ValueError, TypeError):
            return None
        return row if isinstance(row, dict) else None

    def put(self, key: str, row: dict) -> None:
        self.store.put(f"{self.prefix}:{key}", json.dumps(row).encode())


def table(prefix: str, store=None):
    """A SharedTable in the class store when there is one, else a MemoryTable."""
    return SharedTable(store, prefix) if store is not None else MemoryTable()


class Buckets:
    """A token bucket per key: `burst` at once, then `rate` a second. Kept in a table (memory or the
    class store); wall-clock time, so that processes agree."""

    def __init__(self, rate: float, burst: float, rows=None, clock=time.time):
        self.rate, self.burst, self.clock = rate, burst, clock
        self.rows = rows if rows is not None else MemoryTable()
        self._lock = threading.Lock()

    def _left(self, key: str, now: float) -> float:
        row = self.rows.get(key) or {}
        left, at = float(row.get("left", self.burst)), float(row.get("at", now))
        return min(float(self.burst), left + max(0.0, now - at) * self.rate)

    def take(self, key: str) -> bool:
        """Spend one of `key`'s tokens if it has one; whether it had."""
        with self._lock:
            now = self.clock()
            left = self._left(key, now)
            if left < 1:
                return False
            self.rows.put(key, {"left": left - 1, "at": now})
            return True

    def wait(self, key: str) -> float:
        """Seconds until `key` has a token (0: now)."""
        with self._lock:
            left = self._left(key, self.clock())
        return 0.0 if left >= 1 else (1 - left) / self.rate if self.rate > 0 else float("inf")


def new_id_limit(store=None, environ=None) -> Buckets:
    """The new browser ids each client address may start: `browsers_per_address()` at once, then one
    every NEW_ID_EVERY seconds (counted in the class store when there is one)."""
    return Buckets(1 / NEW_ID_EVERY, browsers_per_address(environ), table("new-ids", store))


def identify(cookie, address: str, signer: Signer, new_ids: Buckets) -> str:
    """The identity of a page: its cookie when `signer` signed it, else a new signed id while
    `address` may start new browsers (`new_ids`; always, for an unknown address: no served request),
    else the address's pool."""
    known = signer.verified(cookie)
    if known is not None:
        return known
    if not address or new_ids.take(signer.hashed(address)):
        return signer.new()
    return signer.pooled(address)
