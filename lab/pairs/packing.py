"""Linear layers packed once for the CPU's matrix library, so checking γ + 1 positions costs
little more than checking one; and a draft's tensors that equal its target's kept once.

PyTorch's default CPU matmul re-reads each weight matrix in a layout made for big batches, which
is slow for the 2–17 rows of a verify pass. `torch.utils.mkldnn.MkldnnLinear` re-lays every
`nn.Linear` weight out once for oneDNN, whose small-batch kernels keep a verify pass close to one
call (bench/RESULTS.md has the figures). Plain and speculative decoding run the same packed model,
so comparisons stay fair.

The packed weights replace the dense ones: once a model's packed logits agree with its dense ones
on a probe input, the dense layers are dropped and the model's other tensors are copied out of the
loaded file, so the file's memory map (whose touched pages count as the process's memory) closes.
The one copy kept is the tied embedding / LM head (the embedding lookup needs the dense table, the
head the packed one): about 113 MB on the embedded target. A draft loaded for a target shares every
tensor and packed layer equal to the target's (`share`): the embedded drafts' embedding table, and
all of the weak draft, which is the target's first layers.

On for every model the pair loader loads (a served lab, `python -m lab measure`, the benches);
`SPECLAB_PACK=0` keeps the layers dense, and a torch without oneDNN or without `MkldnnLinear` gets
dense layers too. oneDNN's threads meet at the end of every layer: libgomp's default spin (300,000
turns) makes a packed call many times slower while other processes hold the cores, and no spin at
all (`OMP_WAIT_POLICY=PASSIVE`) slows an idle one. `import lab` therefore sets
`GOMP_SPINCOUNT=10000` before torch loads, unless the environment sets it.
"""
from __future__ import annotations

import logging
import os

import torch

log = logging.getLogger(__name__)


def parameter_count(model) -> int:
    """Parameters of a model, counted before packing and sharing (packed weights become buffers)."""
    return getattr(model, "speclab_parameters", None) or sum(p.numel() for p in model.parameters())


def enabled() -> bool:
    """Whether loaded models are packed: not turned off by SPECLAB_PACK=0 and oneDNN is there."""
    return os.environ.get("SPECLAB_PACK", "1") != "0" and packer() is not None


def packer():
    """torch's packed linear layer class, or None where this torch build has none."""
    if not torch.backends.mkldnn.is_available():
        return None
    try:
        from torch.utils.mkldnn import MkldnnLinear
    except ImportError:                              # a build without it: dense layers
        return None
    return MkldnnLinear


def is_packed(module) -> bool:
    return isinstance(getattr(module, "weight", None), torch.Tensor) and module.weight.is_mkldnn


def _dense(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.to_dense() if tensor.is_mkldnn else tensor


def _same_layer(mine: torch.nn.Linear, theirs) -> bool:
    """Whether a dense linear layer computes what the packed layer `theirs` does."""
    weight = getattr(theirs, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.shape != mine.weight.shape:
        return False
    if not torch.equal(_dense(weight), mine.weight):
        return False
    bias = _dense(theirs.bias)
    if mine.bias is None:          # a packed layer without bias holds zeros
        return not torch.count_nonzero(bias)
    return bias.shape == mine.bias.shape and torch.equal(bias, mine.bias)


@torch.inference_mode()
def share_tensors(model, source) -> int:
    """Point `model`'s parameters and buffers at `source`'s where they have the same name and equal
    values (a draft's embedding table equal to its target's); the number of tensors shared."""
    theirs = dict(source.named_parameters(remove_duplicate=False))
    theirs.update(source.named_buffers(remove_duplicate=False))
    shared = 0
    for module_name, module in model.named_modules(remove_duplicate=False):
        for store in (module._parameters, module._buffers):    # torch internals: tests/test_internals.py
            for name, tensor in store.items():
                other = theirs.get(f"{module_name}.{name}" if module_name else name)
                if (tensor is not None and other is not None and other is not tensor and not other.is_mkldnn
                        and other.shape == tensor.shape and other.dtype == tensor.dtype
                        and torch.equal(other, tensor)):
                    store[name] = other
                    shared += 1
    return shared


@torch.inference_mode()
def _own_memory(model, keep: set[int]) -> None:
    """Copy every dense tensor of `model` not in `keep` (data pointers) into the process's own memory,
    so nothing references the loaded file any more and its memory map closes (tied tensors stay tied)."""
    copies: dict[int, torch.Tensor] = {}
    for module in model.modules():
        for store in (module._parameters, module._buffers):
            for name, tensor in store.items():
                if tensor is None or tensor.is_mkldnn or tensor.data_ptr() in keep:
                    continue
                if id(tensor) not in copies:
                    copy = tensor.detach().clone()
                    if isinstance(tensor, torch.nn.Parameter):
                        copy = torch.nn.Parameter(copy, requires_grad=False)
                    copies[id(tensor)] = copy
                store[name] = copies[id(tensor)]


def _tensor_pointers(model) -> set[int]:
    return {t.data_ptr() for t in (*model.parameters(), *model.buffers()) if not t.is_mkldnn}


@torch.inference_mode()
def pack_for_cpu(model, vocab_size: int, share=None):
    """The model with its nn.Linear layers packed for oneDNN, when packing is on and the packed
    model agrees with the dense one on a probe (same greedy tokens, logits within float rounding);
    else dense. With `share` (a loaded model, e.g. the target of a draft), tensors and layers equal
    to `share`'s are `share`'s own, not copies."""
    model.speclab_parameters = parameter_count(model)
    shared = share_tensors(model, share) if share is not None else 0
    linear = packer() if enabled() else None
    if linear is None:
        if shared:
            _own_memory(model, _tensor_pointers(share))   # the shared tensors' pages leave the draft's file
        return model
    others = dict(share.named_modules()) if share is not None else {}
    probe = torch.arange(1, 17).remainder(vocab_size).reshape(1, -1)
    before = model(input_ids=probe).logits
    swaps = [(parent, f"{path}.{name}" if path else name, name, child)
             for path, parent in model.named_modules() for name, child in parent.named_children()
             if type(child) is torch.nn.Linear]
    try:
        for parent, path, name, child in swaps:
            theirs = others.get(path)
            same = theirs is not None and is_packed(theirs) and _same_layer(child, theirs)
            setattr(parent, name, theirs if same else linear(child, torch.float))
        after = model(input_ids=probe).logits
        agrees = torch.equal(before.argmax(-1), after.argmax(-1)) and torch.allclose(before, after, rtol=1e-3, atol=1e-2)
    except (RuntimeError, TypeError) as err:     # an unsupported layer or build
        log.info("packing for the CPU skipped (%s)", err)
        agrees = False
    if not agrees:                               # put the dense layers back
        for parent, _, name, child in swaps:
            setattr(parent, name, child)
        if shared:
            _own_memory(model, _tensor_pointers(share))
        return model
    _own_memory(model, _tensor_pointers(share) if share is not None else set())
    return model                                 # the dense layers go with `swaps`, the file's map with them
