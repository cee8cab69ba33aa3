"""Where a pair's models run: the device (the CPU, a CUDA GPU, Apple silicon's MPS) and the dtype.

A lecture-scale pair (a 1B draft for an 8B target) shows the method's real speed-up only on a GPU;
the embedded default pair is made for the CPU (its layers are packed for oneDNN, lab.pairs.packing) and
stays there in float32.

    choose("auto")                       # Placement("cuda", "bfloat16") where torch sees a CUDA GPU
    choose("cuda")                       # no GPU here: Placement("cpu", "float32", "The device cuda ...")
    requested(["--device", "mps"])       # ("mps", None): what the command line or the environment asked
    sync("cuda")                         # wait for the queued kernels before reading a clock
    free_bytes("cuda")                   # memory free where the models would go

"auto" picks CUDA, then MPS, then the CPU; the dtype follows the device (bfloat16 on CUDA, float16
on MPS, float32 on the CPU) unless one is asked for. Probabilities are computed in `exact_dtype`
whatever the models' dtype: float64, or float32 on MPS, which has no float64.
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

import torch

from lab.i18n import N_, Said

DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("float32", "bfloat16", "float16")
DEFAULT_DTYPE = {"cpu": "float32", "cuda": "bfloat16", "mps": "float16"}
BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2, "int8": 1}
NAMES = {"cpu": "the CPU", "cuda": "the CUDA GPU", "mps": "the Apple-silicon GPU (MPS)"}


@dataclass(frozen=True)
class Placement:
    """Where and in what dtype a pair's models live; `note` is the one sentence saying why it is not
    what was asked for ("" when it is)."""
    device: str = "cpu"
    dtype: str = "float32"
    note: str = ""

    @property
    def packs(self) -> bool:
        """Whether the models' layers are packed for the CPU (lab.pairs.packing: CPU and float32 only)."""
        return self.device == "cpu" and self.dtype == "float32"


CPU = Placement()


def available(device: str) -> bool:
    """Whether torch can run on `device` here ("cpu" always)."""
    if device == "cuda":
        return torch.cuda.is_available()
    if device == "mps":
        mps = getattr(torch.backends, "mps", None)
        return bool(mps is not None and mps.is_available())
    return device == "cpu"


def best() -> str:
    """The device "auto" picks: CUDA, then MPS, then the CPU."""
    return next(device for device in ("cuda", "mps", "cpu") if available(device))


def choose(device: str = "auto", dtype: str | None = None) -> Placement:
    """The placement for `device` (one of DEVICES) and `dtype` (one of DTYPES, None: the device's
    own). A device that is not here, or a name that is not a device or dtype, gives the CPU in
    float32 (or the device's own dtype) with one sentence in `note`; nothing is raised."""
    device = (device or "auto").strip().lower()
    dtype = (dtype or "").strip().lower() or None
    if device not in DEVICES:
        return Placement(note=Said(N_("There is no device {device} (choose {names} or {last}); the pair runs on "
                                      "the CPU in float32."), device=repr(device), names=", ".join(DEVICES[:-1]),
                                   last=DEVICES[-1]))
    if device == "auto":
        device = best()
    elif not available(device):
        return Placement(note=Said(N_("The device {device} was asked for, but torch finds no {name} on this "
                                      "machine; the pair runs on the CPU in float32."), device=device,
                                   name=NAMES[device][4:]))
    if dtype is not None and dtype not in DTYPES:
        return Placement(device, DEFAULT_DTYPE[device],
                         Said(N_("There is no dtype {dtype} (choose {names} or {last}); the pair runs in {own}."),
                              dtype=repr(dtype), names=", ".join(DTYPES[:-1]), last=DTYPES[-1],
                              own=DEFAULT_DTYPE[device]))
    return Placement(device, dtype or DEFAULT_DTYPE[device])


def requested(argv: list[str] | None = None, environ: dict | None = None) -> tuple[str, str | None]:
    """(device, dtype) asked for by `--device` / `--dtype` (argv wins), else by `SPECLAB_DEVICE` /
    `SPECLAB_DTYPE`, else ("auto", None)."""
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--device")
    parser.add_argument("--dtype")
    args, _ = parser.parse_known_args(argv or [])
    return (args.device or environ.get("SPECLAB_DEVICE") or "auto",
            args.dtype or environ.get("SPECLAB_DTYPE") or None)


def torch_dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def exact_dtype(device) -> torch.dtype:
    """The dtype probabilities are computed in on `device`: float64, or float32 on MPS (no float64)."""
    return torch.float32 if torch.device(device).type == "mps" else torch.float64


def move(model, device: str, dtype: str):
    """`model` on `device` in `dtype` (in place for a torch module; returned)."""
    return model.to(device=device, dtype=torch_dtype(dtype))


def sync(device) -> None:
    """Wait until `device` has run every kernel queued so far (GPUs run them asynchronously, so a
    clock read without this times the queueing, not the work); nothing to do on the CPU."""
    kind = torch.device(device).type
    if kind == "cuda":
        torch.cuda.synchronize()
    elif kind == "mps":
        torch.mps.synchronize()


def free_bytes(device: str) -> int | None:
    """Bytes free where models on `device` would go (None where it cannot be told): the CUDA GPU's
    free memory, the memory Metal recommends for MPS less what it holds, else the RAM available."""
    kind = torch.device(device).type
    if kind == "cuda":
        return int(torch.cuda.mem_get_info()[0])
    if kind == "mps" and hasattr(torch.mps, "recommended_max_memory"):
        return int(torch.mps.recommended_max_memory() - torch.mps.driver_allocated_memory())
    return ram_available()


def ram_available() -> int | None:
    """The RAM available to new allocations (psutil, else /proc/meminfo's MemAvailable)."""
    try:
        import psutil
        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def size_text(n_bytes: float) -> str:
    """Bytes as "1.5 GB", "340 MB" or "12 kB"."""
    if n_bytes >= 2**30:
        return f"{n_bytes / 2**30:.1f} GB"
    return f"{n_bytes / 2**20:.0f} MB" if n_bytes >= 2**20 else f"{max(1, round(n_bytes / 2**10))} kB"


def memory_name(device: str) -> str:
    """What a refusal calls the memory of `device`."""
    return {"cuda": N_("GPU memory"), "mps": N_("Apple-silicon GPU memory")}.get(device, N_("memory"))
