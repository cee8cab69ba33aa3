"""`python -m lab i18n`: the one command after adding or changing a message.

    python -m lab i18n            # extract the template, update every catalog, check them
    python -m lab i18n --check    # change nothing; fail when the template is out of date or a catalog
                                  # has an empty, fuzzy or broken entry (what tests/i18n/ checks)
    python -m lab i18n --add fr   # a new catalog for a translator (then: translate it, run the command)

It extracts every marked message of the lab (lab/i18n/babel.cfg) into lab/i18n/locales/speclab.pot,
merges the template into each shipped catalog (a new message comes in empty, a changed one fuzzy,
with its old translation as a hint; a removed one is kept at the end, commented out), and says per
language how many messages are translated and which are not, or whose placeholders differ. Files are
written only when their messages changed, so running it twice changes nothing.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import string
import sys
from collections import Counter
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import write_po

from lab.i18n.catalogs import DOMAIN, LOCALES, TEMPLATE, compiled, po_path, read_catalog, shipped

REPO = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).resolve().parent / "babel.cfg"
PACKAGES = ("app.py", "chapters", "shell", "uikit", "export", "intercept", "serving", "lab")
# The marks extraction reads: `_("…")` (uikit.language's gettext), `ngettext(singular, plural, n)`,
# `N_("…")` (lab.i18n: marked, translated where shown) and `Translated("…")` (a chapter's metadata).
KEYWORDS = (("_", None), ("N_", None), ("ngettext", (1, 2)), ("Translated", None))
COMMENT_TAGS = ("Translators:",)
WIDTH = 100
HEADER = """\
# Speculative Lab's messages{language}.
# Made by `python -m lab i18n` from the lab's source: edit translations in a language's catalog,
# never this template.
#"""
TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)")


def extract_template() -> Catalog:
    """Every marked message of the lab, as a template (file names without line numbers, so a line
    moved leaves the template as it was)."""
    with open(CONFIG) as f:
        method_map, options_map = parse_mapping_cfg(f)

    def wanted(path: str) -> bool:
        parts = Path(os.path.relpath(path, REPO)).parts
        return bool(parts) and parts[0] in PACKAGES and "__pycache__" not in parts and "locales" not in parts

    catalog = Catalog(project="Speculative Lab", domain=DOMAIN, charset="utf-8", fuzzy=False,
                      header_comment=HEADER.format(language=""))
    found = extract_from_dir(str(REPO), method_map, options_map, keywords=dict(KEYWORDS), comment_tags=COMMENT_TAGS,
                             strip_comment_tags=True, directory_filter=wanted)
    for filename, lineno, message, comments, context in found:
        catalog.add(message, None, [(filename.replace(os.sep, "/"), None)], auto_comments=comments,
                    context=context)
    return catalog


def po_text(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=WIDTH, include_lineno=False, omit_header=False)
    return out.getvalue()


def messages(catalog: Catalog) -> list[tuple]:
    """What a template or catalog says, without its dates: each message's id, context, files,
    comments and translation, in order."""
    def said(string):              # a new message's None and a read one's "" (or ("", "")) are alike
        return tuple(s or "" for s in string) if isinstance(string, (tuple, list)) else string or ""
    return [(m.id, m.context, sorted({f for f, _ in m.locations}), list(m.auto_comments), said(m.string),
             m.fuzzy) for m in catalog if m.id] + [("#~", m.id, m.string) for m in catalog.obsolete.values()]


def fields(text: str) -> Counter:
    """The {placeholders} of a message (name and format) and its markup tags, each counted."""
    found = Counter()
    try:
        found.update(f"{{{name}{':' + spec if spec else ''}}}" for _, name, spec, _ in string.Formatter().parse(text)
                     if name is not None)
    except ValueError as err:               # a lone brace: str.format would fail on it at run time
        found[f"unbalanced braces ({err})"] += 1
    found.update(f"<{tag.lower()}>" for tag in TAG.findall(text))
    return found


def problems(catalog: Catalog) -> list[str]:
    """Each message of `catalog` not ready to show: empty, fuzzy, or whose placeholders or markup
    differ from its English (a plural form may leave out the count: "un modelo")."""
    found = []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        forms = m.string if isinstance(m.string, tuple) else (m.string,)
        name = ids[0][:60]
        if m.fuzzy:
            found.append(f"fuzzy: {name!r}")
        if not all(forms):
            found.append(f"not translated: {name!r}")
            continue
        want = fields(ids[-1])
        for form in forms:
            got = fields(form)
            if (got != want) if len(ids) == 1 else not (got <= want and all(got[k] <= want[k] for k in got)):
                found.append(f"placeholders or markup differ in {name!r}: {sorted(want.elements())} "
                             f"≠ {sorted(got.elements())}")
    return found


def update(template: Catalog, language: str, write: bool) -> tuple[Catalog, bool]:
    """`language`'s catalog merged with `template` (and whether its messages changed), written when
    `write`."""
    catalog = read_catalog(po_path(language), language)
    before = messages(catalog)
    catalog.update(template, update_creation_date=False)
    changed = messages(catalog) != before
    if changed and write:
        po_path(language).write_bytes(po_text(catalog))
    return catalog, changed


def add(template: Catalog, language: str) -> Path:
    """A new, empty catalog for `language` (its plural rule from CLDR, through Babel)."""
    path = po_path(language)
    if path.exists():
        raise SystemExit(f"{path.relative_to(REPO)} exists already; run `python -m lab i18n` to update it.")
    catalog = Catalog(locale=language, domain=DOMAIN, project="Speculative Lab", fuzzy=False,
                      header_comment=HEADER.format(language=f" in {language}") + "\n# Glossary: …\n#")
    catalog.update(template, update_creation_date=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(po_text(catalog))
    return path


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m lab i18n", description="Extract the lab's messages, update "
                                 "and check every language's catalog (lab/i18n/locales/).")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when the template is out of "
                                                         "date or a catalog is not complete")
    ap.add_argument("--add", metavar="CODE", help="start a catalog for a new language (e.g. fr, pt-BR)")
    args = ap.parse_args(argv)
    template = extract_template()
    failed = False
    if TEMPLATE.exists() and messages(read_catalog(TEMPLATE)) == messages(template):
        print(f"{TEMPLATE.relative_to(REPO)}: {len(template)} messages, up to date")
    elif args.check:
        print(f"{TEMPLATE.relative_to(REPO)} is out of date: run `python -m lab i18n`")
        failed = True
    else:
        TEMPLATE.write_bytes(po_text(template))
        print(f"{TEMPLATE.relative_to(REPO)}: {len(template)} messages, written")
    if args.add:
        print(f"{add(template, args.add.replace('-', '_')).relative_to(REPO)}: started; translate it, then run "
              "`python -m lab i18n` (the language menu offers it once the folder exists)")
        shipped.cache_clear()
    for language in shipped():
        catalog, changed = update(template, language, write=not args.check)
        wrong = problems(catalog)
        compiled(catalog)                       # a catalog that cannot be compiled fails here
        state = ("updated" if changed and not args.check else "out of date" if changed else "up to date")
        print(f"{language}: {len(catalog)} messages, {len(wrong)} to fix, {state}")
        for line in wrong:
            print(f"  {line}")
        failed |= bool(wrong) or (changed and args.check)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
