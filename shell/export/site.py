"""The whole lab as a static folder: `python -m shell.export DIR [--pair NAME]` (or `python -m lab export`).

For each page (the landing page, the chapters and the bridge, in reading order): the page built as a
served session builds it (shell/export/build.py) written as HTML, then its controls explored
(shell/export/explore.py) and the recording written beside it (DIR/data/<page>.js) with the player
(DIR/static/export.js). Bokeh's and Panel's scripts and stylesheets are copied once into
DIR/static/ (shell/export/files.py). Progress, with a time estimate, goes to stderr.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from chapters import registry
from shell.export.build import build_page, page_title, without_live_inputs
from shell.export.explore import Explorer
from shell.export.files import Copier, page_file, page_html, relink, remote_addresses
from shell.tour_steps import TOUR
from uikit.styles import ASSETS

TOUR_STATES = 8        # states recorded per tour step (its components are the chapters', recorded there too)
TOUR_SECONDS = 20.0    # and the most seconds spent on it


def site_pages() -> list[str]:
    """The slugs of the exported pages, in reading order ("" the landing page)."""
    return [""] + [p.slug for p in registry.pages()]


class Progress:
    """One line per page on stderr: how far, and the time left at the pace so far."""

    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.stream, self.started, self.done = total, stream, time.monotonic(), 0

    def page(self, name: str, states: int) -> None:
        self.done += 1
        spent = time.monotonic() - self.started
        left = spent / self.done * (self.total - self.done)
        print(f"export: {self.done}/{self.total} {name or 'landing page'}: {states} recorded states; "
              f"{spent:.0f} s so far, about {left:.0f} s left", file=self.stream, flush=True)


def player_script(name: str, graph: dict) -> str:
    return f"window.SPECLAB_EXPORT = {json.dumps({'page': name, **graph}, separators=(',', ':'))};\n"


async def export_page(out: Path, copier: Copier, slug: str, service, tour_step: int | None = None,
                      **budget) -> int:
    """Write one page and its recording; returns the number of recorded states."""
    name = page_file(slug, tour_step)
    built = await build_page(slug, service, tour_step)
    without_live_inputs(built)
    text = copier.localize(page_html(built.doc, page_title(slug, tour_step)))
    graph = (await Explorer(slug, service, built.frame, tour_step, **budget).run()).to_json()
    data = copier.localize(relink(player_script(name[:-5], graph)))
    (out / "data").mkdir(exist_ok=True)
    (out / "data" / f"{name[:-5]}.js").write_text(data)
    tail = f'<script src="data/{name[:-5]}.js"></script>\n<script src="static/export.js"></script>\n</body>'
    text = text.replace("</body>", tail, 1)
    remote = remote_addresses(text)
    if remote:
        raise RuntimeError(f"{name} would load {remote[0]}: the export must not need the network.")
    (out / name).write_text(text)
    return len(graph["nodes"])


async def export_site(out: Path, service, slugs: list[str] | None = None, tour_steps: int | None = None,
                      **budget) -> dict:
    """Write the static lab into `out`; returns what was written (pages, recorded states, bytes).
    `tour_steps`: the guided tour's first N steps (default: all; 0 none), a page each.
    `budget`: the most states (max_nodes) and seconds (max_seconds) one page's recording takes."""
    out.mkdir(parents=True, exist_ok=True)
    copier = Copier(out)
    (out / "static").mkdir(exist_ok=True)
    shutil.copyfile(ASSETS / "export.js", out / "static" / "export.js")
    slugs = site_pages() if slugs is None else slugs
    steps = list(range(1, (len(TOUR) if tour_steps is None else min(tour_steps, len(TOUR))) + 1))
    progress = Progress(len(slugs) + len(steps))
    states = {}
    for slug in slugs:
        states[page_file(slug)] = await export_page(out, copier, slug, service, **budget)
        progress.page(slug, states[page_file(slug)])
    tour_budget = {"max_nodes": min(budget.get("max_nodes", TOUR_STATES), TOUR_STATES),
                   "max_seconds": min(budget.get("max_seconds", TOUR_SECONDS), TOUR_SECONDS)}
    for step in steps:     # the tour: a page per step (its keys open the next step's page)
        name = page_file("", step)
        states[name] = await export_page(out, copier, "", service, step, **tour_budget)
        progress.page(f"tour step {step}", states[name])
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return {"pages": states, "bytes": size}
