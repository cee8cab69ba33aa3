"""The catalogs: the template is what the code marks, every shipped catalog translates all of it
(no empty or fuzzy entry), with the same placeholders and markup, compiles, and counts by its
language's plural rule; the pseudo-locale is made from the template; numbers are written as each
language writes them."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from lab import i18n
from lab.i18n.catalogs import TEMPLATE, compiled, po_path, read_catalog
from lab.i18n.command import KEYWORDS, PACKAGES, extract_template, fields, main, messages, problems
from lab.i18n.pseudo import KEEP, pseudo

REPO = Path(__file__).resolve().parents[2]


def test_the_template_is_what_the_code_marks():
    """A message added, changed or removed in the code without `python -m lab i18n` fails here."""
    assert messages(extract_template()) == messages(read_catalog(TEMPLATE)), (
        "lab/i18n/locales/speclab.pot is out of date: run `python -m lab i18n` and translate what it lists")


def test_zh_and_es_are_shipped():
    assert {"zh", "es"} <= set(i18n.shipped())
    assert [code for code, _ in i18n.languages()][0] == "en"


@pytest.mark.parametrize("language", i18n.shipped())
def test_every_message_is_translated_with_its_placeholders(language):
    template = read_catalog(TEMPLATE)
    catalog = read_catalog(po_path(language), language)
    ids = {m.id for m in template if m.id}
    assert ids <= {m.id for m in catalog if m.id}, f"{language}: run `python -m lab i18n`"
    assert problems(catalog) == []
    assert not any(m.fuzzy for m in catalog if m.id)


@pytest.mark.parametrize("language", i18n.shipped())
def test_each_catalog_compiles_and_translates(language):
    catalog = read_catalog(po_path(language), language)
    translations = compiled(catalog)
    for message in catalog:
        if message.id and not message.pluralizable:
            assert translations.gettext(message.id) == message.string
    assert i18n.translate(language, "Big model") != "Big model"
    assert i18n.translate(language, "Speculative Lab") == "Speculative Lab"    # no such message: itself


def test_the_check_finds_empty_fuzzy_and_mismatched_messages():
    catalog = Catalog(locale="es")
    catalog.add("Small model", "")
    catalog.add("Big model", "Modelo grande", flags=["fuzzy"])
    catalog.add("{value} ms", "{valor} ms")
    catalog.add("press <b>F</b>", "pulsa F")
    catalog.add(("{n} word", "{n} words"), ("una palabra", "{n} palabras", "{n} palabras"))   # one may drop {n}
    catalog.add(("{n} part", "{n} parts"), ("{n} parte", "{x} partes", "{n} partes"))
    found = problems(catalog)
    assert any("not translated: 'Small model'" in f for f in found)
    assert any("fuzzy: 'Big model'" in f for f in found)
    assert any("'{value} ms'" in f for f in found) and any("'press <b>F</b>'" in f for f in found)
    assert not any("word" in f for f in found) and any("'{n} part'" in f for f in found)
    assert fields("{ratio:.1f}× <b>{n}</b>") == fields("<b>{n}</b> {ratio:.1f}×")


def test_plural_forms_follow_each_catalogs_rule():
    one, many = "<b>{n}</b> guided step", "<b>{n}</b> guided steps"
    assert i18n.translate_plural("en", one, many, 1) == one and i18n.translate_plural("en", one, many, 2) == many
    assert i18n.translate_plural("es", one, many, 1) == "<b>{n}</b> paso guiado"
    assert i18n.translate_plural("es", one, many, 41) == "<b>{n}</b> pasos guiados"
    assert i18n.translate_plural("zh", one, many, 1) == i18n.translate_plural("zh", one, many, 41)   # one form
    assert read_catalog(po_path("zh"), "zh").num_plurals == 1


def test_the_command_checks_without_writing(capsys):
    before = {p: p.read_bytes() for p in [TEMPLATE, *(po_path(lang) for lang in i18n.shipped())]}
    assert main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert before == {p: p.read_bytes() for p in before}


def marked_inside_fstrings(tree: ast.AST) -> list[int]:
    """Lines where a catalog mark (`_("…")`, `ngettext("…", …)` …) of a written message is called inside
    an f-string's braces: Babel cannot read those on Python 3.11, so the message would never reach the
    catalog (a mark of a variable, `_(part["name"])`, translates a message marked elsewhere)."""
    marks = {name for name, _ in KEYWORDS}
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
            for inner in ast.walk(node) if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            and inner.func.id in marks and inner.args and isinstance(inner.args[0], ast.Constant)]


def test_no_message_is_marked_inside_an_fstring():
    assert marked_inside_fstrings(ast.parse('x = f"{_(\'Big model\')} and {_(n)}"\ny = _("fine")')) == [1]
    found = [f"{path.relative_to(REPO)}:{line}" for package in PACKAGES
             for path in ([REPO / package] if package.endswith(".py") else sorted((REPO / package).rglob("*.py")))
             for line in marked_inside_fstrings(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == [], f"mark the message outside the f-string (extraction cannot see it there): {found}"


def test_the_pseudo_locale_is_every_template_message_accented_longer_and_bracketed():
    template = [m for m in read_catalog(TEMPLATE) if m.id and not m.pluralizable]
    assert template
    for message in template:
        said = i18n.translate(i18n.PSEUDO, message.id)
        assert said == pseudo(message.id) and said.startswith("[") and said.endswith("]")
        assert fields(said) == fields(message.id)
        assert len(KEEP.sub("", said)) >= 1.4 * len(KEEP.sub("", message.id))    # the text a reader sees
    assert pseudo("Big {n} <b>model</b>").startswith("[Ɓîĝ {n} <b>ɱöðéļ</b>")
    assert i18n.translate_plural(i18n.PSEUDO, "of {total} word", "of {total} words", 20).startswith("[öƒ {total}")


def test_a_browsers_languages_are_negotiated():
    assert i18n.negotiate("fr-FR,es-CO;q=0.9,en;q=0.5") == "es"
    assert i18n.negotiate("zh-CN,zh;q=0.9") == "zh" and i18n.negotiate("de, en;q=0.1") == "en"
    assert i18n.negotiate("en-XA") is None and i18n.negotiate("") is None and i18n.negotiate("es;q=0") is None
    assert i18n.known("zh_Hans") == "zh" and i18n.known("EN-xa") == i18n.PSEUDO and i18n.known("fr") is None


def test_numbers_are_written_as_each_language_writes_them():
    assert i18n.percent("es", 0.15) == "15\xa0%" and i18n.percent("zh", 0.15) == "15%"
    assert i18n.number("es", 1234.5, 1) == "1234,5" and i18n.percent("es", 0.153, 1) == "15,3\xa0%"
    for value, digits in ((2.675, 2), (0.5, 0), (1234.5678, 1)):     # English: Python's own, to the digit
        assert i18n.number("en", value, digits) == f"{value:.{digits}f}"
    assert i18n.percent("en", 0.125) == f"{0.125:.0%}"
