"""The whole lab as a static folder: `python -m export DIR [--pair NAME]` (or `python -m lab export`).

For each page (the landing page, the chapters and the bridge, in reading order): the page built as a
served session builds it (export/build.py) written as HTML, then its controls explored
(export/explore.py) and the recording written beside it (DIR/data/<page>.js) with the player
(DIR/static/export.js; a tour step's page also DIR/static/export-tour.js, which carries what was
pressed on the steps before it: export/tourline.py). Bokeh's and Panel's scripts and
stylesheets are copied once into DIR/static/ (export/files.py); a link to a page the export
left out opens DIR/absent.html, which says so. What a page says of the machine that timed it is said
of the recording (export/wording.py). Progress, with a time estimate, goes to stderr.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from chapters import registry
from export.build import build_page, page_title, without_live_inputs
from export.deck import write_deck
from export.explore import Explorer
from export.files import Contents, Copier, page_file, page_html, remote_addresses, write_absent
from export.wording import as_recorded
from shell.tour.steps import TOUR
from uikit.styles import ASSETS

TOUR_STATES = 8        # states recorded per tour step (its components are the chapters', recorded there too)
TOUR_SECONDS = 20.0    # and the most seconds spent on it
STEP_SHARE = 0.1       # a tour step's time as a share of a chapter page's (bench/export.py: 1.5 s vs 24 s)


class FolderTaken(ValueError):
    """The folder holds files that are no earlier export: nothing is written there."""


EXPORT_MARK = Path("static") / "export.js"     # every export writes its player there


def make_room(out: Path) -> None:
    """Make `out` ready for an export: created if new; an earlier export's own files (its pages, data/
    and static/) removed, so the new export replaces it; a folder holding anything else refused."""
    if out.exists() and not out.is_dir():
        raise FolderTaken(f"{out} is a file, not a folder: choose a new or empty folder for the export.")
    if out.is_dir() and any(out.iterdir()):
        if not (out / EXPORT_MARK).is_file():
            raise FolderTaken(f"{out} already holds files that are not an export of the lab: choose a new "
                              "or empty folder (an earlier export there is replaced).")
        for entry in out.iterdir():
            if entry.is_dir() and entry.name in ("data", "static"):
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


def player_script(name: str, graph: dict) -> str:
    return f"window.SPECLAB_EXPORT = {json.dumps({'page': name, **graph}, separators=(',', ':'))};\n"


async def export_page(out: Path, copier: Copier, slug: str, service, tour_step: int | None = None,
                      **budget) -> int:
    """Write one page and its recording; returns the number of recorded states."""
    name = page_file(slug, tour_step)
    steps = copier.contents.steps
    built = await build_page(slug, service, tour_step, steps)
    without_live_inputs(built)
    in_tour = tour_step is not None
    text = as_recorded(copier.localize(page_html(built.doc, page_title(slug, tour_step)), in_tour))
    graph = (await Explorer(slug, service, built.frame, tour_step, tour_steps=steps, **budget).run()).to_json()
    data = as_recorded(copier.localize(player_script(name[:-5], graph), in_tour))
    (out / "data").mkdir(exist_ok=True)
    (out / "data" / f"{name[:-5]}.js").write_text(data)
    tour = '<script src="static/export-tour.js"></script>\n' if tour_step is not None else ""
    tail = (f'<script src="static/export-frame.js"></script>\n<script src="data/{name[:-5]}.js"></script>\n'
            f'{tour}<script src="static/export.js"></script>\n</body>')
    text = text.replace("</body>", tail, 1)
    remote = remote_addresses(text)
    if remote:
        raise RuntimeError(f"{name} would load {remote[0]}: the export must not need the network.")
    (out / name).write_text(text)
    return len(graph["nodes"])


async def export_site(out: Path, service, slugs: list[str] | None = None, tour_steps: int | None = None,
                      **budget) -> dict:
    """Write the static lab into `out`; returns what was written (pages, recorded states, bytes).
    `slugs`: these pages and the landing page that links them (default: every page); `tour_steps`:
    the guided tour's first N steps, a page each (default: all of them with every page, none with
    `slugs`; 0 none). `out` must be new, empty or an earlier export (make_room).
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
    for slug in slugs:
        states[page_file(slug)] = await export_page(out, copier, slug, service, **budget)
        progress.page(slug, states[page_file(slug)])
    for step in steps:     # the tour: a page per step (its keys open the next step's page)
        name = page_file("", step)
        states[name] = await export_page(out, copier, "", service, step, **tour_budget)
        progress.page(f"tour step {step}", states[name], "step")
    write_deck(out, len(steps), copier.contents.has(""))
    write_absent(out, copier.contents)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"pages": states, "bytes": size}
