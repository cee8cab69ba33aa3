"""Chapter 6's draws in the browser (assets/ch06_draws.js, the offline copy's Draw, Draw 1000 and Reset
counts) against Python's own draws of the same page, run in node: the same generator (numpy's PCG64 from
the student's seed), the same counts, figures' data and sentences, press after press; a slider's move
(assets/ch06_accept_rule.js) clears the counts and the next draw uses the moved p(A) and q(A). On a
Chinese or Spanish page the browser writes what Python writes there: the same sentences, counts'
forms and numbers in that language."""
import html
import json
import shutil
import subprocess

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.models import Label, LegendItem
from panel.io.state import set_curdoc

from chapters.ch06_accept_rule import AcceptRuleChapter
from lab.experiments.twotokens import student_rng
from tests.helpers import JS_MODEL
from uikit.browser import js_code
from uikit.language import use_language

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

# {"codes": {name: code}, "args": {name: {arg: value | {"__model__": model name}}}, "models": {name: state},
#  "calls": [[code name, cb_data]]} → per call: the returned texts and every model's state afterwards.
RUN = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"))
""" + JS_MODEL + """const models = {}
for (const [name, state] of Object.entries(input.models)) models[name] = new Model(state)
const panes = {last_draw: new Model({text: ""}), freq_table: new Model({text: ""}), share_note: new Model({text: ""})}
const funcs = {}
for (const [name, code] of Object.entries(input.codes)) {
  const args = {}
  for (const [k, v] of Object.entries(input.args[name])) args[k] = v && v.__model__ ? models[v.__model__] : v
  funcs[name] = (data) => new Function(...Object.keys(args), "cb_obj", "cb_data", "cb_context", code)(
    ...Object.values(args), null, {...data, ...panes}, {})
}
const out = input.calls.map(([name, data]) => {
  funcs[name](data)
  const state = {}
  for (const [n, m] of Object.entries({...models, ...panes})) {
    state[n] = {}
    for (const [k, v] of Object.entries(m)) if (!k.startsWith("_")) state[n][k] = v
  }
  return state
})
process.stdout.write(JSON.stringify(out))
"""


def plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def stand_ins(callbacks: dict) -> tuple[dict, dict]:
    """The callbacks' args with their Bokeh models as named stand-ins, and those models' states."""
    models, args = {}, {}
    for name, cb in callbacks.items():
        args[name] = {}
        for k, v in cb.args.items():
            if hasattr(v, "data"):
                models[v.id] = {"data": {c: plain(col) for c, col in v.data.items()}}
            elif hasattr(v, "end"):
                models[v.id] = {"end": v.end}
            elif isinstance(v, LegendItem):
                models[v.id] = {"visible": v.visible, "label": {"value": v.label.value}}
            elif isinstance(v, Label):
                models[v.id] = {"text": v.text}
            else:
                args[name][k] = v
                continue
            args[name][k] = {"__model__": v.id}
        ids = {v.id: k for k, v in cb.args.items() if hasattr(v, "id")}
        for model_id, arg in ids.items():
            models.setdefault(model_id, {})
    return models, args


# What a page in each language shows after the script's 1000 draws at p(A) = 0.90, q(A) = 0.30, and after
# one and two rounds (each count in its form)
SAID = {"en": ("After <b>1000</b> rounds, <b>", "p(A) = 0.90", "draft too shy", "After <b>1</b> round, ",
               "After <b>2</b> rounds, "),
        "es": ("Tras <b>1000</b> rondas, la proporción de salidas que son A es <b>", "p(A) del objetivo = 0,90",
               "borrador demasiado tímido", "Tras <b>1</b> ronda, ", "Tras <b>2</b> rondas, "),
        "zh": ("<b>1000</b> 轮之后，输出为 A 的占比是 <b>", "p(A) = 0.90", "草稿过于保守", "<b>1</b> 轮之后，",
               "<b>2</b> 轮之后，")}


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_browser_draws_are_pythons_draws(make_chapter, language):
    doc = Document()
    use_language(language, doc)
    with set_curdoc(doc):                          # the page, built in its language
        ch = make_chapter(AcceptRuleChapter)
        pressed = ch.browser_presses()
    presses = {"draw": pressed[0][1], "many": pressed[1][1], "reset": pressed[2][1], "move": ch.figs.redraw}
    models, args = stand_ins(presses)
    figs = ch.figs
    script = [("draw", None), ("many", None), ("draw", None), ("reset", None), ("many", None), ("many", None),
              ("move", (0.25, 0.8)), ("draw", None), ("many", None), ("move", (0.9, 0.3)), ("many", None),
              ("reset", None), ("draw", None), ("draw", None)]
    calls = [[name, dict(p_a=pq[0], q_a=pq[1]) if pq else {}] for name, pq in script]
    done = subprocess.run(["node", "-e", RUN], input=json.dumps(
        {"codes": {k: v.code for k, v in presses.items()}, "args": args, "models": models, "calls": calls}),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    states = json.loads(done.stdout)
    src = {figs.share_src.id: "share_src", figs.freq_src.id: "freq_src", figs.thr_src.id: "thr_src",
           figs.u_src.id: "u_src", figs.lines_src.id: "lines_src"}
    notes = []
    for (name, pq), st in zip(script, states):
        with set_curdoc(doc):                      # each press answered on its page, in its language
            if name == "move":
                ch.param.update(p_a=pq[0], q_a=pq[1])     # let go: Python resets the counts
            elif name == "reset":
                ch.reset()
            else:
                ch.draw(1 if name == "draw" else 1000)
        notes.append(ch.share_note.object)
        for pane, text in (("last_draw", ch.last_draw.object), ("freq_table", ch.freq_table.object),
                           ("share_note", ch.share_note.object)):
            if name != "move" or pane == "freq_table":    # a move writes the table; Python's notes add the seed
                assert html.unescape(st[pane]["text"]) == text, (name, pq, pane)
        for model_id, label in src.items():
            for col, values in getattr(figs, label).data.items():
                got = st[model_id]["data"][col]
                assert (got == list(values)) if col in ("token", "color") else np.allclose(got, list(values)), \
                    (name, label, col)
        assert st[figs.u_label.id]["text"] == figs.u_label.text
        assert st[figs.share_range.id]["end"] == figs.share_range.end
        assert st[figs.share_item.id]["visible"] == figs.share_item.visible
        for item in (figs.p_item, figs.q_item):    # the share chart's legend: p(A), q(A) with their values
            assert st[item.id]["label"]["value"] == item.label.value, (name, pq)
    # the last 1000 draws were made at the moved values: p(A) = 0.90 in the sentence, not the default 0.60
    settled, p_a, shy, one, two = SAID[language]
    assert settled in notes[10] and p_a in notes[10] and shy in ch.freq_table.object
    assert one in notes[12] and two in notes[13]


def test_browser_generator_is_numpys_pcg64():
    """The seed state the page carries gives numpy's doubles in node (far into the stream)."""
    rng = student_rng(3, "browser-7")
    state = rng.bit_generator.state["state"]
    want = rng.random(5000)
    code = (js_code("analytic") + "\n" + js_code("ch06_draws").split("const panes = {}")[0]
            + "const g = {state: BigInt(seed_state), inc: BigInt(seed_inc)};"
            + "process.stdout.write(JSON.stringify(Array.from({length: 5000}, () => random(g))))")
    script = f"const seed_state = {json.dumps(str(state['state']))}, seed_inc = {json.dumps(str(state['inc']))};\n{code}"
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == want.tolist()
