"""Chapter 6's draws across its tour steps in the export (issue 49): the draws are computed in the
browser (assets/ch06_draws.js), so a step's page holds the code of the chapter's draw presses even
where it does not show their button, names it in its recording (`computed`), and records the
lecture's Draw on step 21 without Python's draws; the player (assets/export-tour.js) runs that code
for each press made on the chapter's earlier steps, in order, and counts none of them as missed."""
from __future__ import annotations

import asyncio
import json
import shutil
import subprocess

import pytest
from bokeh.models import CustomJS

from export.build import build_page
from export.explore import Explorer
from shell.tour.steps import TOUR
from tests.ui.helpers import ROOT

DRAW_STEP = next(i for i, s in enumerate(TOUR, 1) if s.get("action") == "Draw")   # step 20: Draw shown
AFTER = DRAW_STEP + 1                                                           # step 21: Draw not shown


def test_the_step_after_draw_holds_the_draws_code_and_records_no_python_draws(tiny_service, extension):
    async def go():
        built = await build_page("", tiny_service, AFTER)
        graph = await Explorer("", tiny_service, built.frame, AFTER, max_nodes=2, max_seconds=60).run()
        return built, graph
    built, graph = asyncio.run(go())
    chapter = built.tour_chapter
    assert [b.label for b in built.unshown] == ["Draw"]            # the one press the step does not show
    assert set(graph.computed) == {"draw_button", "draw_many_button", "reset_button"}
    code = built.doc.get_model_by_id(graph.computed["draw_button"])
    assert isinstance(code, CustomJS) and code.args["n"] == 1 and code not in built.doc.roots
    assert graph.to_json()["computed"] == graph.computed
    patch, _ = graph.nodes[0].edges["~Draw"]               # the lecture's Draw, pressed on step 20
    assert graph.names["~Draw"] == "draw_button"
    assert not chapter.proposed.any()                      # Python drew nothing: the browser draws
    changed = {e.get("model", {}).get("id") for e in graph.patches[patch]["events"]}
    assert chapter.figs.freq_src.id not in changed and chapter.figs.share_src.id not in changed


def test_a_step_that_shows_no_draw_button_follows_a_draw_made_elsewhere(tiny_service, extension):
    """Step 18 (the predict card) records the chapter's draws as presses of its own, so a Draw made on
    step 20 and then ← reveals the card there as the served tour does."""
    step = DRAW_STEP - 2
    async def go():
        built = await build_page("", tiny_service, step)
        return await Explorer("", tiny_service, built.frame, step, max_nodes=4, max_seconds=60).run()
    graph = asyncio.run(go())
    assert {graph.names[k] for k in graph.nodes[0].edges} >= {"draw_button", "draw_many_button"}


FOLLOW = """
const fs = require("fs")
const input = JSON.parse(fs.readFileSync(0, "utf8"))
global.sessionStorage = { store: {}, getItem(k) { return this.store[k] ?? null },
  setItem(k, v) { this.store[k] = String(v) }, removeItem(k) { delete this.store[k] } }
Object.defineProperty(sessionStorage, "store", { enumerable: false })
sessionStorage.setItem("speclab-export-tour:6", JSON.stringify(input.log))
sessionStorage.setItem("speclab-export-tour-next", String(input.data.tour.step))
global.performance = { getEntriesByType: () => [{ type: "navigate" }] }
global.location = { search: "" }
global.window = global
eval(fs.readFileSync(input.script, "utf8"))
console.log(JSON.stringify(window.SpeclabTourLine(input.data).open()))
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_player_runs_the_code_of_every_computed_press_in_order():
    """Draw (recorded), Draw 1000 and Draw again (not recorded on this page, computed), then a press
    the page neither records nor computes: the codes run in the order pressed; only the last is missed."""
    data = {"tour": {"chapter": 6, "step": AFTER}, "names": {"~Draw": "draw_button", "p9": "draw_many_button"},
            "computed": {"draw_button": "c1", "draw_many_button": "c2"}, "jumps": {},
            "nodes": [{"edges": {"~Draw": [0, 1]}, "context": ""}, {"edges": {}, "context": ""}]}
    log = ["draw_button", "draw_many_button", "draw_button", "no such press"]
    done = subprocess.run(["node", "-e", FOLLOW], input=json.dumps({"data": data, "log": log,
                          "script": str(ROOT / "assets" / "export-tour.js")}), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"node": 1, "missed": 1, "made": 4, "codes": ["c1", "c2", "c1"]}
