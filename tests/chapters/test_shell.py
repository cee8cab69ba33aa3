"""The shell's page filling, without a browser."""
import asyncio

import panel as pn

from chapters.shell import page_view, show_in_pieces
from chapters.state import LabState


def test_a_chapter_page_is_shown_a_section_per_event_loop_turn(tiny_service):
    view = page_view("breakeven", LabState(tiny_service))
    sections = view.objects[-1]
    expected = list(sections.objects)
    assert len(expected) >= 3
    slot = pn.Column()
    seen = []   # how many sections were shown each time another task got a turn

    async def classmate():
        while len(seen) < 50 and len(sections.objects) < len(expected):
            seen.append(len(sections.objects) if slot.objects else -1)
            await asyncio.sleep(0)

    async def both():
        await asyncio.gather(show_in_pieces(slot, view), classmate())
    asyncio.run(both())

    assert slot.objects == [view]
    assert sections.objects == expected          # every section, in order, each once
    shown = [n for n in seen if n >= 0]
    # The other task ran while the page was partly shown, at more than one stage of it.
    assert len(set(shown)) >= len(expected) - 1 and max(shown) < len(expected)


def test_a_page_without_sections_is_shown_at_once(tiny_service):
    view = page_view("", LabState(tiny_service))   # the landing page: one pane
    slot = pn.Column()
    asyncio.run(show_in_pieces(slot, pn.Column(view)))
    assert len(slot.objects) == 1 and slot.objects[0].objects == [view]
