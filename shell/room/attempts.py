"""Wrong lecturer tokens: counted per browser, per client address and on the whole server, and
the one sentence a page gets for each (shell.lecturer.controls asks `judge`; the page gate, shell.room.gate, asks
it before a page with `?lecturer=` is built, so a wrong token costs no more than a refused page).

The token is compared first, in constant time, so the lecturer's right token works whatever others
guessed: the server-wide limit slows wrong guesses only. A browser or address that guessed wrong
several times waits before its own next try is checked (its own tries only: the lecturer elsewhere
is never held up), and every sentence names what is limited.

    refused = judge(attempts, given, expected, (bid, "address …"), address)   # None: the lecturer
    judge(…, language="es")      # the sentence in Spanish (default: the page's language, uikit.language)
"""
from __future__ import annotations

import functools
import hmac
import html
import logging
import time

from lab import i18n
from shell.room.identity import Buckets, table
from uikit.language import ngettext, number, page_language

log = logging.getLogger(__name__)


def token_ok(given, expected: str | None) -> bool:
    return bool(expected) and isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


GUESSES_PER_HOUR = 60      # wrong lecturer tokens the whole server checks an hour, after …
GUESS_BURST = 20           # … this many at once
RECENT_KEPT = 500          # wrong tries remembered for the lecturer's line


class Attempts:
    """Wrong lecturer tokens per browser and per client address, and on the whole server.

    Per browser and per address, the first `free` wrong tries cost nothing (a typo); after the n-th,
    the next try from that browser or address is not checked for `base · 2^(n-free-1)` seconds (at
    most `cap`). The server as a whole (every process of the class: the records are in the class
    store when there is one) checks at most `server_burst` wrong tokens at once and then `per_hour`
    an hour, so guesses from many addresses stay hopeless too. A right token clears its browser's
    and address's counts. `guessing()` is what the lecturer's view says about it.

        attempts = Attempts(store=class_store)      # one per server (shell.frame.classstate)
        wait = attempts.wait(bid, "address …")     # seconds before this page may try (0: now)
        attempts.failed(bid, "address …")          # after a wrong token
    """

    def __init__(self, base: float = 1.0, cap: float = 300.0, free: int = 2, clock=time.time,
                 per_hour: float = GUESSES_PER_HOUR, server_burst: int = GUESS_BURST, store=None):
        """`store`: the class store (shell.store.shared.ClassStore) where the records are kept, None: in
        this process."""
        self.base, self.cap, self.free, self.clock = base, cap, free, clock
        self._rows = table("guesses", store)
        self.server = Buckets(per_hour / 3600, server_burst, table("guess-server", store), clock=clock)

    def _wait_of(self, key: str, now: float) -> float:
        row = self._rows.get(key) or {}
        return max(0.0, float(row.get("until", 0.0)) - now)

    def wait(self, *keys: str) -> float:
        """Seconds before a wrong token of a page of these keys (browser, address) is counted (0: now)."""
        now = self.clock()
        return max([self._wait_of(k, now) for k in keys if k] + [self.server.wait("server")])

    def wait_of(self, key: str) -> float:
        """Seconds before a page of `key` (its browser, or its address) may try a token again."""
        return self._wait_of(key, self.clock())

    def server_wait(self) -> float:
        return self.server.wait("server")

    def failed(self, *keys: str) -> None:
        now = self.clock()
        for key in filter(None, keys):
            n = int((self._rows.get(key) or {}).get("n", 0)) + 1
            wait = 0.0 if n <= self.free else min(self.cap, self.base * 2 ** (n - self.free - 1))
            self._rows.put(key, {"n": n, "until": now + wait})
        self.server.take("server")
        recent = self._recent(now)
        recent.append([now, keys[-1] if len(keys) > 1 else ""])
        self._rows.put("recent", {"tries": recent[-RECENT_KEPT:]})

    def succeeded(self, *keys: str) -> None:
        for key in filter(None, keys):
            self._rows.put(key, {"n": 0, "until": 0.0})

    def _recent(self, now: float) -> list:
        tries = (self._rows.get("recent") or {}).get("tries", [])
        return [t for t in tries if isinstance(t, list) and len(t) == 2 and now - float(t[0]) < 3600]

    def guessing(self) -> tuple[int, int]:
        """(wrong tokens tried on this server in the last hour, from how many client addresses)."""
        recent = self._recent(self.clock())
        return len(recent), len({where for _, where in recent})


def guessing_line(attempts: Attempts) -> str:
    """The lecturer's one line when someone is guessing the token ('' when nobody is)."""
    tries, addresses = attempts.guessing()
    if not tries:
        return ""
    wheres = ngettext("from {n} address", "from {n} addresses", addresses).format(n=number(addresses))
    said = ngettext("Someone is guessing the lecturer token: {n} wrong try in the last hour {wheres}; each one "
                    "waits longer before the next.",
                    "Someone is guessing the lecturer token: {n} wrong tries in the last hour {wheres}; each one "
                    "waits longer before the next.", tries).format(n=number(tries), wheres=wheres)
    return f'<p class="guessing" role="status">{html.escape(said)}</p>'


def judge(attempts: Attempts, given, expected: str | None, keys: tuple, address: str = "",
          language: str | None = None) -> str | None:
    """None when `given` is the lecturer token `expected`; else the sentence the page shows (in
    `language`, default the page's), the wrong try counted (`keys`: the page's browser and hashed
    address; `address` for the log)."""
    language = language or page_language()
    _ = functools.partial(i18n.translate, language)                  # this sentence's language
    ngettext = functools.partial(i18n.translate_plural, language)    # noqa: F811
    browser, where = keys[0], (keys[1] if len(keys) > 1 else "")
    own = {key: attempts.wait_of(key) for key in (browser, where) if key}
    if token_ok(given, expected) and not any(own.values()):
        attempts.succeeded(*keys)
        return None
    if any(own.values()):     # this browser's or address's own wrong tries: not checked before its wait
        key = max(own, key=own.get)
        seconds = int(own[key]) + 1
        if key == browser:
            said = ngettext("Too many wrong lecturer tokens from this browser; wait {n} second, then reload the "
                            "page with the right link.", "Too many wrong lecturer tokens from this browser; wait "
                            "{n} seconds, then reload the page with the right link.", seconds)
        else:
            said = ngettext("Too many wrong lecturer tokens from this address; wait {n} second, then reload the "
                            "page with the right link.", "Too many wrong lecturer tokens from this address; wait "
                            "{n} seconds, then reload the page with the right link.", seconds)
        return said.format(n=i18n.number(language, seconds))
    server = attempts.server_wait()
    if server > 0:            # the whole server's share of wrong tokens is spent: this one is not counted
        seconds = int(server) + 1
        return ngettext("Too many wrong lecturer tokens on this server in the last hour, from many addresses; "
                        "this one is wrong too, and no more are counted for {n} second. The lecturer's own link "
                        "still works.",
                        "Too many wrong lecturer tokens on this server in the last hour, from many addresses; "
                        "this one is wrong too, and no more are counted for {n} seconds. The lecturer's own link "
                        "still works.", seconds).format(n=i18n.number(language, seconds))
    attempts.failed(*keys)
    tries, addresses = attempts.guessing()
    log.warning("a wrong lecturer token was tried from %s (%d wrong in the last hour, from %d %s)",
                address or "an unknown address", tries, addresses, "address" if addresses == 1 else "addresses")
    return _("That lecturer token is not right; ask the lecturer for the link they started the server with.")
