"""The whole lab as a static folder: `python -m export DIR [--pair NAME]` (or `python -m lab export`).

For each page (the landing page, the chapters and the bridge, in reading order): the page built as a
served session builds it (export/build.py) written as HTML, then its controls explored
(export/explore.py) and the recording written beside it (DIR/data/<page>.js) with the player
(DIR/static/export.js; a tour step's page also DIR/static/export-tour.js, which carries what was
pressed on the steps before it: export/tourline.py). Bokeh's and Panel's scripts and
stylesheets are copied once into DIR/static/ (export/files.py); a link to a page the export
left out opens DIR/absent.html, which says so. What a page says of the machine that timed it is said
of the recording (export/wording.py). Progress, with a time estimate, goes to stderr.
Every page speaks the export's language, and so do the player's sentences (`player_words`), the
tour's frame page and absent.html (export/language.py); an export in several languages writes each
into a folder of its own (`export_languages`).
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from chapters import registry
from export.build import build_page, without_live_inputs
from export.deck import write_deck
from export.explore import Explorer
from export.files import Contents, Copier, page_file, page_html, remote_addresses, write_absent
from export.language import chooser_html, html_lang, speaking
from export.wording import as_recorded
from lab import i18n
from shell.tour.steps import TOUR
from uikit.language import browser_language, gettext as _, ngettext, plural_samples
from uikit.styles import ASSETS

TOUR_STATES = 8        # states recorded per tour step (its components are the chapters', recorded there too)
TOUR_SECONDS = 20.0    # and the most seconds spent on it
STEP_SHARE = 0.1       # a tour step's time as a share of a chapter page's (bench/export.py: 1.5 s vs 24 s)


class FolderTaken(ValueError):
    """The folder holds files that are no earlier export: nothing is written there."""


EXPORT_MARK = Path("static") / "export.js"     # every export writes its player there


def language_folders(out: Path) -> list[Path]:
    """The folders of an earlier export in several languages (DIR/<code>/, each an export itself)."""
    if not out.is_dir():
        return []
    return [entry for entry in out.iterdir() if entry.is_dir() and i18n.known(entry.name) == entry.name
            and (entry / EXPORT_MARK).is_file()]


def make_room(out: Path) -> None:
    """Make `out` ready for an export: created if new; an earlier export's own files (its pages, data/
    and static/, an export in several languages' folders) removed, so the new export replaces it; a
    folder holding anything else refused."""
    if out.exists() and not out.is_dir():
        raise FolderTaken(f"{out} is a file, not a folder: choose a new or empty folder for the export.")
    if out.is_dir() and any(out.iterdir()):
        earlier = language_folders(out)
        if not (out / EXPORT_MARK).is_file() and not earlier:
            raise FolderTaken(f"{out} already holds files that are not an export of the lab: choose a new "
                              "or empty folder (an earlier export there is replaced).")
        for entry in out.iterdir():
            if entry.is_dir() and (entry.name in ("data", "static") or entry in earlier):
                shutil.rmtree(entry)
            elif entry.is_file() and entry.suffix == ".html":
                entry.unlink()
    out.mkdir(parents=True, exist_ok=True)


def start_folder(out: Path) -> None:
    """`out` made ready (make_room) with the player's scripts in its static/."""
    make_room(out)
    (out / "static").mkdir(exist_ok=True)
    for script in ("export.js", "export-tour.js", "export-frame.js", "export-wrapper.js"):
        shutil.copyfile(ASSETS / script, out / "static" / script)


def site_pages() -> list[str]:
    """The slugs of the exported pages, in reading order ("" the landing page)."""
    return [""] + [p.slug for p in registry.pages()]


class Progress:
    """One line per page on stderr: how far, the page's time, and the time left. Pages and tour
    steps are paced apart (a tour step records far less): each kind's remaining pages at its own
    pace so far; tour steps not yet begun at the pages' pace times `step_share`."""

    def __init__(self, pages: int, steps: int, step_share: float = STEP_SHARE, stream=sys.stderr,
                 clock=time.monotonic):
        self.left = {"page": pages, "step": steps}
        self.spent = {"page": 0.0, "step": 0.0}
        self.done = {"page": 0, "step": 0}
        self.step_share, self.stream, self.clock = step_share, stream, clock
        self.started = self.last = clock()

    def pace(self, kind: str) -> float:
        if self.done[kind]:
            return self.spent[kind] / self.done[kind]
        if kind == "step" and self.done["page"]:
            return self.pace("page") * self.step_share
        return 0.0

    def estimate(self) -> float:
        """Seconds left at the pace so far."""
        return sum(self.pace(kind) * n for kind, n in self.left.items())

    def page(self, name: str, states: int, kind: str = "page") -> None:
        now = self.clock()
        took, self.last = now - self.last, now
        self.spent[kind] += took
        self.done[kind] += 1
        self.left[kind] -= 1
        done, total = sum(self.done.values()), sum(self.done.values()) + sum(self.left.values())
        print(f"export: {done}/{total} {name or 'landing page'}: {states} recorded states in {took:.0f} s; "
              f"{now - self.started:.0f} s so far, about {minutes(self.estimate())} left",
              file=self.stream, flush=True)


def minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def player_words(graph: dict) -> dict:
    """The sentences the player says (assets/export.js, export-tour.js), in the current language: the
    player writes no English of its own. A tour exported in part says where its other steps are; a
    tour step's page, how many of the presses made on its chapter's steps it has no recording of
    (`line`: a form per plural_samples() count of the presses made, `plural` picks one, the browser
    fills {missed}, {made} and {followed})."""
    words = {"close": _("Close this note"),
             "answer_kept": _("Your answer is kept, but this state was not recorded with it in the offline copy; "
                              "the served lab shows both."),
             "answer_missing": _("This answer was not recorded in this state of the offline copy; the served lab "
                                 "takes it live."),
             "step_missing": _("This step was not recorded in the offline copy; the served lab computes it live.")}
    tour = graph.get("tour") or {}
    if tour.get("steps"):
        rest = tour["of"] - tour["steps"]
        words["tour_end"] = ngettext(
            "This copy of the tour ends at step {step}; its other {rest} step is in the served lab and in a "
            "full export.", "This copy of the tour ends at step {step}; its other {rest} steps are in the served "
            "lab and in a full export.", rest).format(step=tour["steps"], rest=rest)
    if tour:
        keep = {"missed": "{missed}", "made": "{made}", "followed": "{followed}"}
        words["line"] = [ngettext(
            "The offline copy has no recording of {missed} of the {made} press made on chapter {chapter}'s tour "
            "steps at this point, so step {step} shows the chapter as the other {followed} leave it (the served "
            "tour keeps every press).",
            "The offline copy has no recording of {missed} of the {made} presses made on chapter {chapter}'s "
            "tour steps at this point, so step {step} shows the chapter as the other {followed} leave it (the "
            "served tour keeps every press).", n).format(chapter=tour["chapter"], step=tour["step"], **keep)
            for n in plural_samples()]
        words["plural"] = browser_language()["plural"]
    return words


def player_script(name: str, graph: dict, words: dict | None = None) -> str:
    said = {"words": words} if words is not None else {}
    return f"window.SPECLAB_EXPORT = {json.dumps({'page': name, **graph, **said}, separators=(',', ':'))};\n"


async def export_page(out: Path, copier: Copier, slug: str, service, tour_step: int | None = None,
                      language: str = i18n.DEFAULT, menu: tuple[str, ...] = (), **budget) -> int:
    """Write one page and its recording, in `language` (with links to it in those of `menu`);
    returns the number of recorded states."""
    name = page_file(slug, tour_step)
    steps = copier.contents.steps
    built = await build_page(slug, service, tour_step, steps, language, menu)
    without_live_inputs(built)
    in_tour = tour_step is not None
    text = as_recorded(copier.localize(html_lang(page_html(built.doc, built.title), language), in_tour), language)
    graph = (await Explorer(slug, service, built.frame, tour_step, tour_steps=steps, language=language, menu=menu,
                            **budget).run()).to_json()
    with speaking(language):
        words = player_words(graph)
    data = as_recorded(copier.localize(player_script(name[:-5], graph, words), in_tour), language)
    (out / "data").mkdir(exist_ok=True)
    (out / "data" / f"{name[:-5]}.js").write_text(data)
    tour = '<script src="static/export-tour.js"></script>\n' if tour_step is not None else ""
    tail = f'<script src="data/{name[:-5]}.js"></script>\n{tour}<script src="static/export.js"></script>\n</body>'
    # the frame script first, before Bokeh's: a tour key pressed while the page loads waits for its tour
    text = text.replace("</title>", '</title>\n<script src="static/export-frame.js"></script>', 1).replace("</body>", tail, 1)
    remote = remote_addresses(text)
    if remote:
        raise RuntimeError(f"{name} would load {remote[0]}: the export must not need the network.")
    (out / name).write_text(text)
    return len(graph["nodes"])


async def export_site(out: Path, service, slugs: list[str] | None = None, tour_steps: int | None = None,
                      language: str = i18n.DEFAULT, menu: tuple[str, ...] = (), **budget) -> dict:
    """Write the static lab into `out`; returns what was written (pages, recorded states, bytes).
    `slugs`: these pages and the landing page that links them (default: every page); `tour_steps`:
    the guided tour's first N steps, a page each (default: all of them with every page, none with
    `slugs`; 0 none). `out` must be new, empty or an earlier export (make_room). Every page speaks
    `language`, with links to itself in the languages of `menu` (an export in several: `export_languages`).
    `budget`: the most states (max_nodes) and seconds (max_seconds) one page's recording takes."""
    start_folder(out)
    if tour_steps is None:
        tour_steps = len(TOUR) if slugs is None else 0
    steps = list(range(1, max(0, min(tour_steps, len(TOUR))) + 1))
    if slugs is not None and "" not in slugs:
        slugs = ["", *slugs]       # the landing page (index.html), which links the pages exported
    whole = slugs is None or set(site_pages()) <= set(slugs)
    copier = Copier(out, Contents.of(None if whole else slugs, None if len(steps) == len(TOUR) else len(steps)))
    slugs = site_pages() if slugs is None else slugs
    tour_budget = {"max_nodes": min(budget.get("max_nodes", TOUR_STATES), TOUR_STATES),
                   "max_seconds": min(budget.get("max_seconds", TOUR_SECONDS), TOUR_SECONDS)}
    progress = Progress(len(slugs), len(steps))
    states = {}
    page = {"language": language, "menu": menu}
    for slug in slugs:
        states[page_file(slug)] = await export_page(out, copier, slug, service, **page, **budget)
        progress.page(slug, states[page_file(slug)])
    for step in steps:     # the tour: a page per step (its keys open the next step's page)
        name = page_file("", step)
        states[name] = await export_page(out, copier, "", service, step, **page, **tour_budget)
        progress.page(f"tour step {step}", states[name], "step")
    with speaking(language):
        write_deck(out, len(steps), copier.contents.has(""))
        write_absent(out, copier.contents)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"pages": states, "bytes": size}


async def export_languages(out: Path, service, slugs: list[str] | None = None, tour_steps: int | None = None,
                           languages: list[str] | None = None, **budget) -> dict:
    """`export_site` in each of `languages` (default: English alone, into `out` itself); in several,
    each into `out`/<code>/ with links between them, under `out`/index.html, which offers them.
    Returns what was written: pages (as "<code>/<file>" in several) and bytes."""
    languages = languages or [i18n.DEFAULT]
    if len(languages) == 1:
        return await export_site(out, service, slugs, tour_steps, languages[0], **budget)
    make_room(out)
    pages = {}
    for language in languages:
        print(f"export: the pages in {language}, into {out / language}", file=sys.stderr, flush=True)
        written = await export_site(out / language, service, slugs, tour_steps, language, tuple(languages), **budget)
        pages.update({f"{language}/{name}": n for name, n in written["pages"].items()})
    (out / "index.html").write_text(chooser_html(languages))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"pages": pages, "bytes": size}
