"""What the class's serving processes share through the class store (shell.store.contract): JSON records
(lab.records), never code, and among them each pair's cost profile, adopted by every process from the
first that measured it so the whole class prices with one.

    exchange = ProfileExchange()
    exchange.sync(service, store)       # now and then: adopt a newer profile, publish our own

A service's exchange is its profiles' (serving.serviceprofiles: `service.profiles.sync(store)`).
"""
from __future__ import annotations

import logging

from lab import records
from lab.pairs.variants import VARIANTS
from lab.speed.costs import CostProfile

log = logging.getLogger(__name__)


def shared_value(row: tuple[int, bytes], kind: type):
    """The `kind` another process shared in `row` (version, JSON record), or None (logged) when the
    row holds anything else: the store's rows are data, never code (lab.records)."""
    try:
        value = records.loads(row[1])
    except ValueError as exc:
        log.warning("A shared value in the class store was not a lab record and was ignored (%s).", exc)
        return None
    if not isinstance(value, kind):
        log.warning("A shared value in the class store was a %s, not a %s, and was ignored.",
                    type(value).__name__, kind.__name__)
        return None
    return value


class ProfileExchange:
    """The cost profiles of one process's pairs, as last seen in or put into the class store."""

    def __init__(self):
        self._seen: dict[str, tuple[int, object]] = {}   # store key -> (version seen, profile)

    def sync(self, service, values) -> None:
        """Adopt a profile another process published in `values` since the last look (into
        `service.profiles`); publish one measured here that nobody has (or measured again here)."""
        pair = service.pair
        for variant in VARIANTS:
            loaded = service.variants.loaded(pair, variant)
            if loaded is None:
                continue
            key = f"profile:{pair.name}:{variant}"
            seen_version, seen = self._seen.get(key, (0, None))
            row = values.get(key)
            if row is not None and row[0] != seen_version:
                theirs = shared_value(row, CostProfile)
                if theirs is not None:
                    service.profiles.adopt(loaded, theirs)
                self._seen[key] = (row[0], seen if theirs is None else theirs)
                continue
            mine = service.profiles.already_measured(variant)
            if mine is not None and mine is not seen:
                self._seen[key] = (values.put(key, records.dumps(mine).encode()), mine)
