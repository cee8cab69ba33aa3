"""What a served page says of its busy machine is said in the export as the recording's fact: chapter
1's summary, exported while the machine was busy, reads "Recorded on a machine that was busy (load …
on … cores while timing) …", never the served page's "The machine was busy while timing …" a student
at home would read as about their own machine; the served page keeps its words."""
from __future__ import annotations

import asyncio
import html

import pytest

from export.build import build_page
from export.explore import press
from export.site import export_site
from export.wording import as_recorded
from uikit.verdicts import why_busy

LOAD = 99.0     # the load faked while the pair is timed (far above any core count)


@pytest.fixture(scope="module")
def extension():
    import panel as pn
    pn.extension(inline=True)


@pytest.fixture
def busy_service(monkeypatch):
    """A model service over a tiny pair of its own, whose cost profile is timed at load LOAD."""
    from lab.pairs.tiny import tiny_pair
    from lab.speed import costs
    from serving.service import ModelService
    monkeypatch.setattr(costs, "load_average", lambda: LOAD)
    pair = tiny_pair()
    return ModelService(lambda: pair)


def test_chapter_1_exported_on_a_busy_machine_says_it_of_the_recording(busy_service, extension, tmp_path):
    async def served_summary():
        built = await build_page("dilemma", busy_service)
        await press(built, built.chapter.write_button, "click")
        return built.chapter.summary.object
    served = asyncio.run(served_summary())
    cores = served.split(f"load {LOAD:.1f} on ")[1].split(" cores")[0]
    said = f"The machine was busy while timing (load {LOAD:.1f} on {cores} cores), so these figures are unreliable."
    assert said in html.unescape(served)                     # the served page keeps its words

    asyncio.run(export_site(tmp_path, busy_service, ["dilemma"], 0, max_nodes=3, max_seconds=30))
    text = html.unescape(html.unescape((tmp_path / "data" / "dilemma.js").read_text()))
    assert "The small model finished in" in text               # the race's summary is recorded
    assert (f"Recorded on a machine that was busy (load {LOAD:.1f} on {cores} cores while timing), so these "
            f"recorded figures are unreliable.") in text
    page = html.unescape(html.unescape((tmp_path / "dilemma.html").read_text()))
    assert "The machine was busy" not in text and "The machine was busy" not in page
    assert "timed on the machine that made the copy" in page
    assert "this machine" not in text.lower() and "this machine" not in page.lower()


def test_every_busy_sentence_is_said_of_the_recording():
    from tests.helpers import made_profile
    for profile in (made_profile(busy=True, load=5.25, cores=2), made_profile(busy=True, spread=0.734, load=0.5)):
        sentence = why_busy(profile)
        recorded = as_recorded(f"<b>{sentence}</b>")
        assert sentence not in recorded and recorded.startswith("<b>Recorded on a machine that was busy (")
        assert recorded.endswith("while timing), so these recorded figures are unreliable.</b>")
    assert "(load 5.2 on 2 cores while timing)" in as_recorded(why_busy(made_profile(busy=True, load=5.25, cores=2)))
    assert "differed by 73% while timing" in as_recorded(why_busy(made_profile(busy=True, spread=0.734)))


def test_this_machine_is_said_as_the_recording_machine():
    assert as_recorded("Measured on this machine: <b>0.52×</b>; with this machine's verify cost. This machine "
                       "times.") == ("Measured on the recording machine: <b>0.52×</b>; with the recording "
                                     "machine's verify cost. The recording machine times.")
