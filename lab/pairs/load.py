"""The model pair: a target and a draft model sharing one tokenizer, loaded for a server's class.

The engine and the pages only ever see a `ModelPair`; how it was found (the embedded default, a
registry name, a hub id, a local folder) is the loader's business.

    pair = load_requested(["--pair", "tiny"])          # what a server's arguments ask for
    pair = load_named("random")                         # a pair from models/pairs.toml
    pair = load_pair("gpt2", "distilgpt2")              # hub ids or local folders
    spec = resolve_pair(["--pair", "weak"])             # what the command line / env asked for

A lecturer's pair that cannot be used never stops the lab: `load_requested` logs the one-sentence reason,
falls back to the embedded default and keeps that sentence in `pair.notes["warning"]`.

Where the models run (lab.devices): `--device auto|cpu|cuda|mps` and `--dtype` (or `SPECLAB_DEVICE`,
`SPECLAB_DTYPE`); "auto" picks CUDA, then MPS, then the CPU, with the device's own dtype. The
embedded pair stays on the CPU in float32 (its layers are packed for the CPU), and the tiny test pairs
stay there unless a device is named. A device that is not here is one sentence in the log and in
`pair.notes["warning"]`, and the pair runs on the CPU.
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Callable

from lab import devices
from lab.devices import Placement
from lab.errors import ROLES, PairError, public_message  # PairError stays importable from here: one class
from lab.pairs.checks import check_memory, check_same_vocabulary, missing_folder, placement_for  # noqa: F401  (importable here)
from lab.i18n import N_, Said
from lab.pairs.modelpair import ModelPair
from lab.pairs.packing import pack_for_cpu
from lab.pairs.registry import (EMBEDDED, TINY, PairSpec, short_ref, check_drafting, default_name, listed,  # noqa: F401
                                registry, resolve_pair, teaching_drafts)

log = logging.getLogger(__name__)


def quiet_loading() -> None:
    """transformers' notices (a config-class notice for our own draft type) and progress bars
    ("Loading weights") off in this process: whoever loads a pair says one line about it."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from transformers.utils import logging as hf_logging
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


def _resolve_ref(ref: str, progress) -> Path | str:
    """A local folder or hub id; `embedded:NAME` is prepared on first use (see lab.pairs.prepare)."""
    if ref.startswith(EMBEDDED):
        from lab.pairs.prepare import ensure_embedded
        home = ensure_embedded(progress=progress)
        part = ref[len(EMBEDDED):]
        folder = home / (part if part == "target" else f"draft-{part}")
        if not folder.exists() and part == "distilled":
            raise PairError(Said(N_("The distilled draft is not shipped in this checkout (models/smollm2-distilled); "
                                    "use the pair 'weak' or train one with models/distil/.")))
        return folder
    path = Path(ref).expanduser()
    if path.exists():
        return path
    looks_local = ref.startswith((".", "/", "~")) or ref.count("/") > 1 or "\\" in ref
    if looks_local:
        raise missing_folder(ref)
    return ref


TOO_BIG = N_("The {role} {name} does not fit in memory; choose a smaller model.")


def _refusal(role: str, ref, message: str, **values) -> PairError:
    """The error `message` (marked N_) about the `role` ("target" or "draft") model `ref`, its
    `{role}` and `{name}` filled in; pages name `ref` as lab.errors.public_ref shows it."""
    return PairError.naming(ref, message, role=ROLES[role], **values)


def _needs_remote_code(role: str, ref, in_config: bool = False) -> PairError:
    if in_config:
        return _refusal(role, ref, N_("The {role} {name} needs remote code (auto_map in its config), which the lab "
                                      "never runs; choose a model that transformers supports natively."))
    return _refusal(role, ref, N_("The {role} {name} needs remote code, which the lab never runs; choose a model "
                                  "that transformers supports natively."))


def _first_line(err: BaseException) -> str:
    """The start of the library's own words for `err` (its type when it says nothing)."""
    return (str(err).splitlines() or [type(err).__name__])[0][:120]


def _config_dict(ref: Path | str, role: str) -> dict:
    if isinstance(ref, Path):
        cfg = ref / "config.json"
        if not cfg.exists():
            raise _refusal(role, ref, N_("The {role} folder {name} has no config.json; point to a saved Hugging Face "
                                         "model folder."))
        return json.loads(cfg.read_text())
    from transformers import PretrainedConfig
    try:
        return PretrainedConfig.get_config_dict(ref)[0]
    except OSError as err:
        offline = os.environ.get("HF_HUB_OFFLINE") == "1"
        raise PairError(Said(N_("Could not find the {role} {name} locally or on the Hugging Face hub{offline}; "
                                "download it before class (hf download {ref}) or give a local folder."),
                             role=ROLES[role], name=repr(ref), ref=ref,
                             offline=Said(N_(" (offline mode)")) if offline else "")) from err


def _native_config(ref: Path | str, role: str) -> dict:
    """The model's config; refused in one sentence when it needs remote code, which the lab never runs."""
    config = _config_dict(ref, role)
    if "auto_map" in config:
        raise _needs_remote_code(role, ref, in_config=True)
    return config


def load_model(ref: Path | str, role: str, share=None, placement: Placement = devices.CPU):
    """One model of a pair, checked, in `placement`'s device and dtype, eval mode, no gradients;
    on the CPU in float32 its layers packed (lab.pairs.packing), sharing `share`'s equal tensors."""
    import torch
    from transformers import AutoModelForCausalLM
    import lab.pairs.draftmodels  # noqa: F401  registers our own shortlist draft type (no remote code)

    config = _native_config(ref, role)
    check_memory(ref, role, config, placement)
    try:
        model = AutoModelForCausalLM.from_pretrained(ref, dtype=devices.torch_dtype(placement.dtype),
                                                     trust_remote_code=False)
        model = devices.move(model, placement.device, placement.dtype)
    except (torch.OutOfMemoryError, MemoryError) as err:
        raise _refusal(role, ref, TOO_BIG) from err
    except ValueError as err:
        if "trust_remote_code" in str(err):
            raise _needs_remote_code(role, ref) from err
        raise _refusal(role, ref, N_("The {role} {name} is not a causal language model transformers can load "
                                     "({why}); choose a text-generation model."), why=_first_line(err)) from err
    except RuntimeError as err:
        if "memory" in str(err).lower() or "allocate" in str(err).lower():
            raise _refusal(role, ref, TOO_BIG) from err
        raise _refusal(role, ref, N_("The {role} {name} could not be loaded ({why}); check its files or choose "
                                     "another model."), why=_first_line(err)) from err
    except OSError as err:
        raise _refusal(role, ref, N_("The {role} {name} has no usable weights ({why}); check the folder or "
                                     "download it again."), why=_first_line(err)) from err
    model.requires_grad_(False)
    model.eval()
    if not placement.packs:        # packing is for the CPU's float32 matrix library
        return model
    # verify passes near one call's cost, and a draft's tensors equal to its target's kept once
    # (lab.pairs.packing)
    return pack_for_cpu(model, model.config.vocab_size, share=share)


def _load_tokenizer(ref: Path | str, role: str):
    from transformers import AutoTokenizer
    try:
        return AutoTokenizer.from_pretrained(ref, trust_remote_code=False)
    except (OSError, ValueError, TypeError) as err:
        raise _refusal(role, ref, N_("The {role} {name} has no tokenizer the lab can load; save its tokenizer next "
                                     "to the model (tokenizer.save_pretrained).")) from err


def load_pair(target: str, draft: str, name: str = "custom", progress: Callable | None = None,
              target_label: str = "", draft_label: str = "", placement: Placement = devices.CPU) -> ModelPair:
    """Load and check a pair (hub ids, local folders or `embedded:NAME`) on `placement`'s device and
    dtype (default: the CPU in float32), eval mode.

    Raises PairError with one sentence when either model is missing, needs remote code, is not a
    causal LM, does not fit in the memory free on its device, or when the two do not share one
    vocabulary.
    """
    target_path, draft_path = _resolve_ref(target, progress), _resolve_ref(draft, progress)
    # cheap checks on both configs before loading any weights
    for ref, role in ((target_path, "target"), (draft_path, "draft")):
        _native_config(ref, role)
    target_tok, draft_tok = _load_tokenizer(target_path, "target"), _load_tokenizer(draft_path, "draft")
    check_same_vocabulary(target_tok, draft_tok, target_ref=target, draft_ref=draft)
    if progress:
        progress(0.9, Said(N_("loading {target} and {draft}"), target=short_ref(target), draft=short_ref(draft)))
    target_model = load_model(target_path, "target", placement=placement)
    draft_model = load_model(draft_path, "draft", share=target_model, placement=placement)
    check_same_vocabulary(target_tok, draft_tok, target_model, draft_model, target, draft)
    notes = {"target_ref": str(target_path), "draft_ref": str(draft_path)}
    return ModelPair(target=target_model, draft=draft_model, tokenizer=target_tok, name=name,
                     target_label=target_label or short_ref(target), draft_label=draft_label or short_ref(draft),
                     device=placement.device, dtype=placement.dtype, notes=notes)


def load_draft(ref: str, pair: ModelPair):
    """Another draft for `pair`'s target (a teaching draft, lab.pairs.variants), loaded and checked like
    the pair's own: its logits must be as wide as the target's."""
    model = load_model(_resolve_ref(ref, None), "draft", share=pair.target,
                       placement=Placement(pair.device, pair.dtype))
    check_same_vocabulary(pair.tokenizer, pair.tokenizer, pair.target, model, pair.target_label, ref)
    return model


def load_spec(spec: PairSpec, progress: Callable | None = None, device: str | None = None,
              dtype: str | None = None, args: list[str] = ()) -> ModelPair:
    """Load the pair `spec` names on the device and dtype asked for (None: the server's arguments'
    `--device` / `--dtype` in `args`, else SPECLAB_DEVICE / SPECLAB_DTYPE, else "auto":
    `placement_for`). When the device or dtype asked for cannot be used, its one sentence is logged
    and kept in `pair.notes["warning"]`."""
    asked_device, asked_dtype = devices.requested(list(args))
    placement = placement_for(spec, device or asked_device, dtype or asked_dtype)
    if placement.note:
        log.warning(placement.note)
    if spec.target_id.startswith(TINY):              # a tiny random-weight pair (tests, benchmarks)
        from lab.pairs.tiny import tiny_pair
        pair = place(tiny_pair(spec.target_id[len(TINY):]), placement)
        pair.name = spec.name
    else:
        pair = load_pair(spec.target_id, spec.draft_id, spec.name, progress, spec.target_label, spec.draft_label,
                         placement)
    if placement.note:
        pair.notes["warning"] = placement.note
    pair.draft_label = draft_model_label(spec) or pair.draft_label   # the model, not its drafting
    pair.drafter, pair.policy = spec.drafter, spec.policy
    pair.teaching_drafts = teaching_drafts(spec)
    if spec.description:
        pair.notes["description"] = spec.description
    return pair


def draft_model_label(spec: PairSpec) -> str:
    """The draft model's name for pages (beside the student's choice of who guesses): a registry pair
    drafting by lookup labels its drafting, which only `measure` reports; its model is named as the
    registry pair drafting with that model alone names it."""
    specs = registry()
    if spec.name not in specs or specs[spec.name].drafter == "model":
        return spec.draft_label
    return next((s.draft_label for s in specs.values() if s.draft_id == spec.draft_id and s.drafter == "model"
                 and s.draft_label), short_ref(spec.draft_id))


def place(pair: ModelPair, placement: Placement) -> ModelPair:
    """`pair` with both models moved to `placement`'s device and dtype (in place; returned)."""
    pair.target = devices.move(pair.target, placement.device, placement.dtype)
    pair.draft = devices.move(pair.draft, placement.device, placement.dtype)
    pair.device, pair.dtype = placement.device, placement.dtype
    return pair


def load_named(name: str, progress: Callable | None = None, args: list[str] = ()) -> ModelPair:
    """A pair from models/pairs.toml by name (on the device the server's arguments `args` ask for:
    `load_spec`); the default pair falls back to the weak draft until a distilled draft is shipped
    (noted in `pair.notes["provisional"]`)."""
    specs = registry()
    if name not in specs:
        raise PairError(Said(N_("There is no pair named {name}; choose one of {names}."), name=repr(name),
                             names=", ".join(specs)))
    spec = specs[name]
    try:
        return load_spec(spec, progress, args=args)
    except PairError as err:
        if spec.draft_id != f"{EMBEDDED}distilled" or "distilled draft is not shipped" not in str(err):
            raise
        pair = load_spec(specs["weak"], progress, args=args)
        pair.name = name
        pair.notes["provisional"] = str(err)
        return pair


# --- the pair a server asks for -----------------------------------------------------------------

def _fallback() -> PairSpec:
    """The pair to use when the one asked for on the command line cannot be: the environment's
    choice, else the registry default."""
    try:
        return resolve_pair([])
    except PairError:
        return registry()[default_name()]


def load_requested(argv: list[str], progress: Callable | None = None) -> ModelPair:
    """The pair a server's arguments `argv` ask for (else the environment's, else the default), on
    the device they ask for, loaded. The server's class state keeps it (serving.runtime.PairInUse).

    A lecturer's pair that fails is reported in one sentence in the log and in
    `pair.notes["warning"]`, and the environment's pair (else the embedded default) is loaded instead.
    """
    try:
        spec, warning = resolve_pair(argv), None
    except PairError as err:
        spec, warning = _fallback(), public_message(err)
        log.warning("%s Using the pair %r.", err, spec.name)
    try:
        pair = (load_named(spec.name, progress, args=argv) if spec == registry().get(spec.name)
                else load_spec(spec, progress, args=argv))
    except PairError as err:
        fallback = _fallback()
        if spec == fallback:
            raise
        log.warning("%s Using the pair %r.", err, fallback.name)
        pair, warning = load_named(fallback.name, progress, args=argv), public_message(err)   # pages show no paths
    if warning and pair.notes.get("warning"):                                # and a device not here
        warning = Said(N_("{refused} {device}"), refused=warning, device=pair.notes["warning"])
    warning = warning or pair.notes.get("warning")
    if warning:
        pair.notes["warning"] = warning
    return pair
