"""Faults and abuse against a served lab, on loopback, through Bokeh's websocket protocol (the
clients of bench/abuse.py): crafted widget values get a sentence and no traceback; one browser's
tabs share one queue; the server's log stays quiet."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
import uuid

import pytest

from tests.ui.helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from abuse import open_chapter10  # noqa: E402
from wsclient import PageSession  # noqa: E402

STILL_WORKING = "Still working on your earlier requests"
TOO_FAST = "faster than the models can answer"


def run(coro):
    """Run a websocket client to the end on a thread of its own (Playwright's sync API may hold
    this thread's event loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coro, timeout=240)).result()


async def _answered(tab, mark: int) -> None:
    await tab.wait_for(lambda: len(tab.events) > mark, 60, "an answer")


@pytest.mark.parametrize("value, says", [
    (-10**12, "is out of range, so it is set to 1"),
    (10**30, "is out of range, so it is set to 12"),
    ({"type": "number", "value": "nan"}, "takes a finite number"),
    (2.5, "takes a whole number"),
])
def test_a_crafted_value_gets_one_sentence_and_the_widget_keeps_a_valid_value(server, value, says):
    async def go():
        tab = await open_chapter10(server, uuid.uuid4().hex)
        try:
            gamma = tab.slider("γ")
            mark = len(tab.events)
            await tab.set_value(gamma, value)
            await tab.wait_for(lambda: any(says in t for t in tab.text_of_alerts()), 60, "the sentence")
            # the browser is sent a valid value back (the slider's own model)
            await tab.wait_for(lambda: [e["new"] for e in tab.events[mark:] if e.get("attr") == "value"
                                        and e.get("model", {}).get("id") == gamma["id"]], 60, "the value")
            sent = [e["new"] for e in tab.events[mark:] if e.get("attr") == "value"
                    and e.get("model", {}).get("id") == gamma["id"]]
            assert all(isinstance(v, int) and 1 <= v <= 12 for v in sent), sent
        finally:
            await tab.close()
    run(go())


def test_text_for_a_number_is_refused_without_a_traceback(server, tmp_path_factory):
    async def go():
        tab = await open_chapter10(server, uuid.uuid4().hex)
        try:
            await tab.set_value(tab.slider("γ"), "seven")
            await tab.wait_for(lambda: tab.errors, 60, "Bokeh's refusal")      # an ERROR reply, not applied
            said = " ".join(tab.errors)
            assert "'traceback': None" in said and ".py" not in said and "/" not in said   # no server internals
            await tab.wait_for(lambda: any("cannot take, so it was ignored" in t for t in tab.text_of_alerts()),
                               60, "the page's sentence")
            alpha = tab.slider("α")                                             # the page still answers
            mark = len(tab.events)
            await tab.set_value(alpha, 0.5)
            await _answered(tab, mark)
        finally:
            await tab.close()
    run(go())
    log = (tmp_path_factory.getbasetemp() / "server0" / "server.log").read_text()
    assert "a browser sent a value a widget cannot take" in log
    assert "Traceback" not in log.split("a browser sent a value")[-1].split("\n2")[0]


def test_one_browsers_tabs_share_one_queue_another_browser_is_not_refused(server):
    """Eight tabs of one browser press "Use my models" at once, each on its own request (its own
    choice of who guesses and of draft model), and so does another student (on the defaults): the
    many tabs share one pending limit (some are told to wait), the other student is not refused and
    gets a measurement."""
    async def go():
        choices = [(who, draft) for who in range(3) for draft in range(3) if (who, draft) != (0, 0)]
        first = await open_chapter10(server)
        hog = first.browser_id()               # the id the server signed: its other tabs send it, as a browser does
        tabs = [first] + [await open_chapter10(server, hog) for _ in choices[1:]]
        victim = await open_chapter10(server, uuid.uuid4().hex)
        try:
            for (who, draft), tab in zip(choices, tabs):
                guesser, switch = (next(m for m in tab.find("RadioButtonGroup") if word in str(m["attributes"]))
                                   for word in ("copy from the text", "random"))
                for group, active in ((guesser, who), (switch, draft)):
                    if active:
                        mark = len(tab.events)
                        await tab.patch([{"kind": "ModelChanged", "model": {"id": group["id"]}, "attr": "active",
                                          "new": active}])
                        await _answered(tab, mark)
            finished = []

            async def press(tab, name):
                button = tab.find("Button", label="Use my models")[0]["id"]
                mark = len(tab.events)
                await tab.patch([{"kind": "MessageSent", "msg_type": "bokeh_event",
                                  "msg_data": {"type": "event", "name": "button_click",
                                               "values": {"type": "map", "entries": [["model", {"id": button}]]}}}])
                await tab.wait_for(lambda: any("priced-speedup" in str(e.get("new", "")) for e in tab.events[mark:])
                                   or any(s in t for t in tab.text_of_alerts() for s in (STILL_WORKING, TOO_FAST)),
                                   180, "a measurement or a sentence")
                finished.append(name)
            await asyncio.gather(*[press(t, f"tab{i}") for i, t in enumerate(tabs)], press(victim, "victim"))
            told = [f"tab{i}" for i, t in enumerate(tabs) if any(STILL_WORKING in s for s in t.text_of_alerts())]
            measured = [name for name in finished if name not in told and name != "victim"]
            assert told, "no tab of the one browser was told to wait: the limit is not per browser"
            assert not victim.text_of_alerts(), victim.text_of_alerts()          # the other browser: served
            assert len(measured) >= 2, measured
            # the victim's answer is a measurement (the order of turns is tests/serving/test_service.py's:
            # here the server's event loop decides when each click reaches the queue)
            assert any("priced-speedup" in str(e.get("new", "")) for e in victim.events), finished
        finally:
            for t in tabs + [victim]:
                await t.close()
    run(go())


def test_the_log_is_quiet(server, tmp_path_factory):
    async def go():
        tab = await open_chapter10(server, uuid.uuid4().hex)
        await tab.close()
    run(go())
    log = (tmp_path_factory.getbasetemp() / "server0" / "server.log").read_text()
    assert "WebSocket connection opened" not in log and "ServerConnection created" not in log
    assert "pair loaded:" in log


def test_a_tab_closed_during_chapter_1s_write_leaves_no_traceback(browser, server, tmp_path_factory):
    """A student closes the tab while both models are still writing: the race's remaining calls and
    its drawing find no page, and the server says nothing about it."""
    from tests.helpers import wait_until
    from tests.ui.helpers import BENIGN, VIEWPORT, act, open_page
    log = tmp_path_factory.getbasetemp() / "server0" / "server.log"
    before = log.read_text().count("Traceback (most recent call last):")
    for delay_ms in (0, 300, 1500):              # at the click, early in the race, late in it
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_page(page, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
        act(page, "write").click()
        page.wait_for_timeout(delay_ms)          # the moment of closing is the point, not a wait for something
        context.close()
    # another student's Write then runs to the end: the closed tabs' work is over by then
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    open_page(page, server + "?chapter=dilemma", "Good is slow. Fast is sloppy.")
    act(page, "write").click()
    # the race's summary is drawn at its end: a verdict line besides the predict card's own
    wait_until(lambda: page.locator(".verdict").count() > page.locator(".predict-card .verdict").count(), 120,
               message="the race to run to the end")
    context.close()
    after = [block for block in log.read_text().split("Traceback (most recent call last):")[before + 1:]
             if not any(benign in block for benign in BENIGN)]
    assert not after, f"the server logged a traceback:\n{after[0][-3000:]}"


async def _closed_after(send) -> int:
    """A landing page's websocket, `send(ws)` on it: the code the server closed it with."""
    page = PageSession(SERVER_URL[0], "")
    await page.open()
    await send(page.ws)
    await asyncio.wait_for(page.ws.wait_closed(), 60)
    page.reader.cancel()
    return page.ws.close_code


async def _frames(ws, header, content: str) -> None:
    await ws.send(header if isinstance(header, str) else json.dumps(header))
    await ws.send("{}")
    await ws.send(content)


SERVER_URL: list[str] = []


def test_unreadable_frames_and_a_2mb_patch_close_the_connection_without_a_traceback(server, tmp_path_factory):
    """Not JSON, a binary frame, a kind of message the server does not take, and a 2 MB patch: each connection is
    closed, the log has one line for the client (a minute) and no traceback."""
    SERVER_URL[:] = [server]
    big = json.dumps({"events": [{"kind": "ModelChanged", "model": {"id": "p1"}, "attr": "value", "new": "x" * 2 ** 21}]})
    async def go():
        return await asyncio.gather(
            _closed_after(lambda ws: _frames(ws, "this is not a message {", "nor this")),
            _closed_after(lambda ws: ws.send(b"a binary frame where a header goes")),
            _closed_after(lambda ws: _frames(ws, {"msgid": "m1", "msgtype": "NO-SUCH-KIND"}, "{}")),
            _closed_after(lambda ws: _frames(ws, {"msgid": "m2", "msgtype": "PATCH-DOC"}, big)))
    codes = run(go())
    # 1009: too big, refused unread (1006 when the client was still sending as the server closed it)
    assert codes[:3] == [1007] * 3 and codes[3] in (1009, 1006), codes
    log = (tmp_path_factory.getbasetemp() / "server0" / "server.log").read_text()
    assert "Traceback" not in log and "Unhandled exception receiving" not in log
    assert log.count("sent a websocket message this server cannot read") == 1    # one client: one line a minute
