"""A lecturer's own pair on the command line: its badge names and the sentence when half is given."""
import json

import pytest

from lab.errors import PairError, public_message
from lab.pairs.registry import label, resolve_pair


def test_hub_ids_are_named_by_their_last_part():
    assert label("gpt2") == "gpt2"
    assert label("HuggingFaceTB/SmolLM2-135M-Instruct") == "SmolLM2-135M-Instruct"


def test_folders_are_named_by_the_model_they_were_saved_from_else_parent_and_own_name(tmp_path):
    saved = tmp_path / "llama-8b" / "target"
    saved.mkdir(parents=True)
    (saved / "config.json").write_text(json.dumps({"_name_or_path": "meta-llama/Llama-3.1-8B"}))
    plain = tmp_path / "llama-1b" / "target"
    plain.mkdir(parents=True)
    (plain / "config.json").write_text(json.dumps({"_name_or_path": str(plain)}))   # saved from a folder
    spec = resolve_pair(["--target", str(saved), "--draft", str(plain)], environ={})
    assert (spec.target_label, spec.draft_label) == ("Llama-3.1-8B", "llama-1b/target")
    assert label(str(tmp_path / "llama-1b" / "target") + "/") == "llama-1b/target"


@pytest.mark.parametrize("given, missing", [("--target", "--draft"), ("--draft", "--target")])
def test_half_a_pair_names_what_was_given_and_what_is_missing(given, missing):
    with pytest.raises(PairError) as err:
        resolve_pair([given, "/nonexistent/model"], environ={})
    assert str(err.value) == (f"A lecturer's pair needs both --target and --draft: {given} /nonexistent/model "
                              f"was given without {missing}; add {missing} (a hub id or local folder).")
    assert "/nonexistent" not in public_message(err.value) and "'model'" in public_message(err.value)
