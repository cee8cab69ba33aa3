"""Turning a built page into files that open from a folder: HTML, links, and the scripts it loads.

Panel writes a page with its resources on the CDN (Bokeh's and Panel's JS, Panel's stylesheets),
and its links as the served lab's (`?chapter=slug`). Here every CDN or server address becomes a
path under the folder's `static/` (the file copied there once, shared by every page) and every
link the page's file, so the folder opens from `file://` and from any static web server.

    text = page_html(built.doc, title)
    text = localize(text, copier)      # copier.copy(...) fills DIR/static/
"""
from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import bokeh
import panel as pn
from bokeh.resources import CDN
from panel.io.save import save

BOKEH_JS = Path(bokeh.__file__).parent / "server" / "static" / "js"
PANEL_DIST = Path(pn.__file__).parent / "dist"
BOKEH_CDN = re.compile(r"https://cdn\.bokeh\.org/bokeh/release/(bokeh(?:-[a-z]+)?)-[0-9][^\"'\s]*?\.min\.js")
PANEL_CDN = re.compile(r"https://cdn\.holoviz\.org/panel/[^/]+/dist/")
PANEL_LOCAL = re.compile(r"(?<![\w/.])(?:\./)?static/extensions/panel/([^\"'\s)\\?&]+)(?:\?v=[\w.]+)?")
TOUR_LINK = "tour.html"     # the guided tour's frame page (shell/export/deck.py)
CSS_URL = re.compile(r"url\(\s*['\"]?(?!data:|https?:|#)([^'\")]+)['\"]?\s*\)")


def page_html(doc, title: str) -> str:
    """The document as one HTML page, written by Panel (its template, the served page's frame)."""
    out = io.StringIO()
    save(doc, out, title=title, resources=CDN, template=doc.template, template_variables=doc.template_variables)
    text = out.getvalue()
    # the template's own scripts (Bootstrap's: the sidebar toggle), which a saved template leaves out
    scripts = (doc.template_variables.get("template_resources") or {}).get("js") or {}
    tags = "".join(f'<script src="{src}"></script>\n' for src in scripts.values() if src not in text)
    return text.replace("</head>", tags + "</head>", 1)


def page_file(slug: str, tour_step: int | None = None) -> str:
    if tour_step is not None:
        return f"tour-{tour_step}.html"
    return f"{slug}.html" if slug else "index.html"


def relink(text: str, tour_step: bool = False) -> str:
    """The served lab's links (`?chapter=slug`, `?`, `?tour=N`) as the exported files'. A link into
    the tour opens the tour's frame page at that step (`tour.html#step=N`, which keeps fullscreen
    across steps: shell/export/deck.py); on a step's own page (shown inside that frame) it opens
    the step's page itself."""
    text = re.sub(r"\?chapter=([A-Za-z0-9_-]+)", r"\1.html", text)
    text = re.sub(r"\?tour=(\d+)", r"tour-\1.html" if tour_step else TOUR_LINK + r"#step=\1", text)
    text = re.sub(r"(\\?\"exit\\?\":\s*\\?\")\?(\\?\")", r"\1index.html\2", text)   # the tour's Esc
    return re.sub(r"href=(\\?\"|&quot;|\\&quot;)\?(\\?\"|&quot;|\\&quot;)", r"href=\1index.html\2", text)


class Copier:
    """Copies what pages name into DIR/static once; `localize(text)` rewrites the names."""

    def __init__(self, root: Path):
        self.root = root
        self.done: set[str] = set()

    def _copy(self, source: Path, rel: str) -> None:
        if rel in self.done:
            return
        self.done.add(rel)
        if not source.is_file():
            return
        target = self.root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        if target.suffix == ".css":      # what a stylesheet loads (fonts, images), beside it
            for ref in CSS_URL.findall(source.read_text(errors="replace")):
                ref = ref.split("?")[0].split("#")[0]
                self._copy((source.parent / ref).resolve(), str(Path(rel).parent / ref))

    def _bokeh(self, m: re.Match) -> str:
        rel = f"static/bokeh/{m.group(1)}.min.js"
        self._copy(BOKEH_JS / f"{m.group(1)}.min.js", rel)
        return rel

    def _panel(self, m: re.Match) -> str:
        path = m.group(1)
        rel = f"static/extensions/panel/{path}"
        self._copy(PANEL_DIST / path, rel)
        return rel

    def localize(self, text: str, tour_step: bool = False) -> str:
        text = BOKEH_CDN.sub(self._bokeh, text)
        text = PANEL_CDN.sub("static/extensions/panel/", text)
        text = PANEL_LOCAL.sub(self._panel, text)
        text = text.replace('href="./favicon.ico"', 'href="static/extensions/panel/images/favicon.ico"')
        self._copy(PANEL_DIST / "images" / "favicon.ico", "static/extensions/panel/images/favicon.ico")
        return relink(text, tour_step)


def remote_addresses(text: str) -> list[str]:
    """The http(s) addresses a page loads by itself (src= and href= of its tags)."""
    return sorted(set(re.findall(r"<(?:script|link|img)[^>]*?(?:src|href)=\"(https?://[^\"]+)\"", text)))
