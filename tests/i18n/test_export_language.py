"""`python -m lab export DIR --lang CODE` (tiny pair, one page): the offline copy in that language.
Chapter 6 exported in Chinese opens from file:// in chromium with every other request blocked and no
console error: `<html lang>` is Chinese, its heading, its offline note and its buttons are, a predict
answer pressed on its Chinese button is taken (the layers are recorded under the poll's English key)
and Draw 1000 draws with the sentence in Chinese. In Spanish the browser's draws write "u = 0,…" (the
language's number format, from Python). absent.html and the player's sentences speak the page's
language; a language the lab lacks is refused in one sentence that names those it speaks, before
anything is written. The export's own words outside a page (export/language.py, files.py, deck.py,
wording.py) in each language, and `--lang all`'s folders, menu and chooser, without a browser.
"""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lab import i18n
from tests.helpers import wait_until
from tests.ui.export_helpers import made_once, offline, open_file   # noqa: F401  (the offline page fixture)
from tests.ui.helpers import ROOT, chromium, deep_text, has

# the browser tests here live with the language tests: marked so, they run last (tests/conftest.py)
in_browser = pytest.mark.browser

SLUG = "accept-rule"
CHOICE = "Always keep it: the draft proposed it"


def export(out: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "lab", "export", str(out), "--pair", "tiny", "--page", SLUG,
                           "--states", "3", "--seconds", "10", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def exported(tmp_path_factory, language: str) -> Path:
    """Chapter 6 exported in `language`, once in the run (made_once): the module's browser tests run
    after every other file's, so its fixtures would otherwise be made again for them."""
    def make(out):
        done = export(out, "--lang", language)
        assert done.returncode == 0, done.stderr[-3000:]
    return made_once(tmp_path_factory, f"export-language-{language}", make)


@pytest.fixture(scope="module")
def zh_site(tmp_path_factory):
    return exported(tmp_path_factory, "zh")


@pytest.fixture(scope="module")
def es_site(tmp_path_factory):
    return exported(tmp_path_factory, "es")


@pytest.fixture(scope="module")
def browser():
    """chromium for this module's pages (tests/ui's own fixture is not seen from tests/i18n)."""
    with chromium() as b:
        yield b


def said(language: str, message: str) -> str:
    return i18n.translate(language, message)


def shown_text(pg) -> str:
    """The page's text inside shadow roots too (tests.ui.helpers.deep_text), its scripts and styles left out."""
    return pg.evaluate("""() => { const out = []; const walk = (n) => { if (n.shadowRoot) walk(n.shadowRoot);
      for (const c of n.childNodes) { if (c.nodeType === 3) out.push(c.textContent);
        else if (c.nodeType === 1 && !['SCRIPT', 'STYLE'].includes(c.tagName)) walk(c); } };
      walk(document.body); return out.join(' ').replace(/\\s+/g, ' '); }""")


def decoded(path: Path) -> str:
    """An exported file's text as a student reads it: HTML unescaped, JSON's \\u escapes read."""
    text = html.unescape(html.unescape(path.read_text()))
    return re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), text)


@in_browser
def test_the_chinese_page_opens_offline_in_chinese(zh_site, offline):
    open_file(offline, zh_site, f"{SLUG}.html")
    assert offline.evaluate("document.documentElement.lang").startswith("zh")
    from chapters import registry
    title = said("zh", registry.page_by_slug(SLUG).title)
    heading = offline.locator("h1").filter(visible=True).first.inner_text()
    assert heading.strip() == title, heading
    assert re.search(r"[\u4e00-\u9fff]", offline.title()), offline.title()
    from export.build import offline_note
    note = said("zh", offline_note())      # English outside a page
    assert has(offline, html.unescape(re.sub(r"<[^>]+>", "", note)))
    # the predict card's Chinese button answers it (its layers are under the poll's English key)
    offline.get_by_role("button", name=said("zh", CHOICE), exact=True).click()
    wait_until(lambda: has(offline, said("zh", "You said <b>{answer}</b>. {hint}").split("<b>")[0]),
               message="the card to take the answer")
    draws = said("zh", "Draw 1000")
    assert draws != "Draw 1000"
    offline.get_by_role("button", name=draws, exact=True).click()
    last = said("zh", "Last of {n} draws: the draft proposed <b>{token}</b>; u = {u} {rel} min(1, p/q) = "
                      "{threshold} → <b>{verdict}</b>")
    wait_until(lambda: has(offline, last.split("{n}")[0]), message="the draws, said in Chinese")
    text = shown_text(offline)
    for english in ("offline copy", "not recorded", "Last of", "You said", "Draw 1000"):
        assert english not in text, english


@in_browser
def test_the_spanish_page_writes_numbers_as_spanish_does(es_site, offline):
    open_file(offline, es_site, f"{SLUG}.html")
    assert offline.evaluate("document.documentElement.lang") == "es"
    offline.get_by_role("button", name=said("es", "Draw 1000"), exact=True).click()
    wait_until(lambda: re.search(r"u = 0,\d{3}", deep_text(offline)), message="u with a decimal comma")
    assert not re.search(r"u = 0\.\d{3}", deep_text(offline))
    assert "grabación" in decoded(es_site / f"{SLUG}.html")       # the offline note's recording machine


def test_the_exports_own_files_speak_its_language(zh_site, es_site):
    absent = (zh_site / "absent.html").read_text()
    assert '<html lang="zh' in absent and said("zh", "Back to the lab") in absent
    assert said("zh", "only some of its pages and none of the guided tour") in absent
    assert said("es", "Not in this copy of the lab") in (es_site / "absent.html").read_text()
    data = (zh_site / "data" / f"{SLUG}.js").read_text()
    words = json.loads(data[data.index("=") + 1:].strip().rstrip(";"))["words"]
    assert words["step_missing"] == said("zh", "This step was not recorded in the offline copy; the served lab "
                                                "computes it live.")
    assert re.search(r"[\u4e00-\u9fff]", words["close"]) and "line" not in words      # no tour step: no line
    index = decoded(zh_site / "index.html")
    assert '<html lang="zh' in index and 'href="accept-rule.html"' in index


def test_a_language_the_lab_lacks_is_refused_in_one_sentence(tmp_path):
    out = tmp_path / "site"
    done = export(out, "--lang", "fr")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "'fr'" in lines[0], lines
    assert all(code in lines[0] for code in (i18n.DEFAULT, *i18n.shipped(), "all")), lines[0]
    assert not out.exists()


def test_the_recording_says_the_busy_machine_and_this_machine_in_the_pages_language():
    from export.language import speaking
    from export.wording import as_recorded, escaped
    from tests.helpers import made_profile
    from uikit.language import gettext as _, ngettext
    from uikit.verdicts import why_busy
    for language in ("zh", "es"):
        with speaking(language):
            busy = why_busy(made_profile(busy=True, load=5.25, cores=2))
            noisy = why_busy(made_profile(busy=True, spread=0.734))
            measured = _("Measured on this machine: {speedup} — {measured}.")
            recorded = ngettext("Recorded on a machine that was busy (load {load} on {cores} core while timing), so "
                                "these recorded figures are unreliable.", "Recorded on a machine that was busy (load "
                                "{load} on {cores} cores while timing), so these recorded figures are unreliable.", 2)
            machine = _("the recording machine")
        want = recorded.format(load=i18n.number(language, 5.25, 1), cores=2)
        for form in (lambda s: s, escaped):      # as a page's text and as its JSON write it
            assert as_recorded(form(busy), language) == form(want)
            assert as_recorded(form(noisy), language) != form(noisy)
            assert form(machine) in as_recorded(form(measured), language)
    assert as_recorded("Measured on this machine. This machine's cost.") == (
        "Measured on the recording machine. The recording machine's cost.")


def test_a_page_in_several_languages_links_to_itself_in_each_and_a_chooser_offers_them():
    from export.language import chooser_html, languages, menu_html, speaking
    assert languages("all") == [i18n.DEFAULT, *i18n.shipped()] and languages("zh-CN") == ["zh"]
    assert languages(None) == [i18n.DEFAULT]
    with speaking("es"):
        menu = menu_html("es", "accept-rule.html", languages("all"))
        step = menu_html("es", "tour-5.html", languages("all"))
    assert 'href="../zh/accept-rule.html" lang="zh-Hans"' in menu and 'href="../es/accept-rule.html"' in menu
    assert 'aria-label="Idioma"' in menu and menu.count("aria-current") == 1
    assert 'href="../en/tour.html#step=5"' in step and 'target="_top"' in step
    chooser = chooser_html(languages("all"))
    assert 'href="zh/index.html"' in chooser and 'href="es/index.html"' in chooser and "中文" in chooser
    assert i18n.translate("es", "Open the offline copy of the lab in this language") in chooser


def test_an_export_in_several_languages_is_replaced_by_the_next(tmp_path):
    from export.site import FolderTaken, make_room
    for code in ("en", "zh"):
        (tmp_path / code / "static").mkdir(parents=True)
        (tmp_path / code / "static" / "export.js").write_text("")
    (tmp_path / "index.html").write_text("chooser")
    make_room(tmp_path)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "notes").mkdir()
    with pytest.raises(FolderTaken):
        make_room(tmp_path)
