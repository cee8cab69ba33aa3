"""The page door (intercept/doors.py): a refused page request waits REFUSAL_WAIT before its small
page is sent, so a script that waits for each answer asks a few times a second; past
REFUSALS_WAITING refusals waiting at once, the rest are answered at once (each waiting one holds a
connection). A page the gate lets through is built without waiting."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from intercept import doors
from intercept.checks import HOOKS


class Handler:
    """What the wrapped `get` uses of a tornado handler: the request, the status, headers, the page."""

    def __init__(self):
        self.request = SimpleNamespace(remote_ip="127.0.0.9")
        self.status, self.headers, self.page, self.built = None, {}, None, False

    def set_status(self, status):
        self.status = status

    def set_header(self, name, value):
        self.headers[name] = value

    def finish(self, page):
        self.page = page

    async def get(self):
        self.built = True


@pytest.fixture
def door(monkeypatch):
    """The wrapped `get` of a handler class, with a gate that refuses every address but 127.0.0.1."""
    cls = type("Door", (Handler,), {})
    doors._gate_get(cls)
    monkeypatch.setattr(HOOKS, "gate", lambda request: None if request.remote_ip == "127.0.0.1"
                        else doors.Refusal(429, "<p>Too many pages</p>", 7))
    return cls


def test_a_refused_request_waits_then_gets_its_small_page(door):
    handler = door()
    started = time.monotonic()
    asyncio.run(handler.get())
    assert time.monotonic() - started >= doors.REFUSAL_WAIT
    assert handler.status == 429 and handler.headers["Retry-After"] == "7" and "Too many" in handler.page
    assert not handler.built and HOOKS.refusals_waiting == 0


def test_an_admitted_request_is_built_without_waiting(door):
    handler = door()
    handler.request.remote_ip = "127.0.0.1"
    started = time.monotonic()
    asyncio.run(handler.get())
    assert handler.built and handler.status is None and time.monotonic() - started < doors.REFUSAL_WAIT


def test_past_the_refusals_waiting_the_rest_are_answered_at_once(door, monkeypatch):
    monkeypatch.setattr(doors, "REFUSALS_WAITING", 3)

    async def go():
        handlers = [door() for _ in range(5)]
        tasks = [asyncio.create_task(h.get()) for h in handlers]
        await asyncio.sleep(doors.REFUSAL_WAIT / 5)
        answered = [h.page is not None for h in handlers]       # before the wait is over
        waiting = HOOKS.refusals_waiting
        await asyncio.gather(*tasks)
        return answered, waiting, handlers
    answered, waiting, handlers = asyncio.run(go())
    assert waiting == 3 and answered == [False, False, False, True, True]
    assert all(h.status == 429 for h in handlers) and HOOKS.refusals_waiting == 0
