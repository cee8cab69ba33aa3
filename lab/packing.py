"""Linear layers packed once for the CPU's matrix library, so checking γ + 1 positions costs
little more than checking one.

PyTorch's default CPU matmul re-reads each weight matrix in a layout made for big batches; for the
2–17 rows of a verify pass it is slow (on a 2-core laptop a target call over 3 positions took twice
as long as over 1). `torch.utils.mkldnn.to_mkldnn` re-lays every `nn.Linear` weight out once for
oneDNN, whose small-batch kernels keep a verify pass close to one call: measured on the embedded
target, 1 position 50 ms, 5 positions 64 ms, 9 positions 68 ms (was 55, 71, 80, and 92 ms at 2).
Plain and speculative decoding run the same packed model, so comparisons stay fair.

On by default for the models the pair loader loads (`python -m lab measure`, the benches);
`SPECLAB_PACK=0` keeps them dense, and a served lab (app.py) keeps them dense unless
`SPECLAB_PACK=1`: packed weights are a copy, and a 40-student class's server then peaked at 2.1 GB. oneDNN's
threads meet at the end of every layer: with libgomp's default spin (300,000 turns) a packed call
took 3–4 s instead of 0.1 s while other processes held the cores, and with no spin at all
(`OMP_WAIT_POLICY=PASSIVE`) an idle one took 90 ms instead of 50. `import lab` therefore sets
`GOMP_SPINCOUNT=10000` before torch loads, unless the environment sets it. A model whose packed
logits do not agree with the original on a probe input is left as it was.
"""
from __future__ import annotations

import logging
import os

import torch

log = logging.getLogger(__name__)


def parameter_count(model) -> int:
    """Parameters of a model, counted before packing (packed weights become buffers)."""
    return getattr(model, "speclab_parameters", None) or sum(p.numel() for p in model.parameters())


@torch.inference_mode()
def pack_for_cpu(model, vocab_size: int):
    """The model with its nn.Linear layers packed for oneDNN, when that is available and agrees
    with the dense layers on a probe (same greedy tokens, logits within float rounding); else unchanged."""
    model.speclab_parameters = parameter_count(model)
    if os.environ.get("SPECLAB_PACK", "1") == "0" or not torch.backends.mkldnn.is_available():
        return model
    from torch.utils.mkldnn import MkldnnLinear
    probe = torch.arange(1, 17).remainder(vocab_size).reshape(1, -1)
    before = model(input_ids=probe).logits
    swaps = [(parent, name, child) for parent in model.modules() for name, child in parent.named_children()
             if type(child) is torch.nn.Linear]
    try:
        for parent, name, child in swaps:
            setattr(parent, name, MkldnnLinear(child, torch.float))
        after = model(input_ids=probe).logits
        agrees = torch.equal(before.argmax(-1), after.argmax(-1)) and torch.allclose(before, after, rtol=1e-3, atol=1e-2)
    except (RuntimeError, TypeError) as err:     # an unsupported layer or build
        log.info("packing for the CPU skipped (%s)", err)
        agrees = False
    if not agrees:                               # put the dense layers back
        for parent, name, child in swaps:
            setattr(parent, name, child)
    return model
