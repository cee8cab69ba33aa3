"""What the model worker has computed, kept for the next page that asks: a bounded cache of results
by key, shared with the class's other serving processes for the kinds in SHARED, and generations
stepped a round at a time for the pages that ask for their rounds (serving.service.ModelService).

    results = ResultCache(256)
    results.cached(("pair", "outcome", request), compute)   # compute() once per key
    rounds = LiveRounds(24)
    round_trace, last = rounds.round(key, 3, make_decoder)  # the decoder made once, stepped as needed
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from lab import records
from lab.core.trace import RoundTrace

from serving.sharing import shared_value

MISSING = object()      # peek's default where a cached value may be anything
SHARED = ("outcome",)   # cache entries the serving processes share (their second key), when sharing


class ResultCache:
    """Results by key, the `size` most recently used kept. Each key starts with the pair's name and
    then the kind of result; a kind in SHARED is also read from and written to `shared` (get(key) ->
    (version, bytes) | None, put(key, bytes) -> version, drop(prefix)) when it is set."""

    def __init__(self, size: int):
        self._values: OrderedDict = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self.shared = None

    @staticmethod
    def _shared_key(key: tuple) -> str:
        return f"{key[1]}:" + hashlib.sha256(repr(key).encode()).hexdigest()

    def peek(self, key: tuple, default=None):
        """The value of `key` (marked recently used), or `default`."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        if self.shared is not None and key[1] in SHARED:      # another process may have computed it
            row = self.shared.get(self._shared_key(key))
            value = None if row is None else shared_value(row, object)
            if value is not None:
                self._keep(key, value)
                return value
        return default

    def _keep(self, key: tuple, value) -> None:
        with self._lock:
            self._values[key] = value
            while len(self._values) > self._size:
                self._values.popitem(last=False)

    def cached(self, key: tuple, compute):
        """`compute()` once per key (within the bound), shared when its kind is."""
        value = self.peek(key, MISSING)
        if value is not MISSING:
            return value
        value = compute()
        self._keep(key, value)
        if self.shared is not None and key[1] in SHARED:
            self.shared.put(self._shared_key(key), records.dumps(value).encode())
        return value

    def newest(self, match):
        """The most recently kept value whose key satisfies `match(key)`, or None."""
        with self._lock:
            return next((value for key, value in reversed(self._values.items()) if match(key)), None)

    def clear(self, shared: bool = True) -> None:
        """Forget every result; `shared`: the class's shared ones too."""
        with self._lock:
            self._values.clear()
        if shared and self.shared is not None:
            for kind in SHARED:
                self.shared.drop(f"{kind}:")


class _Live:
    """A generation's rounds so far, and the decoder that makes the next (None once finished)."""

    def __init__(self, decoder):
        self.decoder, self.rounds = decoder, []


class LiveRounds:
    """Generations stepped round by round, one decoder per key, the `size` most recently used kept
    (each holds two KV caches: a small bound). Worker only: one thread steps a decoder."""

    def __init__(self, size: int):
        self._live: OrderedDict = OrderedDict()
        self._size = size

    def round(self, key: tuple, index: int, make_decoder) -> tuple[RoundTrace, bool]:
        """Round `index` of the generation `key` (made by `make_decoder()` when new or evicted), and
        whether it was the last one."""
        live = self._live.get(key)
        if live is None:            # new (or evicted: rebuilt, and seeded, it makes the same rounds again)
            live = self._live[key] = _Live(make_decoder())
        self._live.move_to_end(key)
        while len(self._live) > self._size:
            self._live.popitem(last=False)
        while len(live.rounds) <= index:
            if live.decoder is None:
                raise IndexError(f"this generation has only {len(live.rounds)} rounds")
            live.rounds.append(live.decoder.step())
            if live.decoder.done:
                live.decoder = None        # finished: keep its rounds, free its caches
        return live.rounds[index], live.decoder is None and index == len(live.rounds) - 1

    def __iter__(self):
        return iter(list(self._live))   # the keys of the generations kept

    def clear(self) -> None:
        self._live.clear()
