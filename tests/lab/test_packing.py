"""Loaded models run their linear layers packed for oneDNN (lab.pairs.packing): same tokens as the
dense model, same parameter count, speculative decoding still equals plain decoding, the packed
weights replace the dense ones, and a draft keeps once what equals its target's."""
import pytest
import torch
import torch.utils.mkldnn as onednn
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

from dataclasses import replace

from lab.core.request import Request
from lab.core.engine import generate
from lab.pairs.load import load_draft, load_pair
from lab.pairs.packing import enabled, is_packed, pack_for_cpu, packer, parameter_count, share_tensors
from tests.helpers import WORDS, save_tiny

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
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=24))
    for drafter in ("model", "lookup", "hybrid"):
        assert generate(pair, Request(ids, gamma=4, max_new_tokens=24, drafter=drafter)).new_ids == plain.new_ids


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


def test_a_torch_without_packed_layers_loads_dense_models(folders, monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "1")
    monkeypatch.delattr(onednn, "MkldnnLinear")
    assert packer() is None and not enabled()
    pair = load_pair(str(folders[0]), str(folders[1]))
    assert not any(is_packed(m) for m in pair.target.modules())
    ids = pair.tokenizer.encode("the cat sat on the mat")
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=16))
    assert generate(pair, Request(ids, gamma=4, max_new_tokens=16)).new_ids == plain.new_ids


@needs_onednn
def test_a_torch_with_packed_layers_packs(monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "1")
    assert packer() is onednn.MkldnnLinear and enabled()


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


# --- the packed weights replace the dense ones; a draft shares what equals its target's ----------

def save_tied(folder, layers=2, seed=0):
    """A tiny llama whose LM head is its embedding table (as SmolLM2's), saved as a folder."""
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(WORDS), hidden_size=16, intermediate_size=32, num_hidden_layers=layers,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
                         eos_token_id=1, pad_token_id=1, tie_word_embeddings=True)
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    return model


@pytest.fixture(scope="module")
def tied(tmp_path_factory, folders):
    """A tied target, an early exit of it (its first layer and head, like the weak draft) and a draft
    with its own layers but the target's embedding table (like the distilled draft)."""
    root = tmp_path_factory.mktemp("tied")
    target = save_tied(root / "target")
    early = LlamaForCausalLM(LlamaConfig(**{**target.config.to_dict(), "num_hidden_layers": 1}))
    early.load_state_dict(target.state_dict(), strict=False)
    early.save_pretrained(root / "early")
    own = save_tied(root / "own", layers=1, seed=5)
    own.model.embed_tokens.weight.data.copy_(target.model.embed_tokens.weight)
    own.config.tie_word_embeddings = False
    own.lm_head.weight = torch.nn.Parameter(torch.randn_like(own.lm_head.weight))
    own.save_pretrained(root / "own")
    tokenizer = folders[0]
    for name in ("target", "early", "own"):
        for f in tokenizer.glob("tokenizer*"):
            (root / name / f.name).write_bytes(f.read_bytes())
    return root


def tensor_bytes(*models) -> int:
    """Bytes of the distinct tensors of some models (a tensor shared between them counted once)."""
    seen = {}
    for model in models:
        for module in model.modules():
            for t in (*module._parameters.values(), *module._buffers.values()):
                if t is not None:
                    seen[id(t)] = t.numel() * t.element_size()
    return sum(seen.values())


def mapped(folder) -> bool:
    """Whether this process maps a file of `folder` into memory (Linux)."""
    with open("/proc/self/maps") as maps:
        return str(folder) in maps.read()


needs_linux = pytest.mark.skipif(not __import__("os").path.exists("/proc/self/maps"), reason="reads /proc/self/maps")


@needs_onednn
@needs_linux
def test_packed_weights_replace_the_dense_ones(tied, monkeypatch):
    monkeypatch.setenv("SPECLAB_PACK", "1")
    pair = load_pair(str(tied / "target"), str(tied / "own"))
    target = pair.target
    assert not any(type(m) is torch.nn.Linear for m in target.modules())      # every layer packed
    assert is_packed(target.lm_head) and not target.model.embed_tokens.weight.is_mkldnn
    assert not mapped(tied / "target") and not mapped(tied / "own")           # nothing left in the files
    monkeypatch.setenv("SPECLAB_PACK", "0")
    dense = load_pair(str(tied / "target"), str(tied / "own"))
    head = target.lm_head.weight.numel() * 4            # the tied head: packed beside the dense embedding
    zeros = sum(m.bias.numel() * 4 for model in (pair.target, pair.draft) for m in model.modules() if is_packed(m))
    assert tensor_bytes(pair.target, pair.draft) == tensor_bytes(dense.target, dense.draft) + head + zeros


@pytest.mark.parametrize("pack", ["1", pytest.param("0")])
def test_a_draft_shares_the_targets_equal_tensors_and_decodes_as_before(tied, monkeypatch, pack):
    if pack == "1" and not torch.backends.mkldnn.is_available():
        pytest.skip("this torch build has no oneDNN")
    monkeypatch.setenv("SPECLAB_PACK", pack)
    pair = load_pair(str(tied / "target"), str(tied / "own"))
    assert pair.draft.model.embed_tokens.weight is pair.target.model.embed_tokens.weight
    assert pair.draft.lm_head.weight is not pair.target.model.embed_tokens.weight     # its own head stays
    assert pair.draft_params == AutoModelForCausalLM.from_pretrained(tied / "own").num_parameters()
    early = load_draft(str(tied / "early"), pair)                                    # the target's first layer
    assert tensor_bytes(pair.target, early) == tensor_bytes(pair.target)
    ids = pair.tokenizer.encode("the cat sat on the mat and the dog")
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=20))
    assert generate(pair, Request(ids, gamma=4, max_new_tokens=20)).new_ids == plain.new_ids
    with_early = replace(pair, draft=early)
    assert generate(with_early, Request(ids, gamma=4, max_new_tokens=20)).new_ids == plain.new_ids
    fresh = AutoModelForCausalLM.from_pretrained(tied / "early").eval()
    with torch.inference_mode():
        x = torch.tensor([ids])
        assert torch.allclose(early(input_ids=x).logits, fresh(input_ids=x).logits, atol=1e-4)


def test_tensors_that_differ_are_not_shared(tied):
    target = AutoModelForCausalLM.from_pretrained(tied / "target").eval()
    other = AutoModelForCausalLM.from_pretrained(tied / "target").eval()
    with torch.no_grad():
        other.model.norm.weight.add_(1.0)
    shared = share_tensors(other, target)
    theirs = dict(target.named_parameters(remove_duplicate=False))
    mine = dict(other.named_parameters(remove_duplicate=False))
    assert [name for name in mine if mine[name] is not theirs[name]] == ["model.norm.weight"]
    assert other.lm_head.weight is other.model.embed_tokens.weight          # still tied, to the target's table
    assert shared == len(mine) - 1 + len(list(target.buffers()))


@needs_onednn
def test_a_packed_random_draft_prepared_with_zero_logits_is_made_afresh_when_switched_to(folders, tmp_path, monkeypatch):
    """A random draft saved with all-zero weights is loaded packed; the variant switch cannot edit a
    packed head, so it drafts with a fresh random draft (lab.pairs.variants) and stays exact."""
    from lab.pairs.draftmodels import make_random
    from lab.pairs.variants import DraftVariants, all_zero_head
    monkeypatch.setenv("SPECLAB_PACK", "1")
    pair = load_pair(str(folders[0]), str(folders[1]))
    zero = make_random(pair.target.config.vocab_size)
    with torch.no_grad():
        for p in zero.parameters():
            p.zero_()
    zero.save_pretrained(tmp_path / "random")
    for f in folders[0].glob("tokenizer*"):
        (tmp_path / "random" / f.name).write_bytes(f.read_bytes())
    pair = replace(pair, teaching_drafts={"random": (str(tmp_path / "random"), "")})
    assert is_packed(load_draft(str(tmp_path / "random"), pair).lm_head)
    random = DraftVariants().pair(pair, "random")
    assert not all_zero_head(random.draft)
    ids = pair.tokenizer.encode("the cat sat on the mat")
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=12))
    assert generate(random, Request(ids, gamma=3, max_new_tokens=12)).new_ids == plain.new_ids
