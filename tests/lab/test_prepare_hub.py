"""Hub pairs before class: `python -m lab prepare --pair NAME` (or --target/--draft) downloads into
the Hugging Face cache with progress; whether a pair is there is looked up without the hub. The hub
is never reached here: snapshot_download and the cache lookup are replaced."""
import huggingface_hub
import pytest

from lab.pairs import hub
from lab.pairs.prepare import main as prepare_main
from lab.pairs.registry import registry, resolve_pair


@pytest.fixture
def fake_hub(monkeypatch):
    """The ids downloaded, in order; the hub's cache is what was downloaded."""
    got: list[tuple[str, list]] = []
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download",
                        lambda repo_id, allow_patterns=None, **kw: got.append((repo_id, allow_patterns)) or "/x")
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache",
                        lambda repo, name, **kw: f"/cache/{repo}/{name}" if repo in {r for r, _ in got} else None)
    return got


def test_prepare_a_named_hub_pair_downloads_both_with_progress(fake_hub, capsys):
    assert hub.missing(registry()["gpt2"]) == ["gpt2", "distilgpt2"]
    assert prepare_main(["--pair", "gpt2"]) == 0
    assert [r for r, _ in fake_hub] == ["gpt2", "distilgpt2"]
    assert all("*.safetensors" in patterns and "*.json" in patterns for _, patterns in fake_hub)
    out = capsys.readouterr().out.splitlines()
    assert out == ["[  0%] downloading gpt2 (1 of 2)", "[ 50%] downloading distilgpt2 (2 of 2)",
                   "[100%] gpt2: gpt2, distilgpt2 ready offline"]
    assert hub.missing(registry()["gpt2"]) == []


def test_prepare_a_lecturers_hub_pair(fake_hub, capsys):
    assert prepare_main(["--target", "org/big-model", "--draft", "org/small-model"]) == 0
    assert [r for r, _ in fake_hub] == ["org/big-model", "org/small-model"]


def test_embedded_and_local_pairs_need_no_download(tmp_path):
    assert hub.hub_ids(registry()["smollm2-distilled"]) == []
    assert hub.hub_ids(resolve_pair(["--target", str(tmp_path), "--draft", "gpt2"], environ={})) == ["gpt2"]


def test_an_unreachable_hub_is_one_sentence_naming_the_command_to_rerun(monkeypatch, capsys):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    def unreachable(repo_id, **kw):
        raise OSError("[Errno -2] Name or service not known\nmore detail")
    monkeypatch.setattr(huggingface_hub, "snapshot_download", unreachable)
    assert prepare_main(["--pair", "gpt2"]) == 1
    err = capsys.readouterr().err
    assert err == ("error: Could not download gpt2 from the Hugging Face hub ([Errno -2] Name or service not "
                   "known); check the network and the id, then run python -m lab prepare --pair gpt2 again.\n")


def test_offline_mode_and_a_missing_folder_are_said_before_any_download(monkeypatch, capsys):
    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("no download"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert prepare_main(["--pair", "gpt2"]) == 1
    assert "HF_HUB_OFFLINE is set" in capsys.readouterr().err
    assert prepare_main(["--target", "gpt2", "--draft", "/nonexistent/draft"]) == 1
    assert "There is no model folder at /nonexistent/draft" in capsys.readouterr().err
