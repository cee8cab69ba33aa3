"""An export of part of the lab (`--page`, `--tour N`) never links to a page it did not write: a link
to a left-out chapter, to the landing page or to a tour step past the last exported one opens
absent.html, which says so in one sentence; the last exported tour step is the tour's last (its
Next stops there, its chapter menu offers only the chapters it reaches)."""
from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path

import pytest

from export.build import build_page
from export.files import ABSENT, Contents, relink
from export.site import export_site, site_pages

# a file an exported page or recording links to (the folder's own scripts under static/ left out)
LINK = re.compile(r"(?<![\w/.-])([a-z0-9][a-z0-9-]*\.html)(?:#step=(\d+))?")


@pytest.fixture(scope="module")
def extension():
    import panel as pn
    pn.extension(inline=True)


@pytest.fixture(scope="module")
def partial(tiny_service, extension, tmp_path_factory) -> Path:
    """The landing page, chapter 4 and the tour's first two steps, one state recorded a page."""
    out = tmp_path_factory.mktemp("partial")
    asyncio.run(export_site(out, tiny_service, ["", "guess-check-keep"], 2, max_nodes=1, max_seconds=5))
    return out


def links(folder: Path) -> dict[str, set[tuple[str, int | None]]]:
    """Each written page or recording → the (file, tour step) its text links to."""
    found = {}
    for path in [*folder.glob("*.html"), *(folder / "data").glob("*.js")]:
        text = html.unescape(html.unescape(path.read_text()))
        found[str(path.relative_to(folder))] = {(m.group(1), int(m.group(2)) if m.group(2) else None)
                                                for m in LINK.finditer(text)}
    return found


def test_every_link_of_a_partial_export_opens_a_page_it_holds(partial):
    written = {p.name for p in partial.glob("*.html")}
    assert written == {"index.html", "guess-check-keep.html", "tour-1.html", "tour-2.html", "tour.html", ABSENT}
    found = links(partial)
    broken = sorted((page, target, step) for page, targets in found.items() for target, step in targets
                    if target not in written or (step is not None and step > 2))
    assert not broken, broken[:10]
    # the pages do link out of the export: to the chapters left out, to the tour's later steps
    assert (ABSENT, None) in found["index.html"] and (ABSENT, None) in found["guess-check-keep.html"]
    assert ("guess-check-keep.html", None) in found["index.html"]
    assert ("tour.html", 1) in found["index.html"] and (ABSENT, None) in found["tour-2.html"]   # its Esc
    absent = (partial / ABSENT).read_text()
    assert "holds only some of its pages and only the guided tour's first 2 steps" in absent
    assert 'href="index.html"' in absent and "http" not in absent


def test_the_last_exported_step_ends_the_tour(tiny_service, extension):
    built = asyncio.run(build_page("", tiny_service, 2, tour_steps=2))
    deck = built.tour.deck
    assert len(deck.steps) == 2                             # "2 / 2": its Next is off (assets/tour.js)
    assert [c["first"] for c in deck.chapters] == [1, 2]    # the menu offers what the export holds
    whole = asyncio.run(build_page("", tiny_service, 2))
    assert len(whole.tour.deck.steps) > 2                   # the served tour, and a whole export's, go on


def test_relink_sends_what_an_export_left_out_to_the_absent_page():
    some = Contents.of(["", "guess-check-keep"], 4)
    assert relink('<a href="?chapter=timeline">', contents=some) == f'<a href="{ABSENT}">'
    assert relink('<a href="?chapter=guess-check-keep">', contents=some) == '<a href="guess-check-keep.html">'
    assert relink('<a href="?tour=11">', contents=some) == f'<a href="{ABSENT}">'
    assert relink('<a href="?tour=3">', contents=some) == '<a href="tour.html#step=3">'
    assert relink('<a href="?tour=3">', tour_step=True, contents=some) == '<a href="tour-3.html">'
    assert relink('"exit": "?"', contents=Contents.of(["timeline"], 0)) == f'"exit": "{ABSENT}"'
    # the landing page's link in a pane's doubly escaped text, in a whole export
    assert relink("href=&amp;quot;?&amp;quot;") == "href=&amp;quot;index.html&amp;quot;"
    assert not Contents.of(None, None).partial and Contents.of(site_pages(), 3).partial
