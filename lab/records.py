"""The lab's results as plain JSON: what the class store shares between processes and what an
export records, read back as the same objects and never as code.

Only the types below are written or read: JSON's own values, tuples, dicts with any plain keys,
numpy arrays of a few numeric dtypes, and the lab's result dataclasses named in `RECORDS`. A record
naming anything else is refused with ValueError, so a row written by someone else is data at worst.

>>> from lab.core.sampling import SamplingSettings
>>> loads(dumps({"settings": SamplingSettings(temperature=0.7), 3: (1, 2)}))
{'settings': SamplingSettings(temperature=0.7, top_k=0, top_p=1.0), 3: (1, 2)}
"""
from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import numpy as np

from lab.core.sampling import SamplingSettings
from lab.core.trace import Candidate, GenerationTrace, Guess, RoundTrace
from lab.speed.costs import CostProfile
from lab.core.request import Request
from lab.speed.request import Outcome
from lab.speed.timeline import Schedule

RECORDS = {cls.__name__: cls for cls in (SamplingSettings, Candidate, Guess, RoundTrace, GenerationTrace,
                                          CostProfile, Schedule, Request, Outcome)}
DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")
TAG = "~"        # the key that marks a tuple, a dict, an array or a record


def to_data(value: Any) -> Any:
    """`value` as JSON-ready data; TypeError for a type this module does not record."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic) and value.dtype.name in DTYPES:
        return value.item()
    if isinstance(value, list):
        return [to_data(v) for v in value]
    if isinstance(value, tuple):
        return {TAG: "tuple", "items": [to_data(v) for v in value]}
    if isinstance(value, dict):
        return {TAG: "dict", "items": [[to_data(k), to_data(v)] for k, v in value.items()]}
    if isinstance(value, np.ndarray) and value.dtype.name in DTYPES:
        raw = np.ascontiguousarray(value)
        return {TAG: "ndarray", "dtype": raw.dtype.name, "shape": list(raw.shape),
                "data": base64.b64encode(raw.tobytes()).decode("ascii")}
    name = type(value).__name__
    if dataclasses.is_dataclass(value) and RECORDS.get(name) is type(value):
        return {TAG: name, "fields": {f.name: to_data(getattr(value, f.name))
                                      for f in dataclasses.fields(value) if f.init}}
    raise TypeError(f"lab.records does not record {type(value).__qualname__}")


def from_data(data: Any) -> Any:
    """The object `to_data` made `data` from; ValueError for anything it would not have made."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [from_data(v) for v in data]
    if not isinstance(data, dict) or not isinstance(data.get(TAG), str):
        raise ValueError("not a lab record: an untagged object")
    kind = data[TAG]
    if kind == "tuple":
        return tuple(from_data(v) for v in _items(data))
    if kind == "dict":
        pairs = [from_data(p) for p in _items(data)]
        if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ValueError("not a lab record: a dict entry is not a (key, value) pair")
        return {_key(k): v for k, v in pairs}
    if kind == "ndarray":
        if data.get("dtype") not in DTYPES or not isinstance(data.get("shape"), list):
            raise ValueError("not a lab record: an array of an unknown dtype or shape")
        raw = base64.b64decode(str(data.get("data", "")), validate=True)
        return np.frombuffer(raw, dtype=data["dtype"]).reshape(data["shape"]).copy()
    cls = RECORDS.get(kind)
    fields = data.get("fields")
    if cls is None or not isinstance(fields, dict):
        raise ValueError(f"not a lab record: {kind[:40]!r} is not one of the lab's results")
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    if not set(fields) <= known:
        raise ValueError(f"not a lab record: {kind} has no field {sorted(set(fields) - known)[0][:40]!r}")
    try:
        return cls(**{k: from_data(v) for k, v in fields.items()})
    except TypeError as exc:                     # a field missing: data of another version
        raise ValueError(f"not a lab record: {kind} ({exc})") from None


def _items(data: dict) -> list:
    items = data.get("items")
    if not isinstance(items, list):
        raise ValueError("not a lab record: a tuple or dict without items")
    return items


def _key(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise ValueError("not a lab record: a dict key that cannot be a key") from None
    return key


def dumps(value: Any) -> str:
    """`value` as JSON text (see `to_data`)."""
    return json.dumps(to_data(value), separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """The object `dumps` wrote; ValueError for text that is not a lab record."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a lab record: {exc}") from None
    return from_data(data)
