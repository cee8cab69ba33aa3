"""The guided tour read from the back row of a large screen: a sample of steps at 2560×1440.

    2560×1440   a sample of steps (figure, code, predict card, strips, table), each opened directly
                and measured from computed styles and bounding boxes (tests/ui/tour_layout.js):
                the 1920 rules (tests/ui/tour_rules.py), scaled

Every step at 1920×1080 and at 1280×720 is measured by one walk, which also checks each step's
address, sentence and components, the keyboard (PageDown, → and Space forward, ← and PageUp back;
Back off on the first step, Next on the last), axe-core on a sample of steps, and presses every
step's action: tests/ui/test_tour_fits.py.
"""

from tests.ui.helpers import open_page
from tests.ui.tour_rules import SMALLEST, fitted, problems


def test_sample_steps_at_2560x1440(page, server):
    """Figures and their room, code, a predict card, token strips and a table, at 2560×1440."""
    page.set_viewport_size({"width": 2560, "height": 1440})
    rules = {kind: size * 2560 / 1920 for kind, size in SMALLEST.items()}
    found = []
    for n in (2, 3, 13, 19, 27, 29, 33):
        open_page(page, f"{server}?tour={n}")
        found += fitted(page, n, lambda m, n=n: problems(m, n, rules["code"], rules, cover=0.6))
    assert not found, "\n".join(found)
