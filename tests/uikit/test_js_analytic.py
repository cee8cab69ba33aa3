"""The browser's formulas (assets/analytic.js) against lab/ at many points, run in node; and the
browser redraws of chapters 10 and 6 (assets/ch10_breakeven.js, assets/ch06_accept_rule.js) against
the Python redraws of the same pages: the same numbers, data and HTML, chapter 10's in the page's
language too."""
import html
import json
import shutil
import subprocess

import numpy as np
import pytest
from bokeh.document import Document
from panel.io.state import set_curdoc

from chapters.ch06_accept_rule import AcceptRuleChapter
from chapters.ch10_breakeven import BreakEvenChapter, browser_profile
from lab.core import analytic
from lab.experiments import breakeven
from lab.experiments.display import regions
from lab.experiments.twotokens import thresholds
from tests.helpers import JS_MODEL, made_profile
from uikit.browser import js_code
from uikit.language import use_language

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

TOL = 1e-9
ALPHAS = sorted({*np.round(np.linspace(0, 1, 41), 3).tolist(), 0.001, 0.333, 0.999, 0.9999})
GAMMAS = list(range(1, analytic.MAX_GAMMA + 1))
COSTS = [0.0, 0.01, 0.05, 0.1, 0.25, 0.3, 0.5, 0.99, 1.0, 1.5, 2.0]
PS = np.round(np.linspace(0, 1, 21), 2).tolist()
QS = np.round(np.linspace(0.01, 0.99, 50), 4).tolist()

# Reads {"code": ..., "calls": [[function name, args...], ...]}, prints the results as JSON (NaN as null).
RUN_FORMULAS = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"))
const analytic = new Function(input.code + "\\nreturn analytic")()
const out = input.calls.map(([name, ...args]) => analytic[name](...args))
process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === "number" && !isFinite(v)) ? null : v))
"""

# Runs a page's redraw (analytic.js + the page's code, as uikit.browser.browser_redraw builds it) on
# stand-in models that keep what is set on them; prints, per call, every model's state afterwards.
RUN_REDRAW = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"))
""" + JS_MODEL + """const models = {}, values = {}
for (const [name, value] of Object.entries(input.args))
  (value && value.__model__ ? models : values)[name] = value && value.__model__ ? new Model(value.state) : value
const args = {...values, ...models}
const func = new Function(...Object.keys(args), "cb_obj", "cb_data", "cb_context", input.code)
const out = input.calls.map((data) => {
  const panes = {}
  for (const name of input.panes) panes[name] = new Model({text: ""})
  const html = func(...Object.values(args), null, {...data, ...panes}, {})
  const state = {}
  for (const [name, m] of Object.entries({...models, ...panes})) state[name] = {...m}
  return {html, state}
})
process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === "number" && !isFinite(v)) ? null : v))
"""


def node(script: str, payload: dict):
    done = subprocess.run(["node", "-e", script], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def formulas(calls: list[list]) -> list:
    return node(RUN_FORMULAS, {"code": js_code("analytic"), "calls": calls})


def close(js, py) -> bool:
    """JS and Python agree to TOL (NaN in Python is null from JS)."""
    py = np.asarray(py, dtype=float)
    js = np.asarray([np.nan if x is None else x for x in np.ravel(js)], dtype=float).reshape(py.shape)
    return bool(np.allclose(js, py, rtol=0, atol=TOL, equal_nan=True))


def test_expected_tokens_round_cost_and_speedup_match_lab_analytic():
    points = [(a, g, c) for a in ALPHAS for g in GAMMAS for c in COSTS]
    js = formulas([["expected_tokens", a, g] for a, g, _ in points] + [["round_cost", g, c] for _, g, c in points]
                  + [["speedup", a, g, c] for a, g, c in points])
    n = len(points)
    a, g, c = (np.array(x, dtype=float) for x in zip(*points))
    assert close(js[:n], analytic.expected_tokens(a, g))
    assert close(js[n:2 * n], analytic.round_cost(g, c))
    assert close(js[2 * n:], analytic.speedup(a, g, c))
    assert len(points) > 7000


def test_break_even_and_best_gamma_match_lab_analytic():
    pairs = [(g, c) for g in GAMMAS for c in COSTS]
    js = formulas([["break_even_alpha", g, c] for g, c in pairs])
    g, c = (np.array(x, dtype=float) for x in zip(*pairs))
    assert close(js, analytic.break_even_alpha(g, c))
    assert any(x is None for x in js) and any(x is not None for x in js)     # both cases were met
    points = [(a, c) for a in ALPHAS for c in COSTS]
    js = formulas([["best_gamma", a, c, m] for a, c in points for m in (12, 16)])
    for (a, c, m), (best, s) in zip([(a, c, m) for a, c in points for m in (12, 16)], js):
        py_best, py_s = analytic.best_gamma(a, c, m)
        assert best == int(py_best) and abs(s - float(py_s)) < TOL, (a, c, m)


def test_chapter_10_numbers_match_lab_breakeven():
    points = [(a, g, c) for a in ALPHAS[::4] for g in (1, 4, 5, 12) for c in COSTS[::2]]
    js = formulas([["numbers", a, g, c, 12] for a, g, c in points])
    for (a, g, c), got in zip(points, js):
        want = breakeven.analytic_figures(a, g, c, 12)
        for key in ("E", "cost", "speedup", "break_even", "curve", "per_gamma", "best_speedup"):
            assert close(got[key], want[key]), (key, a, g, c)
        assert got["best_gamma"] == want["best_gamma"]


def test_fixed_writes_what_python_writes():
    """analytic.fixed is Python's f"{x:.Nf}", exact ties included (0.125 is "0.12" in Python, "0.13" by
    toFixed): a page's browser text and its server text never differ in a last digit."""
    rng = np.random.default_rng(7)
    values = ([k / 8 for k in range(-17, 18)] + [k / 16 for k in range(-33, 34)] + [k / 2 for k in range(-5, 6)]
              + rng.uniform(-3, 3, 400).tolist() + [0.005, 0.015, 0.0625, 1.005, 2.675, 1e-9, -1e-9, 12.345])
    calls = [["fixed", x, d] for x in values for d in (0, 1, 2, 3)]
    js = formulas(calls)
    assert js == [f"{x:.{d}f}" for _, x, d in calls]
    assert formulas([["fixed", 0.125, 2]]) == ["0.12"]


def test_profile_costs_match_lab_costs():
    profile = made_profile(verify=(0.01, 0.011, 0.0125, 0.014, 0.016, 0.0205), draft=0.002)
    verify = browser_profile(profile)["verify"]
    points = [(a, g, c) for a in ALPHAS[::5] for g in range(0, 9) for c in COSTS[::3]]
    js = formulas([["profile_round_cost", verify, g, c] for _, g, c in points]
                  + [["profile_speedup", verify, a, g, c] for a, g, c in points if g >= 1])
    n = len(points)
    assert close(js[:n], [profile.round_cost(g, c) for _, g, c in points])
    assert close(js[n:], [profile.speedup(a, g, c) for a, g, c in points if g >= 1])


def test_regions_and_accept_rule_match_lab():
    points = [(p, q) for p in PS for q in QS]
    js = formulas([["regions", [p, 1 - p], [q, 1 - q]] for p, q in points]
                  + [["thresholds", p, q] for p, q in points] + [["accept_probability", [0.5, 0.5], [0, 1], 0]])
    n = len(points)
    for (p, q), got in zip(points, js[:n]):
        want = regions([p, 1 - p], [q, 1 - q])
        assert all(close(got[k], want[k]) for k in ("agree", "eager", "shy")), (p, q)
    assert close(js[n:2 * n], [thresholds(p, q) for p, q in points])
    assert js[-1] == 0      # a token q cannot draw is never kept


def _model(m, *props):
    return {"__model__": True, "state": {p: getattr(m, p) for p in props}}


def _ch10_args(figs) -> dict:
    """The redraw's args as node's stand-ins: sources with their data, ranges, span and label."""
    args = {}
    for name, value in figs.redraw.args.items():
        if hasattr(value, "data"):
            args[name] = {"__model__": True, "state": {"data": {k: list(np.asarray(v).tolist()) if len(v) else []
                                                                for k, v in value.data.items()}}}
        elif hasattr(value, "end"):
            args[name] = _model(value, "end")
        elif hasattr(value, "location"):
            args[name] = _model(value, "location", "visible")
        elif hasattr(value, "text"):
            args[name] = _model(value, "text", "x", "y", "text_align", "x_offset")
        else:
            args[name] = value
    return args


@pytest.mark.parametrize("with_profile, with_request", [(False, False), (True, False), (False, True)])
def test_chapter_10_browser_redraw_draws_what_python_draws(make_chapter, with_profile, with_request):
    ch = make_chapter(BreakEvenChapter)
    if with_request:     # a measured request at α 0.6, γ 4, c 0.1 (Use my models): the sliders meet it and leave it
        ch.point = dict(alpha=[0.6], gamma=[4], c=[0.1], speedup=[1.2345])
        ch.figs.request.data = ch.point
    if with_profile:
        ch.profile = made_profile(verify=(0.01, 0.0105, 0.011, 0.012, 0.0125, 0.013, 0.014, 0.015, 0.016, 0.017,
                                          0.018, 0.019, 0.02, 0.021), draft=0.002, busy=True, load=5.0, cores=2)
    points = [(a, g, c) for a in (0.0, 0.37, 0.6, 0.8, 0.95, 1.0) for g in (1, 4, 5, 12) for c in (0.0, 0.1, 0.3, 1.2)]
    out = node(RUN_REDRAW, {"code": ch.figs.redraw.code, "args": _ch10_args(ch.figs),
                            "panes": ["readout", "table", "note", "versus"],
                            "calls": [dict(alpha=a, gamma=g, c=c) for a, g, c in points]})
    figs = ch.figs
    for (a, g, c), got in zip(points, out):
        ch.param.update(alpha=a, gamma=g, c=c)        # Python's redraw of the same values
        st = got["state"]
        assert got["html"]["formula"] == ch.readout.object, (a, g, c)
        assert got["html"]["table"] == ch.table.object
        assert got["html"]["note"] == ch.cost_note.object
        assert got["html"]["versus"] == ch.versus.object and bool(ch.versus.object) is with_request
        if with_request:
            assert ("The sliders are at your request's" in ch.versus.object) is ((a, g, c) == (0.6, 4, 0.1))
        assert html.unescape(st["readout"]["text"]) == ch.readout.object
        assert close(st["curve"]["data"]["speedup"], figs.curve.data["speedup"])
        assert close(st["point"]["data"]["speedup"], figs.point.data["speedup"])
        assert st["bars"]["data"]["color"] == list(figs.bars.data["color"])
        assert st["bars"]["data"]["hatch"] == list(figs.bars.data["hatch"])
        assert close(st["bars"]["data"]["speedup"], figs.bars.data["speedup"])
        assert close(st["lecture_cost"]["data"]["cost"], figs.lecture_cost.data["cost"])
        assert close(st["measured_cost"]["data"]["cost"], figs.measured_cost.data["cost"])
        if with_profile:
            assert close(st["measured"]["data"]["speedup"], figs.measured.data["speedup"])
        for name, fig in (("speed_range", figs.speed_fig), ("gamma_range", figs.gamma_fig),
                          ("cost_range", figs.cost_fig)):
            assert abs(st[name]["end"] - fig.y_range.end) < TOL, name
        assert st["break_span"]["visible"] == figs.break_span.visible
        assert abs(st["break_span"]["location"] - figs.break_span.location) < TOL
        for prop in ("text", "text_align", "x_offset"):
            assert st["break_label"][prop] == getattr(figs.break_label, prop), prop
        assert close([st["break_label"]["x"], st["break_label"]["y"]], [figs.break_label.x, figs.break_label.y])


def page(language: str) -> Document:
    """A page's document speaking `language` (as shell.frame.app.build_app makes it)."""
    doc = Document()
    use_language(language, doc)
    return doc


@pytest.mark.parametrize("language", ["es", "zh", "en-XA"])
def test_chapter_10_browser_redraw_writes_what_python_writes_on_a_translated_page(make_chapter, language):
    """assets/ch10_breakeven.js fills the page's templates and writes numbers as the page does
    (Babel's rounding of the shortest decimal, half to even, with the decimal comma in Spanish), so
    the server's redraw after a slider is released changes nothing the student reads."""
    doc = page(language)
    with set_curdoc(doc):
        ch = make_chapter(BreakEvenChapter)
        ch.point = dict(alpha=[0.6], gamma=[4], c=[0.1], speedup=[1.2345])
        ch.figs.request.data = ch.point
        ch.profile = made_profile(verify=[0.1 * (1 + 0.1 * k) for k in range(17)], draft=0.02, busy=True, load=5.0,
                                  cores=2)
        points = [(a, g, c) for a in (0.0, 0.37, 0.6, 0.8, 0.95, 1.0) for g in (1, 4, 5, 12)
                  for c in (0.0, 0.1, 0.15, 0.3, 1.2, 1.5)]
        out = node(RUN_REDRAW, {"code": ch.figs.redraw.code, "args": _ch10_args(ch.figs),
                                "panes": ["readout", "table", "note", "versus"],
                                "calls": [dict(alpha=a, gamma=g, c=c) for a, g, c in points]})
        for (a, g, c), got in zip(points, out):
            ch.param.update(alpha=a, gamma=g, c=c)
            assert got["html"] == dict(formula=ch.readout.object, table=ch.table.object, note=ch.cost_note.object,
                                       versus=ch.versus.object), (a, g, c)
            assert html.unescape(got["state"]["readout"]["text"]) == ch.readout.object
            assert got["state"]["break_label"]["text"] == ch.figs.break_label.text
    if language == "es":
        assert "α = 0,60; γ = 4; c = 0,10" in ch.versus.object and "1,2345" not in ch.versus.object


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_chapter_10_browser_rounds_a_figure_as_the_page_does(make_chapter, language):
    """A measured speed-up on a tie (2.675, 0.125, 1.005 …) is written by the browser as by Python:
    Python's rounding of the binary value in English, Babel's half to even of the shortest decimal
    in Spanish and Chinese ("2,68" and "2.68", where English writes "2.67")."""
    speedups = [2.675, 0.125, 0.135, 1.005, 1.015, 2.5, 1e-07, 0.0, 12345.675, 0.9999999]
    with set_curdoc(page(language)):
        ch = make_chapter(BreakEvenChapter)
        ch.param.update(alpha=0.6, gamma=4, c=0.1)      # at the request: the line names its measured figure
        shown = []
        for s in speedups:
            ch.point = dict(alpha=[0.6], gamma=[4], c=[0.1], speedup=[s])
            ch.figs.request.data = ch.point
            got = node(RUN_REDRAW, {"code": ch.figs.redraw.code, "args": _ch10_args(ch.figs), "panes": [],
                                    "calls": [dict(alpha=0.6, gamma=4, c=0.1)]})
            ch._update()
            assert got[0]["html"]["versus"] == ch.versus.object, s
            shown.append(ch.versus.object)
    assert ("2,68×" if language == "es" else "2.68×" if language == "zh" else "2.67×") in shown[0]


def test_chapter_6_browser_redraw_draws_what_python_draws(make_chapter):
    ch = make_chapter(AcceptRuleChapter)
    ch.draw(50)                                     # counts the browser's redraw clears, as Python does
    figs = ch.figs
    args = {}
    for name, value in figs.redraw.args.items():
        if hasattr(value, "data"):
            args[name] = {"__model__": True, "state": {"data": {k: list(v) for k, v in value.data.items()}}}
        elif name == "share_range":
            args[name] = _model(value, "end")
        elif name.endswith("_item"):
            args[name] = _model(value, "visible")
        elif name == "u_label":
            args[name] = _model(value, "text")
        else:
            args[name] = value
    points = [(p, q) for p in (0.0, 0.3, 0.6, 0.8, 1.0) for q in (0.01, 0.3, 0.6, 0.8, 0.99)]
    out = node(RUN_REDRAW, {"code": figs.redraw.code, "args": args, "panes": ["last_draw", "freq_table", "share_note"],
                            "calls": [dict(p_a=p, q_a=q) for p, q in points]})
    for (p, q), got in zip(points, out):
        ch.param.update(p_a=p, q_a=q)                # Python: new p and q, the counts reset
        st = got["state"]
        assert got["html"] == dict(table=ch.freq_table.object, last_draw=ch.last_draw.object,
                                   share_note=ch.share_note.object), (p, q)
        for src in ("region_src", "pq_src", "lines_src", "freq_src", "thr_src", "u_src", "share_src"):
            want = getattr(figs, src).data
            for col, values in want.items():
                got_col = st[src]["data"][col]
                assert (got_col == list(values)) if col in ("token", "color") else close(got_col, list(values)), \
                    (src, col, p, q)
        legend = figs.share_fig.legend[0].items
        assert st["p_item"]["label"]["value"] == legend[0].label.value
        assert st["q_item"]["label"]["value"] == legend[1].label.value
        assert st["share_item"]["visible"] == legend[2].visible is False
        assert st["share_range"]["end"] == figs.share_fig.x_range.end and st["u_label"]["text"] == figs.u_label.text


def test_a_spanish_pages_number_axes_write_a_decimal_comma():
    """uikit.figures.finish_figures gives a Spanish page's number axes the tick formatter that writes
    "0,2" (and 0.30000000000000004 as "0,3"); an English page keeps Bokeh's own; categories stay."""
    import panel as pn
    from bokeh.document import Document
    from bokeh.models import BasicTickFormatter, CategoricalTickFormatter, CustomJSTickFormatter
    from panel.io.state import set_curdoc
    from uikit.figures import finish_figures, static_figure
    from uikit.language import use_language

    def finished(language):
        doc = Document()
        use_language(language, doc)
        with set_curdoc(doc):
            fig = static_figure(x_range=["A", "B"], y_range=(0, 1))
            finish_figures(pn.Column(pn.pane.Bokeh(fig)))
        return fig
    spanish, english = finished("es"), finished("en")
    assert type(english.yaxis[0].formatter) is BasicTickFormatter
    assert isinstance(spanish.xaxis[0].formatter, CategoricalTickFormatter)
    formatter = spanish.yaxis[0].formatter
    assert isinstance(formatter, CustomJSTickFormatter)
    script = ("const f = new Function('tick', 'decimal', process.argv[1]);"
              "console.log(JSON.stringify([0, 0.2, 0.1 + 0.2, 1, 12.5].map(t => f(t, process.argv[2]))));")
    done = subprocess.run(["node", "-e", script, formatter.code, formatter.args["decimal"]], capture_output=True,
                          text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == ["0", "0,2", "0,3", "1", "12,5"]
