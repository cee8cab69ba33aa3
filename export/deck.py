"""The guided tour's frame page of the export, DIR/tour.html: fullscreen that lasts across steps.

Each tour step is a page of its own in the export (tour-N.html), and a browser leaves fullscreen
whenever the page changes. So the tour is opened through one page that never changes: tour.html
holds the step pages in a full-window frame, and it is this page that goes fullscreen. A step's
page inside it (assets/export-frame.js) asks for fullscreen through the frame page (F, the tour's
Fullscreen button), its keys move the frame from step to step, and the frame page's address
follows the step (`tour.html#step=N`), so a reload or a bookmark reopens that step
(assets/export-wrapper.js). A page outside the tour opened from a step (Esc, a chapter link)
takes the frame page's place. A step's page opened by itself works as before.

    write_deck(out, steps=20)     # DIR/tour.html over tour-1.html … tour-20.html
"""
from __future__ import annotations

import html
from pathlib import Path

from export.files import ABSENT, TOUR_LINK
from shell.frame.language import html_tag
from shell.frame.pages import PageAsk
from uikit.language import gettext as _, page_language

DECK = """<!DOCTYPE html>
<html lang="{lang}" data-tour-steps="{steps}" data-home="{home}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="icon" href="static/extensions/panel/images/favicon.ico">
<style>
html, body {{ margin: 0; height: 100%; overflow: hidden; background: #fff; }}
#speclab-tour-frame {{ display: block; border: 0; width: 100%; height: 100%; }}
</style>
</head>
<body>
<iframe id="speclab-tour-frame" title="{title}" allow="fullscreen"></iframe>
<noscript><p>{noscript}</p></noscript>
<script src="static/export-wrapper.js"></script>
</body>
</html>
"""


def write_deck(out: Path, steps: int, home: bool = True) -> Path | None:
    """Write DIR/tour.html over the first `steps` step pages (none when no step was exported), in the
    current language (export/language.py `speaking`); its Esc opens the landing page (`home`: it was
    exported) or the page saying it was left out."""
    if steps < 1:
        return None
    title = html.escape(PageAsk("", tour=True).title)
    noscript = _("The guided tour needs JavaScript; its steps are the pages {first} and on.").format(
        first='<a href="tour-1.html">tour-1.html</a>')
    path = out / TOUR_LINK
    path.write_text(DECK.format(steps=steps, home="index.html" if home else ABSENT, lang=html_tag(page_language()),
                                title=title, noscript=noscript))
    return path
