"""What `python -m lab i18n` extracts: Babel's Python extractor, plus the pages' metadata.

A chapter's title is a class attribute the navigation and the landing page show for every chapter,
and the parts' names and summaries are a table in chapters/registry.py; both are read at display
time through the catalog (`_(page.title)`), so they are extracted here from the source as it is,
without a marker in every chapter module. lab/i18n/babel.cfg names the files and what to take:

    [extractors]
    pages = lab.i18n.extract:pages
    [pages: chapters/ch*.py]
    attributes = title          # class attributes' strings
    [pages: chapters/registry.py]
    tables = _PARTS             # every string value of these module-level dicts (dict(...) too)
"""
from __future__ import annotations

import ast
from typing import Iterator

from babel.messages.extract import extract_python


def _words(option) -> set[str]:
    return set(str(option or "").replace(",", " ").split())


def _strings(node: ast.AST) -> Iterator[ast.Constant]:
    """Every string value of a dict literal or a `dict(...)` call, nested (keys are not values)."""
    if isinstance(node, ast.Dict):
        for value in node.values:
            yield from _strings(value)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        for keyword in node.keywords:
            yield from _strings(keyword.value)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node


def metadata(tree: ast.Module, attributes: set[str], tables: set[str]) -> Iterator[tuple[int, str]]:
    """(line, text) of the class attributes named `attributes` and the values of the module-level
    dicts named `tables`."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if (isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
                        and isinstance(item.value.value, str) and item.value.value
                        and any(isinstance(t, ast.Name) and t.id in attributes for t in item.targets)):
                    yield item.value.lineno, item.value.value
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in tables for t in node.targets):
            for constant in _strings(node.value):
                yield constant.lineno, constant.value


def pages(fileobj, keywords, comment_tags, options):
    """Babel extraction method: the module's marked messages (`_`, `ngettext`, `N_`), then its
    metadata (`options`: `attributes`, `tables`)."""
    yield from extract_python(fileobj, keywords, comment_tags, options)
    fileobj.seek(0)
    tree = ast.parse(fileobj.read().decode(options.get("encoding", "utf-8")))
    for line, text in metadata(tree, _words(options.get("attributes")), _words(options.get("tables"))):
        yield line, None, text, []
