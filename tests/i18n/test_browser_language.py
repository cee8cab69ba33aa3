"""A page's browser code writes numbers and counts as Python writes them on that page
(uikit.language.browser_language, assets/analytic.js: analytic.number, analytic.plural, analytic.fill),
run in node: the same digits, decimal sign, separators and rounding (Babel's, half to even on the
shortest decimal, in Chinese and Spanish; Python's own in English), and the same form of a count."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from lab import i18n
from uikit.browser import js_code
from uikit.language import browser_language, ngettext, plural_samples, use_language

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

# Reads {"code": analytic.js, "calls": [[function name, args...], ...]}, prints the results as JSON; a
# call of "plural" is [rule, forms, n] and gives the form the rule picks.
RUN = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"))
const analytic = new Function(input.code + "\\nreturn analytic")()
const out = input.calls.map(([name, ...args]) => name === "plural" ? analytic.plural(args[0])(args[1], args[2])
                                                                     : analytic[name](...args))
process.stdout.write(JSON.stringify(out))
"""
LANGUAGES = ("en", "es", "zh", i18n.PSEUDO)


def run(calls: list) -> list:
    done = subprocess.run(["node", "-e", RUN], input=json.dumps({"code": js_code("analytic"), "calls": calls}),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def page(language: str) -> Document:
    doc = Document()
    use_language(language, doc)
    return doc


def test_numbers_are_written_as_python_writes_them_in_each_language():
    rng = np.random.default_rng(11)
    values = ([k / 8 for k in range(-9, 18)] + [k / 1000 + 0.0005 for k in range(0, 40)] + [0.3125, 2.675, 1.005,
              0.0125, 0.1235, 0.25 / 0.8, 0.6 / 0.8, 1e-7, 3e-5, 1234.5, 1234567.891, 999.9996, 0.9995, 0, 5, 1000,
              -0.0001, -2.5] + rng.uniform(0, 1, 300).tolist() + rng.uniform(0, 50_000, 50).tolist())
    cases = [(language, x, d, group) for language in LANGUAGES for x in values for d in (0, 1, 2, 3)
             for group in (False, True)]
    calls = [["number", x, d, i18n.number_format(language), group] for language, x, d, group in cases]
    got = run(calls)
    want = [i18n.number(language, x, d, group) for language, x, d, group in cases]
    wrong = [(case, g, w) for case, g, w in zip(cases, got, want) if g != w]
    assert not wrong, wrong[:10]
    assert run([["number", 2.675, 2, i18n.number_format("es")], ["number", 2.675, 2, i18n.number_format("en")],
                ["number", 12345.5, 1, i18n.number_format("es"), True]]) == ["2,68", "2.67", "12.345,5"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_count_takes_the_form_gettext_gives_it(language):
    counts = [0, 1, 2, 3, 5, 11, 21, 100, 101, 1000, 1001, 10**6, 2 * 10**6, 10**6 + 1]
    with set_curdoc(page(language)):
        rule = browser_language()["plural"]
        forms = [ngettext("{a} output is A", "{a} outputs are A", n) for n in plural_samples()]
        want = [ngettext("{a} output is A", "{a} outputs are A", n) for n in counts]
    assert len(forms) == len(set(forms)) == {"es": 3, "zh": 1}.get(language, 2)    # chapter 6's, every form
    assert run([["plural", rule, forms, n] for n in counts]) == want


def test_a_template_is_filled_as_str_format_fills_it():
    template = "{{kept}}: {n} of <b>{total}</b> — {n}"
    assert run([["fill", template, {"n": 3, "total": "1.000"}]]) == [template.format(n=3, total="1.000")]


def test_a_plural_rule_is_nothing_but_arithmetic():
    done = subprocess.run(["node", "-e", js_code("analytic") + '\nanalytic.plural("n; process.exit(3)")'],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "not a plural rule" in done.stderr
