"""The page gate: a page request counted against its sender before any session is built for it.

Each `GET /app` makes a whole session (the app script, the page's frame, a place in the line), so a
script reloading the page could take the event loop every student shares. The gate (the server's
class state hands it to intercept.install, which the doors ask) answers a request at once, without a session:

- when its client address, or its browser (its signed `speclab_id` cookie), already has pages being
  built: sent, their browser not yet connected (at most PAGES_AT_ONCE per browser, a few browsers'
  worth per address, SERVER_AT_ONCE on the whole process; a page whose browser never connects stops
  counting after PENDING_FOR seconds);
- when the address or the browser has opened more pages this minute than PAGES_PER_MINUTE allows
  (a burst of that many, then as many a minute);

with a small "Too many pages from this address" page (HTTP 429, Retry-After, and a reload after
that many seconds, so a student's browser comes back by itself). A page with `?lecturer=` and a
wrong token is answered the same cheap way (a small page with shell.room.attempts.judge's sentence); the right
token is always let through. Addresses are tornado's (`--use-xheaders`: the proxy's X-Forwarded-For
/ X-Real-IP, else the connection's). The small page speaks the language the page asked would have
(`request_language`: `?lang`, the browser's last choice, its Accept-Language; there is no page, nor
its document, yet).

    gate = PageGate(per_address, signer, attempts)   # one per server (shell.frame.classstate)
    gate(request)                                    # None: build the page; else a Refusal
    gate.arrived(address, cookie)                    # the page's browser connected
"""
from __future__ import annotations

import functools
import html
import time
from collections import defaultdict, deque

from lab import i18n
from shell.room.attempts import judge
from shell.room.identity import Buckets, MemoryTable
from intercept.doors import Refusal

PAGES_AT_ONCE = 4          # pages of one browser being built at once (sent, their browser not connected yet)
PAGES_PER_MINUTE = 30      # pages one browser may open a minute, after a burst of as many
SERVER_AT_ONCE = 64        # pages being built at once on this process, from every address together
PENDING_FOR = 40.0         # seconds a sent page counts as being built when its browser never connects
SERVER_RETRY = 3           # seconds before a page refused for the whole server's sake reloads
KEYS_KEPT = 4096           # addresses and browsers with pages being built, at most (the oldest forgotten)


LANGUAGE_COOKIE = "speclab_lang"     # the browser's last choice (shell.frame.language.COOKIE)


def request_language(request) -> str:
    """The language of the page `request` asks for, as shell.frame.language.choose would pick it before
    a session exists: its `?lang`, else the browser's last choice (cookie), else Accept-Language, else
    English."""
    asked = (getattr(request, "arguments", None) or {}).get("lang") or [b""]
    try:
        cookie = request.cookies.get(LANGUAGE_COOKIE)
    except Exception:        # a malformed Cookie header, or no request at all
        cookie = None
    headers = getattr(request, "headers", None) or {}
    for language in (i18n.known(asked[0].decode("utf-8", "replace") if isinstance(asked[0], bytes) else asked[0]),
                     i18n.known(cookie.value if cookie is not None else None),
                     i18n.negotiate(headers.get("Accept-Language"))):
        if language is not None:
            return language
    return i18n.DEFAULT


def _html_lang(language: str) -> str:
    return {"zh": "zh-Hans", i18n.PSEUDO: "en"}.get(language, language.replace("_", "-"))


def too_many_page(retry: int, whose: str = "address", language: str = i18n.DEFAULT) -> str:
    """The small page a refused request gets: one sentence (in `language`), and a reload after `retry`
    seconds. `whose`: "address" (too many from this address) or "server" (too many opening on it)."""
    _ = functools.partial(i18n.translate, language)
    ngettext = functools.partial(i18n.translate_plural, language)
    if whose == "server":
        said = ngettext("Too many pages opening on this server at once; this page reloads by itself in {n} s.",
                        "Too many pages opening on this server at once; this page reloads by itself in {n} s.", retry)
    else:
        said = ngettext("Too many pages from this address at once; this page reloads by itself in {n} s.",
                        "Too many pages from this address at once; this page reloads by itself in {n} s.", retry)
    title = html.escape(_("Speculative Lab · wait a moment"))
    said = html.escape(said.format(n=i18n.number(language, retry)))
    return (f'<!doctype html><html lang="{_html_lang(language)}"><head><meta charset="utf-8"><meta '
            f'http-equiv="refresh" content="{retry}"><title>{title}</title></head><body style="font: '
            f'1.25rem system-ui, sans-serif; margin: 3rem; max-width: 42rem"><p role="alert">{said}</p></body></html>')


def refused_token_page(sentence: str, language: str = i18n.DEFAULT) -> str:
    """The small page a wrong lecturer token gets: `sentence` (shell.room.attempts.judge's, in `language`)."""
    return (f'<!doctype html><html lang="{_html_lang(language)}"><head><meta charset="utf-8"><title>Speculative Lab'
            f'</title></head><body style="font: 1.25rem system-ui, sans-serif; margin: 3rem; max-width: 42rem">'
            f'<p role="alert">{html.escape(sentence)}</p></body></html>')


class PageGate:
    """Pages being built and opened per client address and per browser, on this process.
    `per_address`: browsers one address stands for (shell.room.identity.browsers_per_address);
    `signer`: the class's (a cookie counts as a browser only when it signed it); `attempts`: the
    class's wrong lecturer tokens; `token`: the lecturer token, read when asked (None: no controls)."""

    def __init__(self, per_address: int, signer, attempts=None, token=None, clock=time.monotonic):
        self.signer, self.attempts, self.token, self.clock = signer, attempts, token, clock
        share = max(2, per_address // 2)            # an address stands for this many browsers (shell.room.browsers)
        self.at_once = {"browser": PAGES_AT_ONCE, "address": PAGES_AT_ONCE * share}
        self.pending: defaultdict[str, deque] = defaultdict(deque)   # key → when its pages stop counting
        self.browser_pages = Buckets(PAGES_PER_MINUTE / 60, PAGES_PER_MINUTE, MemoryTable(), clock=clock)
        self.address_pages = Buckets(PAGES_PER_MINUTE * share / 60, PAGES_PER_MINUTE * share, MemoryTable(),
                                     clock=clock)
        self.refused = 0                             # requests answered without a session
        self.built = 0                               # requests let through to be built

    def keys(self, address: str, cookie) -> list[tuple[str, str]]:
        browser = self.signer.verified(cookie) if cookie else None
        return [(kind, key) for kind, key in (("address", address and "address " + address),
                                              ("browser", browser and "browser " + browser)) if key]

    def _count(self, key: str, now: float) -> int:
        waiting = self.pending.get(key)
        while waiting and waiting[0] <= now:
            waiting.popleft()
        if waiting is not None and not waiting:
            del self.pending[key]
            return 0
        return len(waiting or ())

    def __call__(self, request) -> Refusal | None:
        address = str(getattr(request, "remote_ip", "") or "")
        cookie = _cookie(request)
        given = (getattr(request, "arguments", None) or {}).get("lecturer")
        expected = self.token() if self.token is not None else None
        if given and expected and self.attempts is not None:
            token = given[0].decode("utf-8", "replace")
            language = request_language(request)
            refused = judge(self.attempts, token, expected, self._token_keys(address, cookie), address, language)
            if refused is None:
                return self._let_in(address, cookie)          # the lecturer: never held by page limits
            self.refused += 1
            return Refusal(200, refused_token_page(refused, language))   # a page that says it (a 4xx: a console error)
        now = self.clock()
        keys = self.keys(address, cookie)
        busy = [max(1.0, self.pending[key][0] - now) for kind, key in keys
                if self._count(key, now) >= self.at_once[kind]]
        if not busy and self._count("server", now) >= SERVER_AT_ONCE:
            self.refused += 1
            return Refusal(429, too_many_page(SERVER_RETRY, "server", request_language(request)), SERVER_RETRY)
        if not busy:
            pages = {"address": self.address_pages, "browser": self.browser_pages}
            waits = [pages[kind].wait(key) for kind, key in keys]
            if any(waits):
                busy.append(max(waits))
            else:
                for kind, key in keys:
                    pages[kind].take(key)
        if busy:
            self.refused += 1
            retry = max(1, min(60, round(max(busy))))
            return Refusal(429, too_many_page(retry, language=request_language(request)), retry)
        return self._let_in(address, cookie)

    def _token_keys(self, address: str, cookie) -> tuple:
        browser = self.signer.verified(cookie) if cookie else None
        return (browser or "", f"address {self.signer.hashed(address)}" if address else "")

    def _let_in(self, address: str, cookie) -> None:
        until = self.clock() + PENDING_FOR
        if len(self.pending) > KEYS_KEPT:         # addresses seen once long ago: their pages have stopped counting
            for key in [k for k in self.pending if k != "server"][:len(self.pending) - KEYS_KEPT]:
                del self.pending[key]
        for _kind, key in self.keys(address, cookie) + [("server", "server")]:
            self.pending[key].append(until)
        self.built += 1
        return None

    def arrived(self, address: str, cookie) -> None:
        """A page's browser connected: one of its address's and browser's pages is built."""
        for _kind, key in self.keys(address, cookie) + [("server", "server")]:
            waiting = self.pending.get(key)
            if waiting:
                waiting.popleft()
                if not waiting:
                    del self.pending[key]


def _cookie(request) -> str:
    try:
        morsel = request.cookies.get("speclab_id")
    except Exception:        # a malformed Cookie header: no browser
        return ""
    return morsel.value if morsel is not None else ""
