"""The guided tour read from the back row: every step measured on a projector's screen.

One page walks all steps in sequence (driven by PageDown and PageUp, as a presenter's clicker sends
them), presses what a lecturer presses on the way (ACTIONS), and measures each step from computed
styles and bounding boxes (tests/ui/tour_layout.js):

    1920×1080   body text ≥ 24 px, code ≥ 20 px, figure text (Bokeh axes, ticks, legends, labels)
                ≥ 18 px; the step's content covers ≥ 60 % of the screen's height or width; no
                text box overflows its box or a box that clips it; no two controls or figures
                overlap; the chapter menu shows every name whole; nothing scrolls
    1280×720    the same walk: code ≥ 16 px, nothing clipped or overlapping, nothing scrolls
    2560×1440   a sample of steps (figure, code, predict card, strips, table): the 1920 rules, scaled

Screenshots of every step at 1920×1080: tests/ui/screenshots/tour-1920-stepNN.png.
"""
from pathlib import Path

from shell.tour_steps import TOUR
from tests.helpers import wait_until
from tests.ui.helpers import ACTIONS, open_page, rendered

N = len(TOUR)
MEASURE = (Path(__file__).resolve().parent / "tour_layout.js").read_text()
# smallest type (px) at 1920×1080, per kind of text; other screens scale it by their width
SMALLEST = {"body": 24, "code": 20, "figure": 18, "index": 16}


def press(page, n: int) -> None:
    """Press step n's action, if it has one, and wait until its button is free again."""
    if n not in ACTIONS:
        return
    label, times = ACTIONS[n] if isinstance(ACTIONS[n], tuple) else (ACTIONS[n], 1)
    button = page.get_by_role("button", name=label, exact=True).first
    for _ in range(times):
        button.click()
        wait_until(lambda: button.is_enabled(), timeout=90, message=f"step {n}'s {label!r} to finish")


def settled(page, n: int) -> dict:
    """Step n's measurements once its layout has stopped changing (figures grow into the free room
    in a round or two after the step is drawn)."""
    rendered(page, n)
    last = {}

    def still():
        m = page.evaluate(MEASURE)
        shape = (m["union"] and [round(v) for v in m["union"]], m["scroll"], len(m["texts"]))
        same = shape == last.get("shape")
        last.update(shape=shape, m=m)
        return same and m["union"] is not None
    wait_until(still, timeout=30, interval=0.6, message=f"step {n}'s layout to settle")
    return last["m"]


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


def height_used(m: dict) -> float:
    """The share of the screen's height a step's content spans."""
    left, top, right, bottom = m["union"]
    return (bottom - top) / m["vh"]


def walk(page, server, key: str, code_min: float, rules: dict | None, cover: float | None,
         shoot=None, heights: dict | None = None) -> list[str]:
    """Walk every step from the first with `key`, pressing each step's action, and return the
    problems found in the settled steps; `shoot(page, n)` is called on each step once measured,
    and `heights` (if given) gets each step's share of the screen's height."""
    open_page(page, f"{server}?tour=1")
    found = []
    for n in range(1, N + 1):
        rendered(page, n)
        press(page, n)
        m = settled(page, n)
        if heights is not None:
            heights[n] = height_used(m)
        found += problems(m, n, code_min, rules, cover)
        if shoot:
            shoot(page, n)
        if n < N:
            page.keyboard.press(key)
    return found


def test_every_step_reads_from_the_back_row_at_1920x1080(page, server, shot):
    page.set_viewport_size({"width": 1920, "height": 1080})
    heights: dict[int, float] = {}
    found = walk(page, server, "PageDown", 20, SMALLEST, cover=0.6,      # PageDown: a presenter's clicker
                 shoot=lambda pg, n: shot(pg, f"tour-1920-step{n:02d}"), heights=heights)
    # the screen is used: at least 80 % of the steps span 60 % of its height (a step without a figure
    # grows its chips, then the whole step, assets/tour.js; one with figures grows them)
    short = sorted(n for n, h in heights.items() if h < 0.6)
    assert len(short) <= 0.2 * N, f"steps using under 60 % of the height: {short}"
    page.keyboard.press("PageDown")              # the last step stays
    assert page.locator(".tour-counter").inner_text().strip() == f"{N} / {N}"
    page.keyboard.press("PageUp")
    rendered(page, N - 1)
    page.keyboard.press("PageUp")
    rendered(page, N - 2)
    assert f"tour={N - 2}" in page.url
    assert not found, "\n".join(found)


def test_every_step_fits_a_1280x720_screen_without_scrolling(page, server):
    found = walk(page, server, "ArrowRight", 16, None, cover=None)
    assert not found, "\n".join(found)


def test_sample_steps_at_2560x1440(page, server):
    """Figures and their room, code, a predict card, token strips and a table, at 2560×1440."""
    page.set_viewport_size({"width": 2560, "height": 1440})
    rules = {kind: size * 2560 / 1920 for kind, size in SMALLEST.items()}
    found = []
    for n in (2, 3, 13, 19, 27, 29, 33):
        open_page(page, f"{server}?tour={n}")
        found += problems(settled(page, n), n, rules["code"], rules, cover=0.6)
    assert not found, "\n".join(found)
