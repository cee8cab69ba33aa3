"""The export's language: `python -m lab export DIR --lang CODE` writes the offline copy in one of the
lab's languages, `--lang all` each of them in a folder of its own (DIR/en/, DIR/es/, DIR/zh/) under a
page that offers them (DIR/index.html), every page with links to itself in the others.

An exported page is built as a served page in that language is (shell.frame.language: the language
kept on the page's document, uikit.language.use_language), so its chapter, frame and notices read in
it; the export's own words (the offline note, absent.html, the tour's frame page, the player's
sentences) are messages of the catalogs too, said in the page's language (`speaking`).

    languages("all")        # ['en', 'es', 'zh']
    with speaking("zh"):
        _("Back to the lab")
"""
from __future__ import annotations

import contextlib
import html

from bokeh.document import Document
from panel.io.state import set_curdoc

from lab import i18n
from shell.frame.language import GLOBE, html_tag
from uikit.language import gettext as _, use_language

ALL = "all"


class UnknownLanguage(ValueError):
    """A `--lang` the lab does not speak: one sentence naming those it does."""


def offered() -> list[str]:
    """The codes `--lang` takes: English and every shipped language (the pseudo-locale too, by its code)."""
    return [i18n.DEFAULT, *i18n.shipped()]


def languages(code: str | None) -> list[str]:
    """The languages `--lang code` exports: one (None: English), or with "all" every shipped one."""
    if code is None:
        return [i18n.DEFAULT]
    if code.strip().lower() == ALL:
        return offered()
    language = i18n.known(code)
    if language is None:
        raise UnknownLanguage(f"the lab does not speak {code!r}: --lang takes {', '.join(offered())}, "
                              f"{i18n.PSEUDO} (the pseudo-locale) or {ALL} (every one, each in a folder of its own).")
    return [language]


@contextlib.contextmanager
def speaking(language: str):
    """What is said inside speaks `language` (a document of its own as Panel's current one): for the
    export's words outside a page (absent.html, tour.html, the player's sentences)."""
    doc = Document()
    use_language(language, doc)
    with set_curdoc(doc):
        yield doc


def html_lang(text: str, language: str) -> str:
    """A saved page's `<html lang="en"` (Panel's template writes English) as the page's language."""
    return text.replace('<html lang="en"', f'<html lang="{html_tag(language)}"', 1)


def names() -> dict[str, str]:
    """Each offered language's name in its own language (the served menu's: i18n.languages)."""
    return dict(i18n.languages())


def menu_html(current: str, file: str, shown: list[str]) -> str:
    """The language menu of an exported page in `current` (DIR/<current>/`file`): a link to the same
    page in each language of `shown` (DIR/<code>/`file`), a tour step's to the tour's frame page there
    at that step (the whole tab, not the frame)."""
    named = names()
    links = []
    for code in shown:
        mark = ' aria-current="true"' if code == current else ""
        lang = html_tag(code)
        target = file
        extra = ""
        if file.startswith("tour-"):
            target, extra = f"tour.html#step={file[len('tour-'):-len('.html')]}", ' target="_top"'
        links.append(f'<a href="../{html.escape(code)}/{html.escape(target)}" lang="{lang}" hreflang="{lang}"'
                     f'{extra}{mark}>{html.escape(named.get(code, code))}</a>')
    label = html.escape(_("Language"))
    return f'<nav class="languages" aria-label="{label}">{GLOBE}{"".join(links)}</nav>'


CHOOSER = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Speculative Lab</title>
<link rel="icon" href="{icon}">
<style>
body {{ font: 1.25rem/1.5 system-ui, sans-serif; color: #1b1b1f;
        max-width: 40rem; margin: 4rem auto; padding: 0 1.5rem; }}
ul {{ list-style: none; padding: 0; }}
li {{ margin: 0.6rem 0; }}
a {{ color: #1f4e9e; font-size: 1.5rem; }}
</style>
</head>
<body>
<main>
<h1>Speculative Lab</h1>
<ul id="speclab-languages">
{links}
</ul>
</main>
</body>
</html>
"""


def chooser_html(shown: list[str]) -> str:
    """DIR/index.html of an export in every language: each language by its own name, opening its
    folder's landing page; under each name, its "Open the lab in this language" said in it."""
    named, items = names(), []
    for code in shown:
        lang = html_tag(code)
        with speaking(code):
            hint = _("Open the offline copy of the lab in this language")
        items.append(f'<li lang="{lang}"><a href="{html.escape(code)}/index.html" hreflang="{lang}">'
                     f'{html.escape(named.get(code, code))}</a><br><small>{html.escape(hint)}</small></li>')
    icon = f"{shown[0]}/static/extensions/panel/images/favicon.ico" if shown else ""
    return CHOOSER.format(links="\n".join(items), icon=html.escape(icon))
