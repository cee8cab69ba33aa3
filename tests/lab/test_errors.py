"""lab.errors: path-free messages for pages, no pair↔prepare import cycle, drafts registered from lab.pairs.draftmodels."""
from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lab import errors  # noqa: E402
from lab.errors import ROLES, PairError, PrepareError, public_message, public_ref, scrub_paths  # noqa: E402
from lab.i18n import Said  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> subprocess.CompletedProcess:
    """Run `code` in a new interpreter at the repository root (nothing imported beforehand)."""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}, timeout=300)


# --- messages for pages ---------------------------------------------------------------------------

def test_a_sentence_naming_a_model_is_written_once_and_pages_show_it_without_the_path():
    err = PairError.naming(Path("/srv/models/x"), "The {role} folder {name} has no config.json; point to a "
                           "saved Hugging Face model folder.", role=ROLES["target"])
    said = "folder {} has no config.json; point to a saved Hugging Face model folder."
    assert str(err) == "The target model " + said.format("/srv/models/x")       # the log
    assert public_message(err) == "The target model " + said.format("'x'")
    assert err.public_message == public_message(err)
    # a page shows it in its own language, its path as public_ref names it
    assert public_message(err).in_language("es").startswith("La carpeta del modelo objetivo 'x' no tiene config.json")
    assert type(PrepareError.naming("gpt2", "{name} is missing.")) is PrepareError


def test_an_unexpected_error_is_one_sentence_in_each_pages_language_naming_only_its_type():
    said = public_message(KeyError("/srv/secret"))
    assert said == ("The lab hit an unexpected error (KeyError); the lecturer's terminal has the details, so tell "
                    "the lecturer.")
    assert said.in_language("zh").startswith("实验遇到了意外错误（KeyError）") and "/srv" not in said.in_language("zh")
    pathy = PrepareError(Said("The lab cannot write its model cache at {root} ({why}); set SPECLAB_CACHE to a writable "
                              "folder with about 1 GB free and start again.", root="/srv/cache", why="x"))
    assert "/srv" not in public_message(pathy).in_language("es")      # a Said's values are scrubbed too


def test_message_without_public_variant_is_scrubbed():
    err = PrepareError("The lab cannot write at /root/.cache/speculative-lab; set SPECLAB_CACHE.")
    assert public_message(err) == "The lab cannot write at …; set SPECLAB_CACHE."
    # relative paths, URLs, hub ids and ratios are not server paths
    text = "See models/pairs.toml, https://pypi.org/project/x, HuggingFaceTB/SmolLM2-135M and p/q = 1 / 2."
    assert scrub_paths(text) == text
    assert scrub_paths("at ~/models/a.b, C:\\models\\x and (/tmp/y).") == "at …, … and (…)."


def test_any_other_exception_gets_a_generic_sentence():
    msg = public_message(FileNotFoundError(2, "No such file", "/etc/speclab/secret.toml"))
    assert "/etc" not in msg and "FileNotFoundError" in msg and msg.endswith(".")


def test_public_ref_shows_hub_ids_and_folder_names_only():
    assert public_ref("gpt2") == "'gpt2'"
    assert public_ref("HuggingFaceTB/SmolLM2-135M") == "'HuggingFaceTB/SmolLM2-135M'"
    assert public_ref(Path("/home/lecturer/models/tiny")) == "'tiny'"
    assert public_ref("~/models/tiny/") == "'tiny'"


def test_errors_survive_pickling_with_their_public_sentence():
    err = pickle.loads(pickle.dumps(PrepareError("full at /x/y", public="full")))
    assert type(err) is PrepareError and str(err) == "full at /x/y" and err.public_message == "full"


def test_pair_errors_with_paths_have_path_free_public_messages(tmp_path):
    from lab.pairs.load import load_pair
    missing = tmp_path / "nowhere" / "model"
    with pytest.raises(PairError) as err:
        load_pair(str(missing), str(missing))
    assert str(missing) in str(err.value)
    assert str(tmp_path) not in public_message(err.value) and "'model'" in public_message(err.value)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PairError, match="has no config.json") as err:
        load_pair(str(empty), str(empty))
    assert str(tmp_path) not in public_message(err.value)


# --- one class, no import cycle ------------------------------------------------------------------

def test_pair_error_is_one_class_everywhere():
    from lab.pairs import load, prepare
    assert load.PairError is errors.PairError is prepare.PairError
    assert issubclass(prepare.PrepareError, load.PairError)


def _module_level_imports(path: Path) -> set[str]:
    """Modules imported at the top level of a file (not inside functions)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_pair_and_prepare_do_not_import_each_other_at_module_level():
    assert not {"lab.pairs.load", "lab.pairs.load.PairError"} & _module_level_imports(REPO / "lab" / "pairs" / "prepare.py")
    assert not {n for n in _module_level_imports(REPO / "lab" / "pairs" / "load.py") if n.startswith("lab.pairs.prepare")}
    # lab.errors imports nothing of the lab but its catalogs (which import nothing of the lab)
    assert {n for n in _module_level_imports(REPO / "lab" / "errors.py") if n.startswith("lab")} <= {
        "lab.i18n", "lab.i18n.N_", "lab.i18n.Said"}
    assert not {n for n in _module_level_imports(REPO / "lab" / "i18n" / "__init__.py")
                if n.startswith("lab") and not n.startswith("lab.i18n")}


def test_each_module_imports_alone_in_a_fresh_interpreter():
    code = ("import importlib, sys\n"
            "import lab.pairs.prepare\n"
            "assert 'lab.pairs.load' not in sys.modules, 'lab.pairs.prepare imported lab.pairs.load'\n"
            "for name in list(sys.modules):\n"
            "    if name == 'lab' or name.startswith('lab.'): del sys.modules[name]\n"
            "import lab.pairs.load\n"
            "assert 'lab.pairs.prepare' not in sys.modules, 'lab.pairs.load imported lab.pairs.prepare'\n"
            "print('ok')\n")
    done = _fresh(code)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


# --- the shortlist draft type, registered by lab.pairs.draftmodels ------------------------------------------

def test_shortlist_draft_loads_through_the_auto_classes(tmp_path):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from lab.pairs.draftmodels import ShortlistLlamaForCausalLM, make_shortlist_draft

    torch.manual_seed(0)
    target = LlamaForCausalLM(LlamaConfig(vocab_size=40, hidden_size=16, intermediate_size=32,
                                          num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                                          max_position_embeddings=64)).eval()
    draft = make_shortlist_draft(target, torch.tensor([3, 5, 7, 11]), n_layers=1)
    assert isinstance(draft, ShortlistLlamaForCausalLM)
    draft.save_pretrained(tmp_path / "draft")
    ids = [[3, 5, 7]]
    expected = draft(torch.tensor(ids)).logits[0, -1]
    torch.save(expected, tmp_path / "expected.pt")
    # a fresh process that imports only lab.pairs.load: its loader must register the type itself
    code = ("import sys, torch\nfrom pathlib import Path\nfrom lab.pairs.load import load_model\n"
            f"m = load_model(Path({str(tmp_path / 'draft')!r}), 'draft')\n"
            f"got = m(torch.tensor({ids})).logits[0, -1]\n"
            f"want = torch.load({str(tmp_path / 'expected.pt')!r})\n"
            "assert torch.allclose(got, want, rtol=1e-4, atol=1e-5), (got, want)\n"   # packed: float rounding
            "print(type(m).__name__, int((got > torch.finfo(got.dtype).min).sum()))\n")
    done = _fresh(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["ShortlistLlamaForCausalLM", "4"]   # q > 0 on the shortlist only


def test_log_failure_says_a_lab_error_in_one_line_and_keeps_other_tracebacks(caplog):
    import logging
    log = logging.getLogger("lab.test_log_failure")
    log.setLevel(logging.INFO)
    for err in (PrepareError("The lab cannot write its model cache at /x (the disk is full); set SPECLAB_CACHE."),
                KeyError("surprise")):
        try:
            raise err
        except Exception as caught:
            errors.log_failure(log, "loading the model pair failed", caught)
    lab_error, other = caplog.records
    assert lab_error.getMessage() == ("loading the model pair failed: The lab cannot write its model cache at /x "
                                      "(the disk is full); set SPECLAB_CACHE.")
    assert lab_error.exc_info is None and "Traceback" not in caplog.text.split("\n", 1)[0]
    assert other.getMessage() == "loading the model pair failed" and other.exc_info[0] is KeyError
    log.setLevel(logging.DEBUG)                     # --verbose: the lab error's traceback too
    try:
        raise PrepareError("x")
    except PrepareError as caught:
        errors.log_failure(log, "loading the model pair failed", caught)
    assert caplog.records[-1].exc_info[0] is PrepareError
