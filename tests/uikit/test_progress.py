"""The progress bar with the time left."""
import asyncio
import concurrent.futures

from tests.helpers import until
from uikit.progress import TimeLeft, time_left_text


def test_the_line_counts_down_and_the_bar_fills():
    assert time_left_text(0.3, None) == (-1, "Estimating how long this takes…")
    assert time_left_text(0.0, 10.0) == (0, "About 10 s left")
    assert time_left_text(4.0, 10.0) == (40, "About 6 s left")
    assert time_left_text(9.5, 10.0) == (95, "Almost done…")
    assert time_left_text(12.0, 10.0) == (99, "Almost done…")     # past the estimate: never full, never negative
    assert time_left_text(30.0, 10.0) == (99, "Taking longer than estimated: the machine is busy…")


def test_shown_only_while_running_and_refreshed_from_the_clock():
    now = [100.0]
    left = TimeLeft(clock=lambda: now[0], period=0.01)
    assert not left.__panel__().visible

    async def work():
        async with left.running():
            assert left.__panel__().visible and left.bar.active and "Estimating" in left.text.object
            left.set_estimate(20)
            now[0] += 5
            await until(lambda: left.bar.value == 25, message="the bar to tick")   # every `period` s
            assert "About 15 s left" in left.text.object and not left.bar.active
    with concurrent.futures.ThreadPoolExecutor(1) as pool:   # a loop of its own (a browser test's may be running here)
        pool.submit(asyncio.run, work()).result()
    assert not left.__panel__().visible


def test_hidden_again_as_built():
    """After a run the bar and its line are a fresh one's, whatever the run showed."""
    fresh, used = TimeLeft(), TimeLeft(period=0.01)

    async def work():
        async with used.running():
            used.set_estimate(0.001)
            await until(lambda: used.bar.value == 99, message="the bar to fill")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, work()).result()
    for built, after in ((fresh.bar, used.bar), (fresh.text, used.text)):
        assert after.param.values() | {"name": ""} == built.param.values() | {"name": ""}
