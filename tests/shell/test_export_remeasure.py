"""Chapters 12 and 13 measure a newly chosen preset or draft variant themselves once the student has
measured (their `on_settings_changed`): in the export, a choice pressed in a measured state opens in
that choice's recorded first result, and one pressed before measuring opens unmeasured, as served
(export/combos.py). The player (assets/export.js) runs in node over stand-in Bokeh models."""
from __future__ import annotations

import asyncio
import html
import json
import shutil
import subprocess

import pytest

from export.answers import model_ids
from export.build import build_page
from export.combos import axes, context
from export.explore import press
from tests.helpers import explored
from uikit.styles import ASSETS

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

# Reads {"code", "data", "cases": [[state, key], ...]}: for each case the player opens in `state`
# (as kept in localStorage), the bar's control `key` is pressed (a button's id, or a radio group's
# "id:index"); prints the state it then keeps for each case, and whether it reopened the page.
RUN_PLAYER = r"""
const vm = require("vm")
const input = JSON.parse(require("fs").readFileSync(0, "utf8"))
const out = input.cases.map(([state, key]) => {
  const [id, index] = key.split(":")
  const models = {}
  for (const k of input.keys) {
    const [mid, i] = k.split(":")
    if (models[mid]) continue
    models[mid] = i === undefined
      ? { id: mid, type: "Button", on_event(name, cb) { this.cb = cb } }
      : { id: mid, type: "RadioButtonGroup", active: 0, properties: { active: { change: "active" } },
          connect(signal, cb) { this.cb = cb } }
  }
  const store = { ["speclab-export:p"]: JSON.stringify({ node: state, answers: {} }) }
  let reloaded = false
  const doc = { all_models: Object.values(models), roots: () => [1], apply_json_patch() {},
                get_model_by_id: (m) => models[m] }
  const element = { style: { getPropertyValue: () => "", setProperty() {}, removeProperty() {} }, dataset: {} }
  const sandbox = {
    SPECLAB_EXPORT: input.data, Bokeh: { documents: [doc] }, setTimeout,
    localStorage: { getItem: (k) => store[k] ?? null, setItem: (k, v) => { store[k] = v } },
    location: { reload: () => { reloaded = true } }, addEventListener() {}, dispatchEvent() {},
    Event: class { constructor(name) { this.name = name } },
    document: { readyState: "complete", documentElement: element, body: element, addEventListener() {},
                getElementById: () => null },
  }
  sandbox.window = sandbox
  vm.runInNewContext(input.code, sandbox)
  const model = models[id]
  if (index !== undefined) model.active = Number(index)
  model.cb()
  return { node: JSON.parse(store["speclab-export:p"]).node, reloaded }
})
process.stdout.write(JSON.stringify(out))
"""


def player(graph: dict, keys: list[str], cases: list[tuple[int, str]]) -> list[dict]:
    """Where assets/export.js goes for each (state, pressed key) of `cases`."""
    data = {**graph, "page": "p", "patches": [{"events": []} for _ in graph["patches"]]}
    code = (ASSETS / "export.js").read_text()
    done = subprocess.run(["node", "-e", RUN_PLAYER], input=json.dumps({"code": code, "data": data,
                          "keys": keys, "cases": cases}), capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def first_result(graph, n: int, key: str) -> int:
    return graph.nodes[n].edges[key][1]


def shown_text(graph, n: int) -> str:
    """Every text the recorded presses from the opening to state n set."""
    events = []
    while n:
        events = graph.patches[graph.nodes[n].via]["events"] + events
        n = graph.nodes[n].parent
    return html.unescape(html.unescape(" ".join(str(e.get("new")) for e in events if e.get("attr") == "text")))


async def served(slug: str, service, preset: int) -> str:
    """A served page: measured on its opening prompt, then preset number `preset` chosen; its table."""
    built = await build_page(slug, service)
    await press(built, built.chapter.run_button, "click")
    await press(built, list(built.chapter.preset_bar.buttons.values())[preset], "click")
    return built.chapter.table.object


@pytest.mark.parametrize("slug", ["cheaper-guesses", "predictable"])
def test_a_choice_made_after_measuring_opens_measured(tiny_service, extension, slug):
    built, explorer = explored(slug, tiny_service)
    graph, found = explorer.graph, axes(built, lambda i: i)
    start = tuple(a.start for a in found)
    run = model_ids(built.chapter.run_button, built.doc)[0]
    choices = explorer.choices
    assert len(choices) >= 6
    cases, expected = [], []
    for choice, n in choices.items():
        result = first_result(graph, n, run)
        assert result != n and graph.nodes[result].context == context(choice, start)
        for place, axis in enumerate(found):
            for value, key in enumerate(axis.keys):
                other = (*choice[:place], value, *choice[place + 1:])
                if key is None or other == choice:
                    continue
                cases += [(n, key), (result, key)]        # before measuring, and after
                expected += [choices[other], first_result(graph, choices[other], run)]
    keys = sorted({key for _, key in cases})
    went = player(graph.to_json(), keys, cases)
    assert [w["node"] for w in went] == expected
    # the served page's table, measured by itself on the preset chosen after measuring, is the
    # table the player shows there
    preset = model_ids(list(built.chapter.preset_bar.buttons.values())[1], built.doc)[0]
    [there] = player(graph.to_json(), keys, [(first_result(graph, choices[start], run), preset)])
    table = html.unescape(asyncio.run(served(slug, tiny_service, 1)))
    assert table and table in shown_text(graph, there["node"])
