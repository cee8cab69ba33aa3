"""A browser's settings snapshot in the class store (shell.room.snapshots): the student's draft variant is
written as "variant", and a snapshot that stored it under its older name "draft" still seeds a page."""
import pytest

from lab import records
from shell.room.snapshots import Snapshots
from shell.store.sqlite import SQLiteStore
from uikit.state import LabState


@pytest.fixture
def store(tmp_path):
    made = SQLiteStore(tmp_path / "class.sqlite", interval=3600)
    yield made
    made.stop()


def _stored(store, bid: str, value: dict) -> None:
    """`value` written as a snapshot row, as a server process would have written it."""
    store.save_snapshots({bid: records.dumps(value).encode()}, keep=100)


def test_the_variant_is_written_under_its_name(store, tiny_service):
    snapshots = Snapshots(store=store)
    state = LabState(tiny_service, variant="random")
    snapshots.save("b1", state)
    snapshots.flush()
    row = store.snapshot_of("b1")
    value = records.loads(row)
    assert value["variant"] == "random" and "draft" not in value
    assert Snapshots(store=store).get("b1")["variant"] == "random"


def test_a_snapshot_stored_with_the_older_key_still_seeds_the_page(store, tiny_service):
    _stored(store, "old", {"prompt": "the cat", "temperature": 0.7, "draft": "random", "answers": {}})
    seeded = Snapshots(store=store).get("old")
    assert seeded["variant"] == "random" and "draft" not in seeded
    state = LabState(tiny_service, **seeded)
    assert (state.variant, state.temperature, state.prompt) == ("random", 0.7, "the cat")


def test_the_new_key_wins_over_the_older_one(store):
    _stored(store, "both", {"draft": "random", "variant": "aligned"})
    assert Snapshots(store=store).get("both") == {"variant": "aligned"}
