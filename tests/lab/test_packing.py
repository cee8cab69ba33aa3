"""Loaded models run their linear layers packed for oneDNN (lab.packing): same tokens as the
dense model, same parameter count, and speculative decoding still equals plain decoding."""
import pytest
import torch
from transformers import AutoModelForCausalLM

from lab.engine import generate
from lab.pair import load_pair
from lab.packing import pack_for_cpu, parameter_count
from tests.lab.test_pair import save_tiny

needs_onednn = pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="this torch build has no oneDNN")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("packing")
    return save_tiny(root / "target", layers=2), save_tiny(root / "draft", seed=1)


@needs_onednn
def test_a_loaded_pair_is_packed_and_decodes_as_the_dense_models(folders, monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "1")
    target, draft = folders
    pair = load_pair(str(target), str(draft))
    assert "MkldnnLinear" in {type(m).__name__ for m in pair.target.modules()}
    dense = AutoModelForCausalLM.from_pretrained(target).eval()
    assert pair.target_params == sum(p.numel() for p in dense.parameters())
    ids = pair.tokenizer.encode("the cat sat on the mat")
    with torch.inference_mode():
        assert torch.allclose(pair.target(input_ids=torch.tensor([ids])).logits,
                              dense(input_ids=torch.tensor([ids])).logits, atol=1e-4)
    plain = generate(pair, ids, mode="plain", max_new_tokens=24)
    for drafter in ("model", "lookup", "hybrid"):
        assert generate(pair, ids, gamma=4, max_new_tokens=24, drafter=drafter).new_ids == plain.new_ids


@needs_onednn
def test_packing_that_changes_the_outputs_is_undone(folders, monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "1")
    model = AutoModelForCausalLM.from_pretrained(folders[0]).eval()
    count = parameter_count(model)
    import torch.utils.mkldnn as onednn

    class Wrong(torch.nn.Module):                      # a "packing" that is not the same function
        def __init__(self, dense, dtype):
            super().__init__()
            self.weight = dense.weight

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight) + 1.0
    monkeypatch.setattr(onednn, "MkldnnLinear", Wrong)
    packed = pack_for_cpu(model, model.config.vocab_size)
    assert not any(isinstance(m, Wrong) for m in packed.modules())
    assert parameter_count(packed) == count


@needs_onednn
def test_packing_is_on_by_default(folders, monkeypatch):
    monkeypatch.delenv("SPECLAB_PACK", raising=False)
    pair = load_pair(str(folders[0]), str(folders[1]))
    assert any(type(m).__name__ == "MkldnnLinear" for m in pair.target.modules())


def test_packing_is_off_when_asked(folders, monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "0")
    pair = load_pair(str(folders[0]), str(folders[1]))
    assert not any(type(m).__name__ == "MkldnnLinear" for m in pair.target.modules())


def test_importing_lab_caps_openmp_spinning_for_packed_layers_unless_the_environment_says(tmp_path):
    import os
    import subprocess
    import sys
    show = "import lab, os; print(os.environ.get('GOMP_SPINCOUNT', 'unset'))"
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "SPECLAB_PACK")}
    run = lambda env: subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True,
                                     cwd=os.getcwd(), check=True).stdout.strip()
    assert run(env) == "10000"
    assert run({**env, "GOMP_SPINCOUNT": "500"}) == "500"
    assert run({**env, "SPECLAB_PACK": "0"}) == "unset"           # dense layers: OpenMP's own default
