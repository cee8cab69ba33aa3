"""A tour step measured on a projector's screen (tests/ui/tour_layout.js) and the rules it must meet:
shared by the served tour's walk (tests/ui/test_tour_fits.py at 1920×1080 and 1280×720), its sample at
2560×1440 (tests/ui/test_tour_projector.py) and the exported tour's steps (tests/ui/test_export.py)."""
from pathlib import Path

from tests.helpers import wait_until
from tests.ui.helpers import rendered

MEASURE = (Path(__file__).resolve().parent / "tour_layout.js").read_text()
# smallest type (px) at 1920×1080, per kind of text; other screens scale it by their width
SMALLEST = {"body": 24, "code": 20, "figure": 18, "index": 16}


def settled(page, n: int, **steps) -> dict:
    """Step n's measurements once its layout has stopped changing (figures grow into the free room
    in a round or two after the step is drawn); `steps`: the tour's (helpers.rendered)."""
    rendered(page, n, **steps)
    last = {}

    def still():
        m = page.evaluate(MEASURE)
        shape = (m["union"] and [round(v) for v in m["union"]], m["scroll"], len(m["texts"]))
        same = shape == last.get("shape")
        last.update(shape=shape, m=m)
        return same and m["union"] is not None
    wait_until(still, timeout=30, interval=0.6, message=f"step {n}'s layout to settle")
    return last["m"]


def fitted(page, n: int, judge, timeout: float = 8, **steps) -> list[str]:
    """What `judge` finds wrong with step n's measurements once its fit has ended (empty when
    nothing). A step that fits once settled stays so; one still off the screen zooms out 1.5 s after
    its figures reached their least (assets/tour.js), and on a loaded machine the fit takes longer:
    for such a step the measurements are watched, up to `timeout` seconds, until `judge` finds
    nothing, and what is left then once the layout has settled is reported. `steps`: as settled's."""
    return fitted_measured(page, n, judge, timeout, **steps)[0]


def fitted_measured(page, n: int, judge, timeout: float = 8, **steps) -> tuple[list[str], dict]:
    """`fitted`'s finding and the measurements it judged."""
    m = settled(page, n, **steps)
    if judge(m):
        try:
            wait_until(lambda: not judge(page.evaluate(MEASURE)), timeout=timeout, interval=0.5)
        except AssertionError:
            pass                 # still wrong: reported below, measured once settled
        m = settled(page, n, **steps)
    return judge(m), m


def problems(m: dict, n: int, code_min: float, rules: dict | None, cover: float | None) -> list[str]:
    """What is wrong with one step's measurements `m` (empty when nothing)."""
    out = []
    if rules:
        small = sorted({(t["kind"], t["size"], t["label"][:30]) for t in m["texts"] if t["size"] < rules[t["kind"]] - 0.05})
        out += [f"{kind} text {size:.1f} px < {rules[kind]:.1f}: {label!r}" for kind, size, label in small[:4]]
        figs = sorted({(f["model"], f["name"], f["size"]) for f in m["figures"] if f["size"] < rules["figure"] - 0.05})
        out += [f"figure {model}.{name} {size:.1f} px < {rules['figure']:.1f}" for model, name, size in figs[:4]]
    code = [t["size"] for t in m["texts"] if t["kind"] == "code"]
    if code and min(code) < code_min - 0.05:
        out.append(f"code {min(code):.1f} px < {code_min}")
    out += [f"clipped {c['label']!r}: {c['why']}" for c in m["clipped"][:4]]
    out += [f"overlap {o}" for o in m["overlaps"][:4]]
    out += [f"chapter menu cuts {name}" for name in m["menu"][:2]]
    scroll_h, client_h, scroll_w, client_w = m["scroll"]
    if scroll_h > client_h + 2 or scroll_w > client_w + 2:
        out.append(f"scrolls: {scroll_w}×{scroll_h} in {client_w}×{client_h}")
    if cover:
        left, top, right, bottom = m["union"]
        w, h = (right - left) / m["vw"], (bottom - top) / m["vh"]
        if max(w, h) < cover:
            out.append(f"content covers {w:.0%} of the width and {h:.0%} of the height")
    return [f"step {n}: {p}" for p in out]


def outside(m: dict, n: int) -> list[str]:
    """Step n's content beyond the screen's edges (empty when none)."""
    left, top, right, bottom = m["union"]
    if left < -1 or top < -1 or right > m["vw"] + 1 or bottom > m["vh"] + 1:
        return [f"step {n}: content [{left:.0f}, {top:.0f}, {right:.0f}, {bottom:.0f}] outside {m['vw']}×{m['vh']}"]
    return []
