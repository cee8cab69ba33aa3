"""lab.records: the lab's results as JSON, read back as the same objects, and nothing else read back.

The class store shares cost profiles, request outcomes and settings between server processes; a row
another user wrote must be data at worst, never code (no pickle anywhere on the read path)."""
from __future__ import annotations

import ast
import base64
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from lab import records
from lab.core.sampling import SamplingSettings
from lab.core.request import Request
from lab.speed.request import Outcome

REPO = Path(__file__).resolve().parents[2]


def drive(gen):
    """Run a worker job (a generator that yields between rounds) to its value."""
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


@pytest.mark.parametrize("settings", [SamplingSettings(), SamplingSettings(temperature=0.8, top_k=20, top_p=0.9)])
def test_an_outcome_comes_back_equal(tiny_service, settings):
    outcome = drive(tiny_service.outcome(Request((5, 6, 7, 8), settings=settings, seed=3)))
    back = records.loads(records.dumps(outcome))
    assert isinstance(back, Outcome) and back == outcome
    assert back.request == outcome.request and hash(back.request) == hash(outcome.request)   # a cache key again
    assert back.speedup == outcome.speedup and back.spec.new_ids == outcome.spec.new_ids
    assert records.loads(records.dumps(outcome.profile)) == outcome.profile


def test_plain_values_keep_their_types():
    value = {"answers": {3: 1, 7: "b"}, "ids": (1, 2, (3,)), "x": [1.5, float("inf"), None, True],
             "rows": np.arange(6, dtype=np.float32).reshape(2, 3), "n": np.int64(4)}
    back = records.loads(records.dumps(value))
    assert back["answers"] == {3: 1, 7: "b"} and back["ids"] == (1, 2, (3,))
    assert back["x"] == [1.5, float("inf"), None, True] and back["n"] == 4 and type(back["n"]) is int
    assert back["rows"].dtype == np.float32 and back["rows"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_other_types_are_not_written():
    with pytest.raises(TypeError):
        records.dumps({"f": open})
    with pytest.raises(TypeError):
        records.dumps(np.array(["a"], dtype=object))


@pytest.mark.parametrize("text", [
    pickle.dumps({"a": 1}),                                                    # a pickle is not JSON
    json.dumps({"~": "os.system", "fields": {"command": "touch /tmp/x"}}),     # not one of the lab's results
    json.dumps({"~": "Request", "fields": {"prompt_ids": [1], "__class__": 1}}),   # a field it lacks
    json.dumps({"~": "Request", "fields": {}}),                                # a field missing
    json.dumps({"~": "ndarray", "dtype": "object", "shape": [1], "data": ""}),
    json.dumps({"~": "dict", "items": [[[1, 2], 3]]}),                          # a list cannot be a key
    json.dumps({"plain": "object"}),                                           # untagged
])
def test_anything_else_is_refused_as_data(text):
    with pytest.raises(ValueError, match="not a lab record"):
        records.loads(text)


def test_a_crafted_row_runs_nothing(tmp_path):
    """The old attack: a pickle whose loading runs a command. Read as a record it is refused, and the
    command has not run."""
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (Path.touch, (marker,))
    with pytest.raises(ValueError):
        records.loads(pickle.dumps(Evil()))
    with pytest.raises(ValueError):
        records.loads(base64.b64encode(pickle.dumps(Evil())))
    assert not marker.exists()


def test_no_pickle_in_the_server_code():
    """Nothing the server runs reads pickles: the store's rows and exports go through lab.records."""
    found = []
    for package in ("lab", "serving", "shell", "uikit", "intercept", "chapters"):
        for path in (REPO / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                found += [f"{path.relative_to(REPO)}:{node.lineno}" for n in names if n.split(".")[0] in ("pickle", "dill", "cloudpickle")]
    assert not found, found
