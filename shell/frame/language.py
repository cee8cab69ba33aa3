"""Which language a page speaks, and the language menu on every page.

A page's language, chosen once when its session starts (`choose`), in this order: the address's
`?lang=CODE` (the menu's links carry it), else the language this browser chose last (the
`speclab_lang` cookie, which a page opened with `?lang` sets: `LanguageMemory`), else the lecturer's
`--args --lang CODE`, else the browser's Accept-Language, else English. It is kept on the page's
document (uikit.language), never in the process: students on one server read different languages.

    language, chosen = choose(pn.state.session_args, pn.state.cookies, pn.state.headers)
    menu_html("zh", {"chapter": [b"dilemma"]})   # links to ?chapter=dilemma&lang=… for each language
"""
from __future__ import annotations

import argparse
import html
import logging
import sys
from urllib.parse import urlencode

import panel as pn
import param

from lab import i18n
from uikit.language import gettext as _

log = logging.getLogger(__name__)
COOKIE = "speclab_lang"
REMEMBER_DAYS = 365
MENU_CSS = """
.languages { display: flex; gap: 2px; align-items: center; justify-content: flex-end; flex-wrap: wrap;
             font-size: 1rem; }
.languages a { color: #ffffff; padding: 4px 10px; border-radius: 4px; text-decoration: none;
               white-space: nowrap; }
.languages a:hover, .languages a:focus-visible { background: rgba(255, 255, 255, 0.18); text-decoration: underline; }
.languages a[aria-current] { background: #ffffff; color: #1f4e9e; font-weight: 600; }
.languages .globe { margin-right: 4px; flex: none; }
"""
# A globe drawn, not a glyph: every browser shows it, whatever its fonts.
GLOBE = ('<svg class="globe" aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" '
         'stroke="#ffffff" stroke-width="1.6"><circle cx="12" cy="12" r="9.5"/><path d="M2.5 12h19M12 2.5c2.8 3 '
         '2.8 16 0 19M12 2.5c-2.8 3-2.8 16 0 19"/></svg>')


def html_tag(language: str) -> str:
    """The html `lang` attribute of a page in `language` (screen readers pick their voice by it)."""
    return {"zh": "zh-Hans", i18n.PSEUDO: "en"}.get(language, language.replace("_", "-"))


def lecturer_language(argv: list[str] | None = None, warn: bool = False) -> str | None:
    """The lecturer's default language, `--args --lang CODE` of the server's arguments (`argv`,
    default the process's), or None; a code the lab does not speak is None (said once, with `warn`)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--lang")
    code = parser.parse_known_args(sys.argv[1:] if argv is None else argv)[0].lang
    language = i18n.known(code)
    if code and language is None and warn:
        log.warning("--lang %s: the lab does not speak it (it speaks %s); pages follow each browser's "
                    "language, else English.", code, ", ".join([i18n.DEFAULT, *i18n.shipped()]))
    return language


def _first(args: dict, name: str) -> str | None:
    values = args.get(name) or []
    value = values[0] if values else None
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def choose(args: dict, cookies: dict, headers: dict, argv: list[str] | None = None) -> tuple[str, bool]:
    """(the page's language, whether its address chose it): `?lang`, else the browser's last choice
    (cookie), else the lecturer's `--lang`, else Accept-Language, else English."""
    asked = i18n.known(_first(args, "lang"))
    if asked is not None:
        return asked, True
    for language in (i18n.known((cookies or {}).get(COOKIE)), lecturer_language(argv),
                     i18n.negotiate((headers or {}).get("Accept-Language"))):
        if language is not None:
            return language, False
    return i18n.DEFAULT, False


def menu_html(current: str, args: dict) -> str:
    """The language menu: each language by its own name, linking to this very page (its address's
    other parameters kept) in that language; the pseudo-locale is listed only on its own pages."""
    kept = [(k, v.decode("utf-8", "replace") if isinstance(v, bytes) else v)
            for k, values in (args or {}).items() if k != "lang" for v in values]
    offered = i18n.languages() + ([(i18n.PSEUDO, "[Ƥšéûðö]")] if current == i18n.PSEUDO else [])
    links = []
    for code, name in offered:
        mark = ' aria-current="true"' if code == current else ""
        lang = html_tag(code)
        links.append(f'<a href="?{html.escape(urlencode(kept + [("lang", code)]))}" lang="{lang}" '
                     f'hreflang="{lang}"{mark}>{html.escape(name)}</a>')
    label = html.escape(_("Language"))
    return f'<nav class="languages" aria-label="{label}">{GLOBE}{"".join(links)}</nav>'


class LanguageMemory(pn.custom.JSComponent):
    """Sets the page's html `lang` attribute and, on a page whose address chose its language, keeps
    the choice for this browser's next pages (the `speclab_lang` cookie)."""
    tag = param.String(default="en")
    remember = param.String(default="", doc="The language to remember ('' keeps the cookie as it is).")

    _esm = f"""
export function render({{ model }}) {{
  document.documentElement.lang = model.tag;
  if (model.remember)
    document.cookie = `{COOKIE}=${{encodeURIComponent(model.remember)}}; path=/; ` +
                      `max-age={REMEMBER_DAYS * 86400}; SameSite=Lax`;
  return document.createElement("span");
}}
"""


def language_header(language: str, chosen: bool, args: dict) -> pn.Row:
    """What a served page's header adds: the language menu (`menu_html`) and the page's
    LanguageMemory (its html `lang`; the choice remembered when its address made it)."""
    menu = pn.pane.HTML(menu_html(language, args), stylesheets=[MENU_CSS], sizing_mode="stretch_width",
                        margin=(0, 10))
    remember = LanguageMemory(tag=html_tag(language), remember=language if chosen else "", width=0, height=0,
                              margin=0)
    return pn.Row(menu, remember, sizing_mode="stretch_width", margin=0)
