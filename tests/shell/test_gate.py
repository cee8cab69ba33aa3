"""The page gate (shell.room.gate): a page request counted against its address and browser before any
session is built; refused cheaply past the limits; freed when the page's browser connects."""
from __future__ import annotations

from http.cookies import SimpleCookie
from types import SimpleNamespace

from shell.room import gate as gate_module
from shell.room.gate import PENDING_FOR, SERVER_AT_ONCE, PageGate
from shell.room.identity import Signer


def request(address: str, cookie: str = "", **arguments):
    jar = SimpleCookie()
    if cookie:
        jar["speclab_id"] = cookie
    return SimpleNamespace(remote_ip=address, cookies=jar,
                           arguments={k: [v.encode()] for k, v in arguments.items()})


def a_gate(per_address: int = 4):
    now = [0.0]
    return PageGate(per_address, Signer(b"k" * 32), clock=lambda: now[0]), now


def test_a_flood_from_one_address_builds_a_few_pages_and_is_told_to_wait():
    gate, now = a_gate()
    answers = [gate(request("10.0.0.9")) for _ in range(400)]        # pages that never connect
    built = sum(a is None for a in answers)
    assert built == gate.at_once["address"] == gate.built
    refused = [a for a in answers if a is not None]
    assert all(r.status == 429 and 1 <= r.retry <= PENDING_FOR for r in refused)
    assert "Too many pages from this address" in refused[0].page and f'content="{refused[0].retry}"' in refused[0].page
    assert gate(request("10.0.0.10")) is None                         # another student is not held up
    now[0] += PENDING_FOR + 1                                        # pages whose browser never came stop counting
    assert gate(request("10.0.0.9")) is None


def test_pages_whose_browser_connects_free_their_place_up_to_the_minutes_allowance():
    gate, now = a_gate()
    built = 0
    for _ in range(400):                                             # each page connects at once
        if gate(request("10.0.0.9")) is None:
            built += 1
            gate.arrived("10.0.0.9", "")
    per_minute = gate.address_pages.burst
    assert built == per_minute                                       # a minute's burst, then refused
    now[0] += 60
    more = sum(gate(request("10.0.0.9")) is None for _ in range(400))
    assert 0 < more <= per_minute


def test_a_flood_from_many_addresses_is_bounded_for_the_whole_server():
    gate, now = a_gate()
    answers = [gate(request(f"127.0.{i // 250}.{i % 250 + 1}")) for i in range(1000)]
    assert sum(a is None for a in answers) == SERVER_AT_ONCE
    refused = [a for a in answers if a is not None]
    assert all(r.status == 429 and r.retry == gate_module.SERVER_RETRY for r in refused)
    assert "opening on this server" in refused[0].page
    gate.arrived("127.0.0.1", "")                                    # a student's page connected
    assert gate(request("127.0.9.9")) is None


def test_a_browser_is_counted_by_its_signed_cookie_across_addresses():
    gate, _ = a_gate(per_address=1000)                               # addresses allowed plenty (a proxy)
    bid = gate.signer.new()
    built = sum(gate(request(f"10.1.0.{i}", bid)) is None for i in range(50))
    assert built == gate.at_once["browser"]
    forged = "0" * 32 + "." + "0" * 24                               # not signed here: no browser, just its address
    assert gate(request("10.1.1.1", forged)) is None


def test_the_gate_keys_on_tornados_address_only():
    """X-Forwarded-For is tornado's to read (with --use-xheaders it becomes remote_ip): a header the
    client sets itself does not make a flood look like many addresses."""
    gate, _ = a_gate()
    answers = [gate(SimpleNamespace(remote_ip="10.0.0.9", cookies=SimpleCookie(), arguments={},
                                    headers={"X-Forwarded-For": f"10.9.0.{i}"})) for i in range(100)]
    assert sum(a is None for a in answers) == gate.at_once["address"]
