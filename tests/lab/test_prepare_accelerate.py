"""Preparing the embedded target with and without accelerate installed.

Many transformers users have accelerate; with it, `from_pretrained(gguf_file=...)` returns a model
marked GGUF-quantized that cannot be cast or saved, so preparation must not depend on it. The
accelerate tests skip where it is not importable; CI runs this file once in a virtual environment
that has it (.ci/run).
"""
from __future__ import annotations

import importlib.util
import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lab.pairs import prepare  # noqa: E402
from lab.pairs.prepare import ensure_embedded  # noqa: E402
from tests.lab.fakewheel import assert_clean, source_for, write_tiny_gguf  # noqa: E402

HAS_ACCELERATE = importlib.util.find_spec("accelerate") is not None
needs_accelerate = pytest.mark.skipif(not HAS_ACCELERATE, reason="accelerate is not installed here "
                                      "(CI runs this file in a virtual environment that has it)")


def _prepare_and_load(wheel, sha, root):
    import torch
    from lab.pairs.load import load_pair
    home = ensure_embedded(source=source_for(wheel, sha), root=root, distilled=root / "none")
    assert_clean(root)
    pair = load_pair(str(home / "target"), str(home / "draft-weak"))
    assert next(pair.target.parameters()).dtype == torch.float32
    with torch.no_grad():
        logits = pair.target(torch.tensor([[3, 4, 5]])).logits
    assert logits.shape[-1] == pair.target.config.vocab_size and torch.isfinite(logits).all()
    return home


@pytest.mark.skipif(HAS_ACCELERATE, reason="this environment has accelerate")
def test_prepare_without_accelerate(fake_wheel, tmp_path):
    from transformers.utils import is_accelerate_available
    assert not is_accelerate_available()
    _prepare_and_load(*fake_wheel, tmp_path)


@needs_accelerate
def test_prepare_with_accelerate_installed(fake_wheel, tmp_path):
    from transformers.utils import is_accelerate_available
    assert is_accelerate_available()
    home = _prepare_and_load(*fake_wheel, tmp_path)
    config = (home / "target" / "config.json").read_text()
    assert "quantization_config" not in config     # a plain checkpoint, not a GGUF-quantized one


@needs_accelerate
def test_dequantised_weights_equal_transformers_own_gguf_loading(tmp_path):
    """Our route is transformers' GGUF reader: the weights equal from_pretrained(gguf_file=...)'s."""
    import torch
    from transformers import AutoModelForCausalLM
    write_tiny_gguf(tmp_path / "tiny.gguf")
    with prepare.quiet_progress_bars():
        reference = AutoModelForCausalLM.from_pretrained(tmp_path, gguf_file="tiny.gguf",
                                                         dtype=torch.float32).state_dict()
        ours = prepare.load_gguf(tmp_path, "tiny.gguf")[0].state_dict()
    assert ours.keys() == reference.keys()
    assert all(torch.equal(ours[k], reference[k]) for k in reference)
