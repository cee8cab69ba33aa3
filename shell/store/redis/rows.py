"""The class's poll, the students' snapshots and the shared values as Redis keys (shell.store.redis.store
opens the connection): the ClassStore operations (shell.store.contract) as single commands or one Lua
script each (shell.store.redis.scripts), a change's event published in the same step.

A voter's answer kept for the student but left out of the histogram (the per-address limit) is the
field `left:` + the voter of the question's `votes:N` hash.
"""
from __future__ import annotations

import json

from shell.store import contract
from shell.store.contract import GONE_AFTER, PollState

LEFT = "left:"
MAX_PAGES = 10_000      # open pages one process may count as here
KEEP_VALUES = 100_000   # shared values other than outcomes (per-address limits, token tries, profiles)


class RedisPoll:
    """The poll's questions, votes, reveals and presence, and the browsers' snapshots, on Redis."""

    # --- questions and votes ---
    def add_question(self, number: int, spec: list) -> bool:
        return self._script("ADD", "HSETNX", "questions", number, json.dumps(spec), self.ttl,
                            self._message("poll", [number, "ask"])) == 1

    def question(self, number: int) -> list | None:
        spec = self._do(self.client.hget, f"{self.prefix}questions", number)
        return json.loads(spec) if spec is not None else None

    def cast_vote(self, number: int, voter: str, answer: int, left: bool = False) -> str:
        return self._script("VOTE", number, voter, answer, "1" if left else "", contract.MAX_VOTERS, self.ttl,
                            self._message("poll", [number, "vote"])).decode()

    def answer(self, number: int, voter: str) -> tuple[int, bool] | None:
        own, left = self._do(self.client.hmget, f"{self.prefix}votes:{number}", [voter, LEFT + voter])
        if own is not None:
            return int(own), False
        return (int(left), True) if left is not None else None

    def poll_state(self, number: int) -> PollState:
        fields, present, revealed = self._script("POLL_STATE", number)
        votes = []
        for key, answer in zip(fields[::2], fields[1::2]):
            key = key.decode()
            votes.append((key[len(LEFT):], int(answer), True) if key.startswith(LEFT) else (key, int(answer), False))
        return PollState(votes, {v.decode() for v in present}, bool(revealed))

    # --- the lecturer's controls ---
    def reveal(self, number: int) -> bool:
        return self._script("ADD", "SADD", "revealed", number, "", self.ttl,
                            self._message("poll", [number, "reveal"])) == 1

    def clear_votes(self, number: int | None) -> None:
        self._script("CLEAR", "" if number is None else number, self._message("poll", [number, "reset"]))

    # --- who is here ---
    def join(self, session: str, voter: str) -> None:
        self._script("JOIN", self.proc, session, voter, MAX_PAGES, int(GONE_AFTER),
                     self._message("poll", [None, "presence"]))

    def leave(self, session: str) -> bool:
        return self._script("LEAVE", self.proc, session, self._message("poll", [None, "presence"])) == 1

    # --- the students' settings across page loads ---
    def save_snapshots(self, snapshots: dict[str, bytes], keep: int) -> None:
        self._script("SNAPSHOTS", keep, self.ttl, *(item for pair in snapshots.items() for item in pair))

    def snapshot_of(self, browser: str) -> bytes | None:
        return self._do(self.client.hget, f"{self.prefix}snapshots", browser)


class RedisValues:
    """The shared values: a `values` hash and its `versions`, the newest kept by count (and bytes)."""

    def _put(self, key: str, value: bytes) -> int:
        return int(self._script("PUT", key, value, contract.KEEP_SHARED, contract.KEEP_SHARED_BYTES, KEEP_VALUES,
                                self.ttl))

    def _get(self, key: str) -> tuple[int, bytes] | None:
        pipe = self.client.pipeline()          # one transaction: the version of this very value
        pipe.hget(f"{self.prefix}versions", key).hget(f"{self.prefix}values", key)
        version, value = self._do(pipe.execute)
        return (int(version), value) if version is not None and value is not None else None

    def _drop(self, prefix: str) -> None:
        self._script("DROP", prefix)
