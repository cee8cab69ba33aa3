"""Turning a built page into files that open from a folder: HTML, links, and the scripts it loads.

Panel writes a page with its resources on the CDN (Bokeh's and Panel's JS, Panel's stylesheets),
and its links as the served lab's (`?chapter=slug`). Here every CDN or server address becomes a
path under the folder's `static/` (the file copied there once, shared by every page) and every
link the page's file, so the folder opens from `file://` and from any static web server. A link to
a page this export left out (`--page`, `--tour N`) opens DIR/absent.html, which says so in one
sentence, never a missing file.

    text = page_html(built.doc, title)
    text = Copier(out, Contents.of(["", "guess-check-keep"], steps=4)).localize(text)   # fills DIR/static/
"""
from __future__ import annotations

import html
import io
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import bokeh
import panel as pn
from bokeh.resources import CDN
from panel.io.save import save

from shell.frame.language import html_tag
from uikit.language import gettext as _, ngettext, page_language

BOKEH_JS = Path(bokeh.__file__).parent / "server" / "static" / "js"
PANEL_DIST = Path(pn.__file__).parent / "dist"
BOKEH_CDN = re.compile(r"https://cdn\.bokeh\.org/bokeh/release/(bokeh(?:-[a-z]+)?)-[0-9][^\"'\s]*?\.min\.js")
PANEL_CDN = re.compile(r"https://cdn\.holoviz\.org/panel/[^/]+/dist/")
PANEL_LOCAL = re.compile(r"(?<![\w/.])(?:\./)?static/extensions/panel/([^\"'\s)\\?&]+)(?:\?v=[\w.]+)?")
TOUR_LINK = "tour.html"     # the guided tour's frame page (export/deck.py)
ABSENT = "absent.html"      # where a link to a page left out of a partial export leads
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


@dataclass(frozen=True)
class Contents:
    """What an export holds: its pages' files and how many of the tour's steps (None: all of
    them; the served lab's every page and step otherwise)."""
    files: frozenset[str] | None = None
    steps: int | None = None

    @classmethod
    def of(cls, slugs: list[str] | None, steps: int | None) -> Contents:
        return cls(None if slugs is None else frozenset(page_file(s) for s in slugs), steps)

    def has(self, slug: str) -> bool:
        return self.files is None or page_file(slug) in self.files

    def has_step(self, step: int) -> bool:
        return self.steps is None or 1 <= step <= self.steps

    @property
    def partial(self) -> bool:
        return self.files is not None or self.steps is not None


def relink(text: str, tour_step: bool = False, contents: Contents = Contents()) -> str:
    """The served lab's links (`?chapter=slug`, `?`, `?tour=N`) as the exported files'. A link into
    the tour opens the tour's frame page at that step (`tour.html#step=N`, which keeps fullscreen
    across steps: export/deck.py); on a step's own page (shown inside that frame) it opens
    the step's page itself. A link to a page or step `contents` lacks opens ABSENT."""
    def chapter(m: re.Match) -> str:
        return page_file(m.group(1)) if contents.has(m.group(1)) else ABSENT

    def tour(m: re.Match) -> str:
        step = int(m.group(1))
        if not contents.has_step(step):
            return ABSENT
        return f"tour-{step}.html" if tour_step else f"{TOUR_LINK}#step={step}"

    home = page_file("") if contents.has("") else ABSENT
    text = re.sub(r"\?chapter=([A-Za-z0-9_-]+)", chapter, text)
    text = re.sub(r"\?tour=(\d+)", tour, text)
    text = re.sub(r"(\\?\"exit\\?\":\s*\\?\")\?(\\?\")", rf"\g<1>{home}\g<2>", text)   # the tour's Esc
    quote = r"(\\?\"|&quot;|\\&quot;|&amp;quot;)"
    return re.sub(rf"href={quote}\?{quote}", rf"href=\g<1>{home}\g<2>", text)


ABSENT_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="icon" href="static/extensions/panel/images/favicon.ico">
<style>
body {{ font: 1.15rem/1.5 system-ui, sans-serif; color: #1b1b1f;
        max-width: 40rem; margin: 4rem auto; padding: 0 1.5rem; }}
a {{ color: #1f4e9e; }}
</style>
</head>
<body>
<main>
<h1>{heading}</h1>
<p id="speclab-absent">{said}</p>
<p>{back}</p>
</main>
<script src="static/export-frame.js"></script>
</body>
</html>
"""


def held_words(contents: Contents) -> str:
    """What a partial export holds, in the current language (a whole phrase for each case)."""
    steps = contents.steps
    if contents.files is not None:
        if steps is None:
            return _("only some of its pages")
        if steps == 0:
            return _("only some of its pages and none of the guided tour")
        return ngettext("only some of its pages and only the guided tour's first {steps} step",
                        "only some of its pages and only the guided tour's first {steps} steps",
                        steps).format(steps=steps)
    if steps == 0:
        return _("every page but none of the guided tour")
    return ngettext("every page but only the guided tour's first {steps} step",
                    "every page but only the guided tour's first {steps} steps", steps).format(steps=steps)


def absent_html(contents: Contents) -> str:
    """DIR/absent.html's text, in the current language (export/language.py `speaking`)."""
    files = sorted(contents.files) if contents.files is not None else [page_file("")]
    start = page_file("") if contents.has("") else (files[0] if files else None)
    back_words = html.escape(_("Back to the lab"), quote=False)
    back = f'<a href="{html.escape(start)}">{back_words}</a>' if start else ""
    # Translators: {held} says what the copy holds ("only some of its pages").
    said = _("This copy of Speculative Lab holds {held}, and the page this link leads to is not among them: the "
             "served lab (<code>panel serve app.py</code>) and a full export (<code>python -m lab export "
             "DIR</code>) have every page and every step of the tour.").format(
        held=html.escape(held_words(contents), quote=False))
    title, heading = _("Not in this copy · Speculative Lab"), _("Not in this copy of the lab")
    return ABSENT_PAGE.format(lang=html_tag(page_language()), title=html.escape(title, quote=False),
                              heading=html.escape(heading, quote=False), said=said, back=back)


def write_absent(out: Path, contents: Contents) -> Path | None:
    """Write DIR/absent.html (for a partial export; None and no file for a whole one), in the current
    language."""
    if not contents.partial:
        return None
    path = out / ABSENT
    path.write_text(absent_html(contents))
    return path


class Copier:
    """Copies what pages name into DIR/static once; `localize(text)` rewrites the names."""

    def __init__(self, root: Path, contents: Contents = Contents()):
        self.root, self.contents = root, contents
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
        return relink(text, tour_step, self.contents)


def remote_addresses(text: str) -> list[str]:
    """The http(s) addresses a page loads by itself (src= and href= of its tags)."""
    return sorted(set(re.findall(r"<(?:script|link|img)[^>]*?(?:src|href)=\"(https?://[^\"]+)\"", text)))
