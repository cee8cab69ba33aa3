"""The attacks of bench/abuse.py, each a script on one machine that drops its cookie whenever that
helps: model work from many fresh browsers, tour-step floods from tabs that never read their
websocket, lecturer-token guesses and ballot stuffing.

The script connects from ATTACKER (another loopback address: the server sees another machine of
the class), the victim from 127.0.0.1. Every loop is bounded in time; all traffic stays on loopback.
"""
from __future__ import annotations

import asyncio
import html
import re
import time

import websockets

from wsclient import LECTURER_TOKEN, PageSession, click, fetch

ATTACKER = "127.0.0.2"       # the script's machine (each attack from its own: ATTACKERS)
ATTACKERS = {"clicks": "127.0.0.2", "work": "127.0.0.3", "tour": "127.0.0.4", "tokens": "127.0.0.5",
             "votes": "127.0.0.6"}
CAPPED = "pages of the lab open already"     # the server's sentence for a tab past its browser's cap


async def open_page(base: str, query: str, ready, source: str | None = ATTACKER, cookie: str | None = None,
                    timeout: float = 120) -> PageSession | None:
    """A page (no cookie unless given: a fresh browser) once `ready(page)`; None when the server
    answered with its tab cap instead."""
    page = PageSession(base, query, source=source, cookie=cookie)
    await page.open()
    found = await page.wait_for(lambda: "capped" if page.says(CAPPED) else ready(page), timeout, query)
    if found == "capped":
        await page.close()
        return None
    return page


def deck_of(page: PageSession) -> dict | None:
    """The tour's deck: the data model of its component, whose `step` the browser sets."""
    return next((m for m in page.models.values() if m["name"].startswith("TourDeck")
                 and "steps" in m.get("attributes", {})), None)


# A new request per number, and a text the pair continues for every new token asked (a question can
# end at once with the end-of-text token: a request of one token is no work).
PROMPT = "Unit {n} was a small robot who lived in a quiet town. Every morning, Unit {n}"


async def use_prompt(page: PageSession, text: str, timeout: float = 120) -> None:
    """Save `text` as the session's prompt, as a student does: open the settings card (its widgets are
    built when first opened), type it, press "Use these settings". The server applies a page's
    messages in order, so a press of "Use my models" sent next asks for a request nobody asked for
    before (lab.speed.request)."""
    if not page.find("TextAreaInput"):
        card = page.find("Card")[0]              # the page's one card: "Your prompt & sampling settings"
        await page.patch([{"kind": "ModelChanged", "model": {"id": card["id"]}, "attr": "collapsed", "new": False}])
        await page.wait_for(lambda: page.find("TextAreaInput") and page.find("Button", label="Use these settings"),
                            timeout, "the settings card")
    area = page.find("TextAreaInput")[0]["id"]
    await page.patch([{"kind": "ModelChanged", "model": {"id": area}, "attr": "value", "new": text}])
    await page.patch(click(page.find("Button", label="Use these settings")[0]["id"]))


def worked(page: PageSession, button: str, mark: int) -> bool:
    """Whether `button` was disabled and enabled again after event `mark`: its work ran and ended."""
    toggles = [e.get("new") for e in page.events[mark:]
               if e.get("model", {}).get("id") == button and e.get("attr") == "disabled"]
    return True in toggles and toggles[-1] is False


async def work_tab(page: PageSession, numbers, stop: asyncio.Event, stats: dict) -> None:
    """Until `stop`: save a new prompt (the next of `numbers`), press "Use my models", wait for the
    answer; each press is new work for the server, as fast as the page answers."""
    button = page.find("Button", label="Use my models")[0]["id"]
    for n in numbers:
        if stop.is_set():
            return
        mark = len(page.events)
        try:
            await use_prompt(page, PROMPT.format(n=n))
            await page.patch(click(button))
        except websockets.ConnectionClosed:
            stats["lost"] += 1
            return
        except TimeoutError:
            continue
        stats["clicks"] += 1
        try:
            await page.wait_for(lambda: stop.is_set() or worked(page, button, mark), 300, "an answer")
        except TimeoutError:
            pass


async def tour_tab(page: PageSession, stop: asyncio.Event, stats: dict) -> None:
    """Flip the tour's steps as fast as the socket takes them, never reading what the server sends."""
    deck = deck_of(page)
    page.reader.cancel()                     # from now on nothing is read: the server's writes pile up
    n = len(deck["attributes"]["steps"]) if isinstance(deck["attributes"]["steps"], list) else 30
    step = 1
    while not stop.is_set():
        step = step % max(2, n) + 1
        try:
            await asyncio.wait_for(page.patch([{"kind": "ModelChanged", "model": {"id": deck["id"]},
                                                "attr": "step", "new": step}]), 30)
        except asyncio.TimeoutError:
            stats["stalled"] += 1            # the server reads nothing more from it: a send waits 30 s
            return
        except (websockets.ConnectionClosed, OSError):
            stats["dropped"] += 1            # the server closed it
            return
        stats["steps"] += 1
        await asyncio.sleep(0)


async def flood(kind: str, base: str, tabs: int, stop: asyncio.Event, stats: dict):
    source = ATTACKERS[kind]
    """Open `tabs` pages as fresh browsers from the attacker's machine and run `kind` ("work" or
    "tour") in each until `stop`; stats counts what was sent and how many tabs the server refused."""
    stats.update(clicks=0, steps=0, lost=0, dropped=0, stalled=0, capped=0, opened=0)
    pages = []
    for i in range(tabs):
        if kind == "work":
            page = await open_page(base, "chapter=breakeven", lambda p: p.find("Button", label="Use my models"), source)
        else:
            page = await open_page(base, "tour=1", deck_of, source)
        if page is None:
            stats["capped"] += 1
            continue
        pages.append(page)
    stats["opened"] = len(pages)
    return pages, [work_tab(p, hog_numbers(i), stop, stats) if kind == "work" else tour_tab(p, stop, stats)
                   for i, p in enumerate(pages)]


def hog_numbers(tab: int):
    """The numbers of an attacking tab's prompts: its own, never the victim's (below 10,000)."""
    return range(10_000 * (tab + 1), 10_000 * (tab + 2))


async def guess_tokens(base: str, seconds: float, stats: dict, parallel: int = 4) -> None:
    """Load `?lecturer=GUESS` pages with no cookie (a fresh browser each) for `seconds`, `parallel` at
    once; the server checks each when it builds the page (its log counts the checks)."""
    loop, deadline = asyncio.get_running_loop(), time.monotonic() + seconds
    stats.update(sent=0)

    async def guesser(k: int) -> None:
        i = 0
        while time.monotonic() < deadline:
            i += 1
            await loop.run_in_executor(None, lambda: fetch(f"{base}?lecturer=guess-{k}-{i}", ATTACKERS["tokens"],
                                                           timeout=60))
            stats["sent"] += 1
    await asyncio.gather(*[guesser(k) for k in range(parallel)])


async def stuff_votes(base: str, votes: int, stats: dict, parallel: int = 4) -> None:
    """Answer chapter 10's question `votes` times, each from a fresh page with no cookie."""
    stats.update(sent=0, capped=0, refused=0)
    queue = list(range(votes))

    async def voter() -> None:
        while queue:
            queue.pop()
            page = await open_page(base, "chapter=breakeven", lambda p: p.find("Button", label="slower"),
                                   ATTACKERS["votes"], timeout=180)
            if page is None:
                stats["capped"] += 1
                continue
            try:
                mark = len(page.events)
                await page.patch(click(page.find("Button", label="slower")[0]["id"]))
                await page.wait_for(lambda: len(page.events) > mark, 30, "the card's answer")
                stats["sent"] += 1
                stats["refused"] += page.says("network address")
            finally:
                await page.close()
    await asyncio.gather(*[voter() for _ in range(parallel)])


def counted(status_text: str) -> int:
    """Answers the lecturer's status line for a question counts (here and from browsers that left)."""
    text = html.unescape(re.sub(r"<[^>]+>", "", status_text))
    here = re.search(r"(\d+) of \d+ browsers? here", text)
    gone = re.search(r"(\d+) answers? from|(1) answer from", text)
    return (int(here.group(1)) if here else 0) + (int(next(g for g in gone.groups() if g)) if gone else 0)


async def votes_counted(base: str, number: int = 10) -> int:
    """Question `number`'s answers as the lecturer's page shows them."""
    page = PageSession(base, f"lecturer={LECTURER_TOKEN}&chapter=breakeven")
    await page.open()

    def statuses() -> list[str]:
        texts = [str(m["attributes"].get("text", "")) for m in page.find("HTML", text="data-q")]
        texts += [str(e["new"]) for e in page.events if e.get("attr") == "text" and "data-q" in str(e.get("new"))]
        return [t for t in map(html.unescape, texts) if f'data-q="{number}"' in t]
    try:
        await page.wait_for(statuses, 120, "the lecturer's poll")
        await asyncio.sleep(1)                   # the store's last changes reach the page
        return counted(statuses()[-1])
    finally:
        await page.close()
