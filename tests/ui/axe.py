"""Accessibility checks a browser test runs on the page it has open: axe-core (npm, see package.json;
`npm ci` first), failing on any serious or critical violation and printing each one readably: the
rule, why it matters, where (a CSS selector path through shadow roots) and a snippet of the element.
Used by tests/ui/test_a11y.py (every page) and the tour's keyboard walk (tests/ui/test_tour_fits.py,
a sample of its steps)."""
import pytest

from shell.tour.steps import TOUR
from tests.helpers import wait_until
from tests.ui.helpers import ROOT, UNSETTLED

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
TOUR_SAMPLE = sorted({1, 2, 3, 7, 12, 17, 20, 24, 30, 33, len(TOUR)})


def axe_violations(page) -> list[dict]:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: run `npm ci` in the repository root")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, { resultTypes: ["violations"] });
        return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
            nodes: v.nodes.map(n => ({ target: JSON.stringify(n.target), html: n.html.slice(0, 160),
                                       summary: (n.failureSummary || "").slice(0, 300) })) }));
    }""")


def report(where: str, violations: list[dict]) -> str:
    lines = [f"{where}: {len(violations)} serious/critical accessibility violation(s)"]
    for v in violations:
        lines.append(f"  [{v['impact']}] {v['id']}: {v['help']} ({v['url']})")
        for n in v["nodes"][:6]:
            lines.append(f"      at {n['target']}\n         {n['html']}\n         {n['summary']}")
        if len(v["nodes"]) > 6:
            lines.append(f"      … and {len(v['nodes']) - 6} more")
    return "\n".join(lines)


def check(page, where: str):
    """No serious or critical violation that stays: one found is checked again once the page has
    settled a second later, and only what is still there fails. (Just after the tour's →, a step's
    predict-card choices have been caught in one frame of a re-render at 2.48:1 contrast; the steady
    page is what a student reads.)"""
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    if blocking:
        page.wait_for_timeout(1000)
        settle(page)
        blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert not blocking, report(where, blocking)


def settle(page, last: str | None = None):
    """Wait until the page is drawn: its `last` piece shown, no model work running, every slider
    handle named."""
    page.wait_for_load_state("networkidle")
    if last:
        page.locator(last).first.wait_for(timeout=60000)
    wait_until(lambda: page.evaluate(UNSETTLED) == 0, 60, message="the page to settle")
