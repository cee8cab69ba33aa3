"""Loading a lecturer's pair: the checks and their one-sentence messages, with tiny models built here."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
import torch

os.environ["HF_HUB_OFFLINE"] = "1"

from lab.pairs import load  # noqa: E402
from lab.pairs.load import ModelPair, PairError, load_pair, resolve_pair  # noqa: E402
from tests.helpers import WORDS, save_tiny  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pairs")
    out = {"target": save_tiny(root / "target", layers=2), "draft": save_tiny(root / "draft", seed=1)}
    out["other_vocab"] = save_tiny(root / "other_vocab", words=WORDS[:-1] + ["bird"], seed=2)
    remote = save_tiny(root / "remote", seed=3)
    cfg = json.loads((remote / "config.json").read_text())
    cfg["auto_map"] = {"AutoModelForCausalLM": "modeling_evil.EvilForCausalLM"}
    (remote / "config.json").write_text(json.dumps(cfg))
    out["remote"] = remote
    out["wide"] = save_tiny(root / "wide", seed=4, vocab_size=len(WORDS) + 6)
    return out


def test_matched_pair_loads(tiny):
    pair = load_pair(str(tiny["target"]), str(tiny["draft"]))
    assert isinstance(pair, ModelPair)
    assert not pair.target.training and not pair.draft.training
    assert pair.target.dtype == torch.float32 and pair.device == "cpu"
    assert not any(p.requires_grad for p in pair.draft.parameters())
    assert pair.tokenizer.encode("the cat sat") == [2, 3, 4]
    assert pair.target_label == "target" and pair.draft_label == "draft"


def test_mismatched_vocabulary_is_refused(tiny):
    with pytest.raises(PairError, match="use different vocabularies") as err:
        load_pair(str(tiny["target"]), str(tiny["other_vocab"]))
    assert "choose a draft that shares the target's tokenizer" in str(err.value)


def test_mismatched_logit_width_is_refused(tiny):
    with pytest.raises(PairError, match="output logits"):
        load_pair(str(tiny["target"]), str(tiny["wide"]))


def test_missing_path_is_refused(tmp_path):
    with pytest.raises(PairError, match="There is no model folder at") as err:
        load_pair(str(tmp_path / "nowhere" / "target"), str(tmp_path / "nowhere" / "draft"))
    assert "check the path" in str(err.value)


def test_folder_without_config_is_refused(tmp_path, tiny):
    with pytest.raises(PairError, match="has no config.json"):
        load_pair(str(tmp_path), str(tiny["draft"]))


def test_remote_code_is_refused_in_one_sentence_the_page_shows_without_its_path(tiny):
    from lab.pairs.load import load_model
    with pytest.raises(PairError, match="needs remote code") as err:
        load_pair(str(tiny["target"]), str(tiny["remote"]))
    assert "never runs" in str(err.value) and str(tiny["remote"]) in str(err.value)
    with pytest.raises(PairError) as alone:                       # the model alone: the same sentence
        load_model(tiny["remote"], "draft")
    assert str(alone.value) == str(err.value)
    assert err.value.public_message == str(err.value).replace(str(tiny["remote"]), "'remote'")


def test_unreachable_hub_id_is_refused(tiny):
    with pytest.raises(PairError, match="Could not find the target") as err:
        load_pair("speclab-test/no-such-model", str(tiny["draft"]))
    assert "download it before class (hf download speclab-test/no-such-model)" in str(err.value)
    assert "`" not in str(err.value)                   # plain text: a page shows backticks as they are


def test_model_too_big_for_memory_is_refused(tiny, monkeypatch):
    import psutil

    class Tiny:
        available = 1000  # bytes
    monkeypatch.setattr(psutil, "virtual_memory", lambda: Tiny())
    with pytest.raises(PairError, match="of memory is free; choose a smaller model"):
        load_pair(str(tiny["target"]), str(tiny["draft"]))


def test_resolve_pair_from_argv_and_environment():
    assert resolve_pair(["--pair", "random"], {}).name == "random"
    spec = resolve_pair(["serve", "--target", "gpt2", "--draft", "distilgpt2"], {})
    assert (spec.name, spec.target_id, spec.draft_id) == ("custom", "gpt2", "distilgpt2")
    assert resolve_pair([], {"SPECLAB_PAIR": "weak"}).name == "weak"
    env = resolve_pair([], {"SPECLAB_TARGET": "/m/t", "SPECLAB_DRAFT": "/m/d"})
    assert (env.target_id, env.draft_id) == ("/m/t", "/m/d")
    assert resolve_pair(["--pair", "random"], {"SPECLAB_PAIR": "weak"}).name == "random"  # argv wins
    assert resolve_pair([], {}).name == load.default_name()
    with pytest.raises(PairError, match="There is no pair named 'nope'"):
        resolve_pair(["--pair", "nope"], {})
    with pytest.raises(PairError, match="needs both --target and --draft"):
        resolve_pair(["--target", "gpt2"], {})


def test_registry_lists_teaching_and_hub_pairs():
    reg = load.registry()
    assert list(reg)[0] == load.default_name()
    assert {"random", "weak", "gpt2", "smollm2-1.7b", "qwen2.5-1.5b"} <= set(reg)
    assert reg["gpt2"].needs_download and not reg["random"].needs_download


@pytest.fixture
def small_registry(tiny, tmp_path, monkeypatch):
    toml = tmp_path / "pairs.toml"
    toml.write_text(f'default = "tiny"\n[pairs.tiny]\ntarget = "{tiny["target"]}"\ndraft = "{tiny["draft"]}"\n'
                    f'[pairs.bad]\ntarget = "{tiny["target"]}"\ndraft = "{tiny["other_vocab"]}"\n')
    import lab.pairs.registry
    monkeypatch.setattr(lab.pairs.registry, "REGISTRY_PATH", toml)
    monkeypatch.delenv("SPECLAB_PAIR", raising=False)


def test_a_pair_that_fails_falls_back_to_the_default_with_a_warning(small_registry, caplog):
    pair = load.load_requested(["--pair", "bad"])
    assert pair.name == "tiny"
    assert "different vocabularies" in pair.notes["warning"]
    assert "different vocabularies" in caplog.text


def test_a_servers_pair_is_shared_and_loaded_once(small_registry, monkeypatch):
    from serving.runtime import PairInUse
    calls = []
    real = load.load_spec
    monkeypatch.setattr(load, "load_spec", lambda *a, **k: calls.append(1) or real(*a, **k))
    server, got = PairInUse([]), []
    threads = [threading.Thread(target=lambda: got.append(server.current())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 4 and all(p is got[0] for p in got)
    assert PairInUse([]).current() is not got[0] and len(calls) == 2     # another server: its own


def test_teaching_drafts_come_from_the_registry_pairs_on_the_same_target():
    from lab.pairs.registry import teaching_drafts
    reg = load.registry()
    default = teaching_drafts(reg[load.default_name()], reg)
    assert default == {"weak": ("embedded:weak", reg["weak"].draft_label),
                       "random": ("embedded:random", reg["random"].draft_label)}
    assert teaching_drafts(reg["weak"], reg)["weak"] == (None, reg["weak"].draft_label)   # its own draft
    assert teaching_drafts(reg["gpt2"], reg) == {} and teaching_drafts(reg["tiny"], reg) == {}


def test_a_teaching_draft_loads_beside_the_running_pair_and_shares_its_target(tiny, tmp_path, monkeypatch):
    toml = tmp_path / "pairs.toml"
    toml.write_text(f'default = "mine"\n[pairs.mine]\ntarget = "{tiny["target"]}"\ndraft = "{tiny["draft"]}"\n'
                    f'[pairs.weak]\ntarget = "{tiny["target"]}"\ndraft = "{tiny["other_vocab"]}"\n'
                    f'draft_label = "weak one"\n')
    import lab.pairs.registry
    from lab.pairs.variants import DraftVariants
    monkeypatch.setattr(lab.pairs.registry, "REGISTRY_PATH", toml)
    pair = load.load_named("mine")
    assert pair.teaching_drafts == {"weak": (str(tiny["other_vocab"]), "weak one")}
    weak = DraftVariants().pair(pair, "weak")
    assert weak.target is pair.target and weak.tokenizer is pair.tokenizer and weak.draft is not pair.draft
    assert (weak.draft_label, weak.drafter, weak.policy) == ("weak one", "model", "constant")
    with pytest.raises(PairError, match="output logits"):
        load.load_draft(str(tiny["wide"]), pair)        # logits wider than the target's: refused


def test_a_pair_drafting_by_lookup_names_its_draft_model_not_its_drafting():
    """`--pair lookup` drafts by prompt lookup only in `python -m lab measure`; the pages draft with
    the student's choice of who guesses, the draft model by default, so the pair's draft label names
    that model, as the pair drafting with it alone does."""
    from dataclasses import replace
    specs = load.registry()
    for name in ("lookup", "hybrid", "smollm2-distilled"):
        assert load.draft_model_label(specs[name]) == specs["distilled"].draft_label == "distilled draft (ours)"
    assert load.draft_model_label(specs["weak"]) == specs["weak"].draft_label
    custom = resolve_pair(["--target", "/m/t", "--draft", "/m/d", "--drafter", "lookup"], environ={})
    assert load.draft_model_label(custom) == custom.draft_label
    pair = load.load_spec(replace(specs["lookup"], target_id="tiny:llama"))     # the lookup pair, on tiny models
    assert (pair.draft_label, pair.drafter) == ("distilled draft (ours)", "lookup")    # measure's drafter
