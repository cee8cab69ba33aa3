"""The shipped catalogs, compiled in memory from their .po text, and which language a browser wants.

A catalog is read with Babel's .po reader and compiled (Babel's .mo writer, into memory) the first
time a page asks for its language; Python's gettext then reads it with the catalog's own plural rule
(its Plural-Forms header). No .mo file is kept in git or written to disk: what is served is always
the .po a translator edited. Empty and fuzzy entries are left out, so they read as English until
translated (tests/i18n/ fails on any).

    translations("zh").gettext("Big model")      # 大模型
    negotiate("es-CO,es;q=0.9,en;q=0.5")          # "es"; None when no shipped language is asked
"""
from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES = Path(__file__).resolve().parent / "locales"
DOMAIN = "speclab"
TEMPLATE = LOCALES / f"{DOMAIN}.pot"
DEFAULT = "en"            # the messages' own language: no catalog
PSEUDO = "en-XA"          # made from the template (lab.i18n.pseudo), for contributors and tests


@cache
def shipped() -> tuple[str, ...]:
    """The translated languages: a folder of locales/ with its catalog each (`python -m lab i18n
    --add CODE` makes one), in the order of their codes."""
    return tuple(sorted(p.parent.parent.name for p in LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po")))


def languages() -> list[tuple[str, str]]:
    """(code, name) of each language the menu offers, each named in its own language (CLDR's names,
    through Babel): English first, then the shipped ones."""
    from babel import Locale
    return [(DEFAULT, "English")] + [(code, Locale.parse(code).get_display_name(code).capitalize())
                                    for code in shipped()]


def po_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(path: Path, language: str | None = None) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale=language, domain=DOMAIN)


def compiled(catalog: Catalog) -> gettext.GNUTranslations:
    """`catalog` as Python's gettext reads it (its translated, non-fuzzy messages; its plural rule)."""
    mo = io.BytesIO()
    write_mo(mo, catalog, use_fuzzy=False)
    mo.seek(0)
    return gettext.GNUTranslations(mo)


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of `language` (a code `known` returns); English is the messages themselves."""
    if language == PSEUDO:
        from lab.i18n.pseudo import pseudo_catalog
        return compiled(pseudo_catalog(read_catalog(TEMPLATE)))
    if language in shipped():
        return compiled(read_catalog(po_path(language), language))
    return gettext.NullTranslations()


def known(code: str | None) -> str | None:
    """The language a code names, if the lab speaks it: "zh-CN", "zh_Hans" → "zh"; "ES-419" → "es";
    "en-XA" (the pseudo-locale, exactly); else None."""
    if not code:
        return None
    code = code.strip().replace("_", "-")
    if code.lower() == PSEUDO.lower():
        return PSEUDO
    base, _, region = code.partition("-")
    full = f"{base.lower()}_{region.upper()}"           # a catalog for one region (pt_BR), when shipped
    if region and full in shipped():
        return full
    return base.lower() if base.lower() == DEFAULT or base.lower() in shipped() else None


def negotiate(header: str | None) -> str | None:
    """The first language an Accept-Language header asks for that the lab speaks (by its q weights),
    else None. The pseudo-locale is never negotiated."""
    wanted = []
    for i, part in enumerate((header or "").split(",")):
        code, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if code and q > 0:
            wanted.append((-q, i, code))
    for _, _, code in sorted(wanted):
        language = known(code)
        if language is not None and language != PSEUDO:
            return language
    return None
