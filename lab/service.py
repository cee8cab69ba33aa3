"""All model work of the server process goes through one `ModelService`.

Torch on a 2-core laptop gains nothing from two forward passes at once, so one worker thread runs
model work, off the web server's event loop, in arrival order; identical requests (same pair, prompt,
settings, seed) are computed once and served from a bounded cache.

    service = ModelService(get_pair)
    trace = await service.run(generate_cached, ...)      # from a Panel async callback
"""
from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor

from lab import compare, engine, timing
from lab.sampling import SamplingSettings


class ModelService:
    def __init__(self, pair_provider, cache_size: int = 256):
        self._pair_provider = pair_provider
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="model")
        self._cache: OrderedDict = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @property
    def pair(self):
        return self._pair_provider()

    def submit(self, fn, *args, **kwargs) -> Future:
        """Queue `fn(*args, **kwargs)` on the model worker."""
        return self._executor.submit(fn, *args, **kwargs)

    async def run(self, fn, *args, **kwargs):
        """Await `fn(*args, **kwargs)` on the model worker without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def cached(self, key: tuple, compute):
        """`compute()` once per key (within the bounded cache); call from the worker."""
        key = (self.pair.name,) + key
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    # The requests pages make, each cached by its full description.
    def generation(self, prompt_ids: list[int], *, mode="speculative", settings=SamplingSettings(),
                   gamma=4, seed=0, max_new_tokens=20, writer="target", keep_rows=False):
        key = ("generation", tuple(prompt_ids), mode, settings, gamma, seed, max_new_tokens, writer, keep_rows)
        return self.cached(key, lambda: engine.generate(
            self.pair, list(prompt_ids), mode=mode, settings=settings, gamma=gamma, seed=seed,
            max_new_tokens=max_new_tokens, writer=writer, keep_rows=keep_rows))

    def first_guesses(self, prompt_ids: list[int], target_ids: list[int]):
        key = ("first_guesses", tuple(prompt_ids), tuple(target_ids))
        return self.cached(key, lambda: compare.first_guesses(self.pair, list(prompt_ids), list(target_ids)))

    def next_token_distributions(self, prompt_ids: list[int], settings=compare.RAW):
        key = ("next_token", tuple(prompt_ids), settings)
        return self.cached(key, lambda: compare.next_token_distributions(self.pair, list(prompt_ids), settings))

    def verify_costs(self, prompt_ids: list[int], max_positions: int = 8):
        # Timing is live by design: never cached, so students see this machine now.
        return timing.verify_costs(self.pair, list(prompt_ids), max_positions)
