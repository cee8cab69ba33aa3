"""The auto policy prices a check of n positions on the profile's verify passes read as one robust
line from two positions on (lab.core.adaptive.verify_line): the step from one position to two that a
CPU shows is priced, and one noisy timing moves no price."""
import pytest

from lab.core.adaptive import AutoSchedule, prices, verify_line
from tests.helpers import made_profile
from tests.lab.helpers import scripted

UNIT = 0.05


def stepped(two: float, slope: float, positions: int = 17, noisy: dict | None = None):
    """A profile whose pass over n ≥ 2 positions costs `two` + slope·(n − 2) one-position calls (as
    the embedded pair on a 2-core CPU: about 1.15 and 0.035), with `noisy` {n: units} timings."""
    units = [1.0] + [two + slope * (n - 2) for n in range(2, positions + 1)]
    for n, value in (noisy or {}).items():
        units[n - 1] = value
    return made_profile(verify=[UNIT * u for u in units], draft=0.17 * UNIT, prefill=3 * UNIT)


def test_a_linear_profile_is_priced_as_it_was_measured():
    profile = scripted(c=0.1, per_position=0.06)
    assert verify_line(profile) == pytest.approx((1.06, 0.06))
    assert prices(profile).verify_units(9) == pytest.approx(profile.verify_units(9))


def test_the_step_from_one_position_to_two_is_priced():
    profile = stepped(1.15, 0.035)
    assert verify_line(profile) == pytest.approx((1.15, 0.035))
    priced = prices(profile)
    assert priced.verify_units(1) == 1.0
    assert priced.verify_units(2) == pytest.approx(1.15)
    assert priced.verify_units(5) == pytest.approx(1.15 + 3 * 0.035)


def test_one_noisy_timing_moves_no_price():
    clean, noisy = stepped(1.15, 0.035), stepped(1.15, 0.035, noisy={2: 1.9, 9: 0.8})
    assert verify_line(noisy) == pytest.approx(verify_line(clean), abs=1e-9)


def test_with_the_step_priced_a_weak_guess_is_a_plain_step():
    """The draft model's α at 0.49 (0.44 its lower bound), a call at 0.17: priced on a line from one position (the step left
    out, the same v(5)) one guess looks worth a round; priced with the step it is a plain step."""
    def caps(profile):
        schedule = AutoSchedule(8, pricing=prices(profile), sources=("model",))
        schedule.alpha["model"].kept, schedule.alpha["model"].rejected = 49.0, 51.0   # lower bound 0.44
        schedule.tried = True                       # the draft model's opening probe is behind it
        return schedule.caps(list(range(20)))["model"]
    with_step = stepped(1.15, 0.035)
    through_one = scripted(c=0.17, per_position=(with_step.verify_units(5) - 1) / 4)
    assert caps(through_one) >= 1
    assert caps(with_step) == 0
