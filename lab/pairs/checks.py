"""Where a pair runs and the checks on it before and after its weights load (lab.pairs.load runs
them): its placement (device and dtype), then, each refusing in one sentence, that the weights fit
in the memory free on their device and that the target and the draft share one vocabulary."""
from __future__ import annotations

import json
from pathlib import Path

from lab import devices
from lab.devices import Placement
from lab.errors import ROLES, PairError
from lab.i18n import N_, Said
from lab.pairs.registry import EMBEDDED, TINY, PairSpec


def missing_folder(ref) -> PairError:
    """The error for a local model folder `ref` that is not there (lab.pairs.load, lab.pairs.hub)."""
    return PairError.naming(ref, N_("There is no model folder at {name}; check the path (it must hold config.json)."))


def weights_bytes(ref: Path | str) -> int:
    """Bytes of a model's weight files as stored: a local folder's, or a hub model's in the local
    Hugging Face cache (0 when they cannot be found before loading)."""
    if isinstance(ref, Path):
        return sum(f.stat().st_size for pat in ("*.safetensors", "*.bin") for f in ref.glob(pat))
    from huggingface_hub import try_to_load_from_cache
    single = try_to_load_from_cache(ref, "model.safetensors")
    if isinstance(single, str):
        return Path(single).stat().st_size
    index = try_to_load_from_cache(ref, "model.safetensors.index.json")
    if isinstance(index, str):
        return int(json.loads(Path(index).read_text()).get("metadata", {}).get("total_size") or 0)
    return 0


def check_memory(ref: Path | str, role: str, config: dict, placement: Placement = devices.CPU) -> None:
    """Refuse, before loading, a model whose weights in `placement`'s dtype would not fit in the
    memory free on its device (RAM, or the GPU's): one sentence with both sizes."""
    stored = str(config.get("torch_dtype") or config.get("dtype") or "float32").removeprefix("torch.")
    need = weights_bytes(ref) * devices.BYTES[placement.dtype] / devices.BYTES.get(stored, 4)
    free = devices.free_bytes(placement.device)
    if not need or free is None or need <= 0.9 * free:
        return
    values = dict(role=ROLES[role], need=devices.size_text(need), dtype=placement.dtype,
                  free=devices.size_text(free))
    if placement.device == "cpu":
        raise PairError.naming(ref, N_("The {role} {name} needs about {need} in {dtype} but only {free} of memory "
                                       "is free; choose a smaller model."), **values)
    smaller = Said(N_("a smaller model or --dtype bfloat16") if placement.dtype == "float32" else N_("a smaller model"))
    raise PairError.naming(ref, N_("The {role} {name} needs about {need} in {dtype} on {device} but only {free} of "
                                   "{memory} is free; choose {smaller}."), device=placement.device,
                           memory=Said(devices.memory_name(placement.device)), smaller=smaller, **values)


def check_same_vocabulary(target_tok, draft_tok, target_model=None, draft_model=None,
                          target_ref="target", draft_ref="draft") -> None:
    """Refuse a pair whose token→id maps differ, or whose logits do not have the same width."""
    tv, dv = target_tok.get_vocab(), draft_tok.get_vocab()
    if tv != dv:
        differ = len(set(tv.items()) ^ set(dv.items()))
        raise PairError(Said(N_("The draft {draft} and the target {target} use different vocabularies ({dn} vs "
                                "{tn} tokens, {differ} token-id entries differ); choose a draft that shares the "
                                "target's tokenizer."), draft=draft_ref, target=target_ref, dn=len(dv), tn=len(tv),
                             differ=differ))
    if target_model is not None and draft_model is not None:
        tw, dw = target_model.config.vocab_size, draft_model.config.vocab_size
        if tw != dw:
            raise PairError(Said(N_("The draft {draft} has {dw} output logits but the target {target} has {tw}; "
                                    "choose a draft whose output layer matches the target's."),
                                 draft=draft_ref, target=target_ref, dw=dw, tw=tw))


def placement_for(spec: PairSpec, device: str = "auto", dtype: str | None = None) -> Placement:
    """Where `spec`'s models run when `device` and `dtype` are asked for (lab.devices.choose): the
    embedded pair always on the CPU in float32 (said in one sentence when something else was asked),
    a tiny test pair there too unless a device is named."""
    if spec.target_id.startswith(EMBEDDED):
        if (device or "auto") in ("auto", "cpu") and (dtype or "float32") == "float32":
            return devices.CPU
        asked = ", ".join(f"{what} {value}" for what, value in (("device", device), ("dtype", dtype))
                          if value and value != "auto")
        return Placement(note=f"The embedded pair runs only on the CPU in float32 (its layers are packed for "
                              f"the CPU), so it runs there rather than as asked ({asked}).")
    if spec.target_id.startswith(TINY) and (device or "auto") == "auto" and dtype is None:
        return devices.CPU
    return devices.choose(device, dtype)
