"""Training-side draft code: exporting a distilled shortlist draft (models/distil/train.py).

The draft classes and builders needed at inference (ShortlistLlama*, make_weak, make_random,
make_shortlist_draft, load_distilled) live in lab/drafts.py; they are re-exported here so
`from lab.train import drafts` keeps working for training code.
"""
from __future__ import annotations

import torch

from lab.drafts import (ShortlistHead, ShortlistLlamaConfig, ShortlistLlamaForCausalLM,  # noqa: F401
                        load_distilled, make_random, make_shortlist_draft, make_weak)


def export_distilled(draft: ShortlistLlamaForCausalLM, folder, meta: dict | None = None) -> None:
    """Write our trained part of a shortlist draft (layers, norm, head, shortlist) in bf16; no embeddings."""
    import json
    from pathlib import Path
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: (v if k == "lm_head.ids" else v.to(torch.bfloat16)).contiguous()
             for k, v in draft.state_dict().items() if k != "model.embed_tokens.weight"}
    info = {"num_hidden_layers": draft.config.num_hidden_layers,
            "shortlist_size": draft.config.shortlist_size, **(meta or {})}
    # write both then swap in, so a process preparing the pair never reads half a file
    save_file(state, str(folder / "draft.safetensors.tmp"))
    (folder / "draft.json.tmp").write_text(json.dumps(info, indent=1))
    (folder / "draft.json.tmp").replace(folder / "draft.json")
    (folder / "draft.safetensors.tmp").replace(folder / "draft.safetensors")
