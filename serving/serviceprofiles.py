"""The cost profiles one model service prices with: each draft variant's pair measured once, on the
service's model worker, and shared by every page of the server; with several server processes, the
first profile any of them measures is adopted by all (serving.sharing), so the class prices with one.

    profiles = service.profiles             # one per ModelService: one per server
    profiles.of("weak")                     # on the worker: measured on the first call, then shared
    yield from profiles.of_steps()          # the same, a timed call at a time (the warm-up's form)
    profiles.already_measured("aligned")    # the profile, or None: measures and loads nothing
    profiles.measured(pair)                 # what the decoder is handed for the auto policy, or None

The profiles belong to the service, and so to the class state that holds it (shell.frame.classstate):
a fresh service measures afresh, and nothing about them lives in a module.
"""
from __future__ import annotations

from lab.speed import costs
from lab.speed.profilecache import ProfileCache
from serving.sharing import ProfileExchange


class ServiceProfiles:
    """The cost profile of each pair `service` serves (lab.speed.profilecache.ProfileCache, measuring with
    lab.speed.costs), and their exchange with the class's other serving processes."""

    def __init__(self, service):
        self._service = service
        # The measurers are looked up when called, so a test that replaces lab.speed.costs' is obeyed.
        self._cache = ProfileCache(lambda pair: costs.measure_profile(pair),
                                   lambda pair: costs.measure_profile_steps(pair))
        self._exchange = ProfileExchange()

    def of(self, variant: str = "aligned", *, retry_busy: bool = False) -> costs.CostProfile:
        """The profile of the pair a student's draft variant makes (ModelService.pair_for: "aligned",
        "weak" and "random" share the target, each its own draft model and so its own c): measured on
        the first call, shared with every later one. On the model worker. `retry_busy`: measured
        again when the shared one was flagged busy long enough ago (lab.speed.profilecache.RETRY_AFTER)."""
        return self._cache.profile(self._service.pair_for(variant), retry_busy=retry_busy)

    def of_steps(self, variant: str = "aligned", *, retry_busy: bool = False):
        """`of` a timed call at a time: a generator the model worker steps, serving a student between
        two calls (the start-up warm-up's and the re-timer's form); returns the profile."""
        return (yield from self._cache.profile_steps(self._service.pair_for(variant), retry_busy=retry_busy))

    def already_measured(self, variant: str = "aligned"):
        """The profile `of(variant)` would return, if it is measured already; else None. Measures and
        loads nothing, so a page may call it on the event loop."""
        pair = self._service.variants.loaded(self._service.pair, variant)
        return None if pair is None else self._cache.finished(pair)

    def measured(self, pair):
        """The profile of `pair`'s two models if measured here (for this pair object or another with
        the same target and draft), else None; never waits: what the decoder prices the auto policy with."""
        return self._cache.measured(pair)

    def adopt(self, pair, profile) -> None:
        """`profile` (this pair's, as another serving process measured it) is the one every later
        caller gets for `pair`, as if measured here."""
        self._cache.adopt(pair, profile)

    def sync(self, values) -> None:
        """Adopt a profile another process published in `values` (the class store's shared values)
        since the last look; publish one measured here that nobody has (or measured again here)."""
        self._exchange.sync(self._service, values)
