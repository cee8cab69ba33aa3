"""A fake wheel for preparation tests: it holds a tiny one-layer llama GGUF we write ourselves.

    wheel, sha = fake_wheel                      # the module-scoped fixture (tests/lab/conftest.py)
    ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    assert_clean(tmp_path)
"""
from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import numpy as np

from lab.pairs import prepare
from lab.pairs.prepare import WheelSource

TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + [chr(c) for c in range(97, 123)] + ["Ġ", "Ġt", "he", "Ġthe"]
MERGES = ["Ġ t", "h e", "Ġt he"]
REPO = Path(__file__).resolve().parents[2]


def write_tiny_gguf(path: Path, hidden: int = 16, layers: int = 1, heads: int = 2, kv: int = 1, ffn: int = 32):
    """A one-layer llama GGUF with a byte-level BPE vocabulary of 33 tokens (float32 tensors)."""
    vocab = len(TOKENS)
    import gguf
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


def make_fake_wheel(folder: Path) -> tuple[Path, str]:
    """The wheel in `folder` and its sha256."""
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


def assert_clean(root: Path, drafts=("weak", "random")) -> None:
    """A finished cache: the lock file, the wheel and the prepared folders, and nothing temporary."""
    assert {p.name for p in root.iterdir()} == {prepare.LOCK_NAME, "downloads", "smollm2-135m"}
    assert [p.suffix for p in (root / "downloads").iterdir()] == [".whl"]
    home = prepare.embedded_dir(root)
    assert {p.name for p in home.iterdir()} == {"target", *(f"draft-{d}" for d in drafts)}
    assert all((p / "READY.json").exists() for p in home.iterdir())
    strays = [p for p in root.rglob("*") if p.name.startswith((prepare.TMP_PREFIX, ".tmp"))
              or p.name.endswith((".partial", ".tmp"))]
    assert strays == []
