"""A flood of plain page loads (issue 50): from one address and from many, the server builds a few
pages and answers the rest at once (HTTP 429, no session); a student already on a page is answered.
The server runs with the lab's own per-address limits (not the browser tests' raised ones)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import os
import sys
import urllib.parse

import pytest

from shell.room.gate import SERVER_AT_ONCE
from tests.ui.helpers import LECTURER_TOKEN, ROOT, served

sys.path.insert(0, str(ROOT / "bench"))
from abuse import open_chapter10  # noqa: E402

FLOOD = 120


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    env = {**os.environ, "SPECLAB_PAIR": os.environ.get("SPECLAB_PAIR", "tiny"), "SPECLAB_LECTURER_TOKEN": LECTURER_TOKEN,
           "SPECLAB_BROWSERS_PER_ADDRESS": "4", "SPECLAB_VOTES_PER_ADDRESS": "1"}
    log = tmp_path_factory.mktemp("guarded") / "server.log"
    with served(env, log) as url:
        yield url, log


def status(url: str, source: str) -> tuple[int, str]:
    """GET `url` from the local address `source` (another machine of the class): its status and body."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120, source_address=(source, 0))
    try:
        conn.request("GET", f"{parts.path}?{parts.query}")
        reply = conn.getresponse()
        return reply.status, reply.read().decode(errors="replace")
    finally:
        conn.close()


def flood(url: str, sources: list[str]) -> list[tuple[int, str]]:
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        return list(pool.map(lambda source: status(url + "?chapter=breakeven", source), sources))


def run(coro):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, timeout=300)).result()


async def _still_answered(victim) -> None:
    figures = {m["id"] for m in victim.find("ColumnDataSource")}
    mark = len(victim.events)
    await victim.set_value(victim.slider("α"), 0.41 + 0.01 * (len(victim.events) % 7))
    await victim.wait_for(lambda: any(e.get("kind") == "ColumnDataChanged" and e.get("model", {}).get("id") in figures
                                      for e in victim.events[mark:]), 120, "the victim's figure")


def test_a_page_load_flood_is_refused_cheaply_and_the_victim_is_served(guarded):
    url, log = guarded

    async def go():
        victim = await open_chapter10(url)                    # a student on chapter 10, from 127.0.0.1
        loop = asyncio.get_running_loop()
        try:
            one = await loop.run_in_executor(None, flood, url, ["127.0.0.2"] * FLOOD)
            await _still_answered(victim)
            many = await loop.run_in_executor(None, flood, url, [f"127.0.{3 + i // 200}.{i % 200 + 1}"
                                                                  for i in range(2 * SERVER_AT_ONCE + 40)])
            await _still_answered(victim)
            return one, many
        finally:
            await victim.close()
    one, many = run(go())
    sources = [f"127.0.{3 + i // 200}.{i % 200 + 1}" for i in range(2 * SERVER_AT_ONCE + 40)]
    codes = [code for code, _ in one]
    assert set(codes) <= {200, 429} and codes.count(200) <= 8, codes    # an address: a few pages at once
    refused = next(body for code, body in one if code == 429)
    assert "Too many pages from this address" in refused and len(refused) < 2000   # a small page, no session
    codes = [code for code, _ in many]
    assert set(codes) <= {200, 429} and codes.count(200) <= SERVER_AT_ONCE, codes.count(200)
    assert codes.count(429) >= len(codes) - SERVER_AT_ONCE
    text = log.read_text()
    assert "Traceback" not in text
    assert "429 GET" not in text                                     # not a line per refused page …
    assert text.count("asked for pages faster than the server builds them") <= 1 + len(set(sources))   # … one a client


def test_a_websocket_naming_no_session_passes_the_same_gate(guarded):
    """Bokeh makes a session for a websocket whose (unsigned) token names none, and for the page's
    autoload.js: from an address already past its pages, the connection is closed at once (1013)
    and the script refused (429); nothing is built."""
    import websockets
    from bokeh.util.token import generate_jwt_token, generate_session_id
    url, _log = guarded
    flooder = "127.0.0.30"
    flood(url, [flooder] * 20)                                    # its pages: all being built, none connected

    async def forged():
        origin = url.split("/app")[0]
        token = generate_jwt_token(generate_session_id(), extra_payload={"headers": {}, "cookies": {}})
        ws = await websockets.connect(origin.replace("http", "ws", 1) + "/app/ws", subprotocols=["bokeh", token],
                                      origin=origin, local_addr=(flooder, 0), open_timeout=60)
        with __import__("contextlib").suppress(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 60)
        await asyncio.wait_for(ws.wait_closed(), 60)
        return ws.close_code
    assert run(forged()) == 1013
    code, _ = status(url + "/autoload.js?bokeh-autoload-element=x&bokeh-absolute-url=" + url, flooder)
    assert code == 429                                            # the page's autoload.js form: the same gate
