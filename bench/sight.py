"""When a student first sees something on a page they open: the chapter, or the page's place in the
server's line of pages (shell.room.line: "Preparing your page — 12 ahead of you, about 20 s").

    start = time.perf_counter(); page = PageSession(base, "chapter=breakeven"); await page.open()
    await first_sight(page, rec, start)     # adds "page or place in line" to the Recorder

A websocket student "sees" what the pulled document and the changes since hold. The places shown
are kept in PLACES (pages ahead, one entry per page that showed a place in line).
"""
from __future__ import annotations

import html
import re
import time

SIGHT = "page or place in line"
PLACE = "Preparing your page"         # the place line's words (shell.room.line.PageLine.place)
CHAPTER = "Takeaway"                  # a chapter's last section: the whole page is there
PLACES: list[int] = []                # pages ahead, as each page that waited first showed it


def place_shown(page) -> str:
    """The text of the page's place line, '' when it has none."""
    found = page.find("HTML", text=PLACE)
    return html.unescape(str(found[0]["attributes"].get("text", ""))) if found else ""


async def first_sight(page, rec, start: float, timeout: float = 120) -> None:
    """Wait until `page` shows its place in line or its chapter; add the time since `start` to `rec`
    under SIGHT, and the pages ahead (if any) to PLACES."""
    await page.wait_for(lambda: page.find("HTML", text=PLACE) or page.find("HTML", text=CHAPTER), timeout,
                        "the page or its place in line")
    rec.add(SIGHT, time.perf_counter() - start)
    ahead = re.search(r"(\d+) ahead of you", place_shown(page))
    if ahead:
        PLACES.append(int(ahead.group(1)))


def places_summary() -> str:
    """One line on the places in line the students were shown."""
    if not PLACES:
        return "place in line: no page had to wait behind another"
    return (f"place in line: {len(PLACES)} pages opened behind others (most ahead: {max(PLACES)}, "
            f"median {sorted(PLACES)[len(PLACES) // 2]})")
