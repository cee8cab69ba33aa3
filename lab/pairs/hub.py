"""Hub pairs before class: download a pair's Hugging Face models into the local Hugging Face cache,
and tell whether they are there, so the class runs offline.

    hub_ids(spec)                 # the hub ids among a pair's target and draft
    missing(spec)                 # those not in the local cache (looks only; fetches nothing)
    download(spec, progress)      # `python -m lab prepare --pair gpt2`: huggingface_hub.snapshot_download

Only what transformers loads is fetched: the config, the tokenizer files and the safetensors weights.
"""
from __future__ import annotations

import os
from pathlib import Path

from lab.pairs.cachedir import Progress, report
from lab.errors import PairError
from lab.i18n import N_, Said
from lab.pairs.checks import missing_folder
from lab.pairs.registry import EMBEDDED, TINY, PairSpec

FILES = ["*.json", "*.safetensors", "*.txt", "*.model", "*.tiktoken"]   # config, tokenizer, weights
WEIGHTS = ("model.safetensors", "model.safetensors.index.json")


def hub_ids(spec: PairSpec) -> list[str]:
    """The hub ids among the pair's target and draft (not embedded, tiny or local folders)."""
    refs = dict.fromkeys((spec.target_id, spec.draft_id))
    return [ref for ref in refs if not ref.startswith((EMBEDDED, TINY, ".", "/", "~"))
            and not Path(ref).expanduser().exists()]


def cached(repo_id: str) -> bool:
    """Whether the local Hugging Face cache holds the model's config and weights."""
    from huggingface_hub import try_to_load_from_cache

    def has(name: str) -> bool:
        return isinstance(try_to_load_from_cache(repo_id, name), str)
    return has("config.json") and any(has(name) for name in WEIGHTS)


def missing(spec: PairSpec) -> list[str]:
    """The pair's hub ids that are not in the local cache: the class cannot use it offline."""
    return [ref for ref in hub_ids(spec) if not cached(ref)]


def download(spec: PairSpec, progress: Progress | None = None) -> list[str]:
    """Download the pair's hub models into the Hugging Face cache (huggingface_hub's own progress
    bars show each file); returns their ids. One PairError sentence when the hub cannot be reached."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.utils import enable_progress_bars

    again = f"python -m lab prepare {_flags(spec)}"
    for ref in (spec.target_id, spec.draft_id):
        if ref.startswith((".", "/", "~")) and not Path(ref).expanduser().exists():
            raise missing_folder(ref)
    ids = hub_ids(spec)
    if ids and os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0"):
        raise PairError(Said(N_("HF_HUB_OFFLINE is set, so nothing can be downloaded; unset it and run {again} "
                                "where the hub is reachable."), again=again))
    enable_progress_bars()
    for i, repo_id in enumerate(ids):
        report(progress, i / len(ids), N_("downloading {repo} ({i} of {n})"), repo=repo_id, i=i + 1, n=len(ids))
        try:
            snapshot_download(repo_id, allow_patterns=FILES)
        except Exception as err:   # no network, an unknown id, a gated model: one sentence
            reason = str(err).strip().splitlines()[0][:160] if str(err).strip() else type(err).__name__
            raise PairError(Said(N_("Could not download {repo} from the Hugging Face hub ({why}); check the "
                                    "network and the id, then run {again} again."), repo=repo_id, why=reason,
                                 again=again)) from err
    if ids:
        report(progress, 1.0, N_("{pair}: {ids} ready offline"), pair=spec.name, ids=", ".join(ids))
    else:
        report(progress, 1.0, N_("{pair}: nothing to download"), pair=spec.name)
    return ids


def _flags(spec: PairSpec) -> str:
    """The prepare command's flags that name `spec`."""
    return f"--target {spec.target_id} --draft {spec.draft_id}" if spec.name == "custom" else f"--pair {spec.name}"
