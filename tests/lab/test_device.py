"""Where a pair runs (lab.devices): "auto" picks CUDA, then MPS, then the CPU, the dtype follows the
device, a device that is not here is one sentence and the CPU, the embedded pair stays on the CPU, a
pair that does not fit in the device's free memory is refused with both sizes, timings wait for the
device; and the engine's exactness on every device this machine has (the CPU at least)."""
from __future__ import annotations

import os
import re
import urllib.request

import pytest
import torch

from lab import devices
from lab.core.request import Request
from lab.core import kv
from lab.pairs import load
from lab.devices import Placement, choose
from lab.core.engine import Decoder, generate
from lab.pairs.load import PairError, load_pair, load_spec, place, placement_for, registry
from lab.core.sampling import SamplingSettings
from lab.pairs.tiny import tiny_pair

PROMPT = "the cat sat on the"
HERE = [d for d in ("cuda", "mps") if devices.available(d)]
# Greedy decoding is compared token for token in float32 on every device here, and in bfloat16 on the
# CPU (deterministic kernels); a GPU's own 16-bit dtype is checked for what it must keep (below).
EXACT = [("cpu", "float32"), ("cpu", "bfloat16")] + [(d, "float32") for d in HERE]
LOW = [("cpu", "bfloat16")] + [(d, devices.DEFAULT_DTYPE[d]) for d in HERE]


@pytest.fixture
def no_gpu(monkeypatch):
    """This machine as one without CUDA or MPS, whatever it has."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)


def one_sentence(text: str) -> bool:
    return text.endswith(".") and not re.search(r"[.!?] [A-Z]", text)


# --- choosing the device and dtype --------------------------------------------------------------

def test_auto_on_this_machine_is_a_device_torch_can_use_with_its_own_dtype():
    chosen = choose("auto")
    assert devices.available(chosen.device) and chosen.note == ""
    assert chosen.dtype == devices.DEFAULT_DTYPE[chosen.device]
    if not HERE:
        assert chosen == Placement("cpu", "float32")


@pytest.mark.parametrize("cuda,mps,expected", [(True, True, ("cuda", "bfloat16")), (True, False, ("cuda", "bfloat16")),
                                               (False, True, ("mps", "float16")), (False, False, ("cpu", "float32"))])
def test_auto_picks_cuda_then_mps_then_the_cpu(monkeypatch, cuda, mps, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert choose("auto") == Placement(*expected)
    assert choose(None) == Placement(*expected)


@pytest.mark.parametrize("device,named", [("cuda", "no CUDA GPU"), ("mps", "no Apple-silicon GPU (MPS)")])
def test_a_gpu_that_is_not_here_is_one_sentence_and_the_cpu(no_gpu, device, named):
    chosen = choose(device)
    assert (chosen.device, chosen.dtype) == ("cpu", "float32")
    assert named in chosen.note and "runs on the CPU in float32" in chosen.note and one_sentence(chosen.note)
    assert choose(device, "bfloat16").dtype == "float32"      # a GPU's dtype is not kept on the CPU


def test_the_dtype_follows_the_device_unless_one_is_asked_for(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert [choose(d).dtype for d in ("cpu", "cuda", "mps")] == ["float32", "bfloat16", "float16"]
    assert choose("cuda", "float32") == Placement("cuda", "float32")
    assert choose("cpu", "bfloat16") == Placement("cpu", "bfloat16")
    assert choose(" CUDA ", "Float16") == Placement("cuda", "float16")


def test_a_name_that_is_not_a_device_or_dtype_is_one_sentence():
    bad = choose("tpu")
    assert bad.device == "cpu" and "There is no device 'tpu'" in bad.note and one_sentence(bad.note)
    odd = choose("cpu", "fp8")
    assert odd == Placement("cpu", "float32", odd.note) and "no dtype 'fp8'" in odd.note and one_sentence(odd.note)


def test_the_command_line_wins_over_the_environment():
    env = {"SPECLAB_DEVICE": "mps", "SPECLAB_DTYPE": "float16"}
    assert devices.requested([], {}) == ("auto", None)
    assert devices.requested([], env) == ("mps", "float16")
    assert devices.requested(["--pair", "tiny", "--device", "cuda"], env) == ("cuda", "float16")
    assert devices.requested(["--device", "cpu", "--dtype", "bfloat16"], env) == ("cpu", "bfloat16")


def test_the_embedded_pair_stays_on_the_cpu_in_float32(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    embedded = registry()[load.default_name()]
    assert embedded.target_id.startswith(load.EMBEDDED)
    assert placement_for(embedded, "auto") == devices.CPU            # auto: silently the CPU
    assert placement_for(embedded, "cpu", "float32") == devices.CPU
    asked = placement_for(embedded, "cuda")
    assert (asked.device, asked.dtype) == ("cpu", "float32") and one_sentence(asked.note)
    assert "embedded pair runs only on the CPU in float32" in asked.note and "(device cuda)" in asked.note
    assert "(device cpu, dtype bfloat16)" in placement_for(embedded, "cpu", "bfloat16").note


def test_a_tiny_test_pair_stays_on_the_cpu_unless_a_device_is_named(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    tiny = registry()["tiny"]
    assert placement_for(tiny, "auto") == devices.CPU
    assert placement_for(tiny, "cuda") == Placement("cuda", "bfloat16")


# --- loading on a device ------------------------------------------------------------------------

def test_asking_for_cuda_without_a_gpu_loads_on_the_cpu_and_says_so(no_gpu, caplog):
    pair = load_spec(registry()["tiny"], device="cuda")
    assert (pair.device, pair.dtype) == ("cpu", "float32")
    assert pair.target.device.type == "cpu" and pair.target.dtype == torch.float32
    assert "torch finds no CUDA GPU" in pair.notes["warning"] and one_sentence(pair.notes["warning"])
    assert caplog.text.count("torch finds no CUDA GPU") == 1


def test_the_servers_device_argument_reaches_the_loader(no_gpu):
    pair = load.load_requested(["--pair", "tiny", "--device", "mps"])      # what a server's --args ask
    assert pair.device == "cpu" and "no Apple-silicon GPU (MPS)" in pair.notes["warning"]
    pair = load_spec(registry()["tiny"], args=["--device", "cpu", "--dtype", "bfloat16"])
    assert (pair.device, pair.dtype, pair.target.dtype) == ("cpu", "bfloat16", torch.bfloat16)
    assert "warning" not in pair.notes


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny target and draft saved as Hugging Face folders (float32 on disk)."""
    from tests.helpers import save_tiny
    root = tmp_path_factory.mktemp("device-pairs")
    return save_tiny(root / "target", layers=2), save_tiny(root / "draft", seed=1)


def test_a_folder_pair_loads_in_the_dtype_asked_for(saved):
    pair = load_pair(str(saved[0]), str(saved[1]), placement=Placement("cpu", "bfloat16"))
    assert (pair.device, pair.dtype) == ("cpu", "bfloat16")
    assert pair.target.dtype == pair.draft.dtype == torch.bfloat16
    assert generate(pair, Request(pair.tokenizer.encode("the cat"), max_new_tokens=4, gamma=2)).new_ids


@pytest.mark.parametrize("placement,memory", [(Placement("cpu", "float32"), "memory"),
                                              (Placement("cpu", "bfloat16"), "memory"),
                                              (Placement("cuda", "bfloat16"), "GPU memory"),
                                              (Placement("mps", "float16"), "Apple-silicon GPU memory")])
def test_a_pair_that_does_not_fit_is_refused_with_both_sizes(saved, monkeypatch, placement, memory):
    asked = []
    monkeypatch.setattr(devices, "free_bytes", lambda device: asked.append(device) or 3 * 1024)
    on_disk = sum(f.stat().st_size for f in saved[0].glob("*.safetensors"))       # float32 weights
    need = on_disk * devices.BYTES[placement.dtype] // 4
    with pytest.raises(PairError) as err:
        load_pair(str(saved[0]), str(saved[1]), placement=placement)
    sentence = str(err.value)
    assert asked == [placement.device] and one_sentence(sentence)
    assert f"needs about {devices.size_text(need)} in {placement.dtype}" in sentence
    assert f"but only 3 kB of {memory} is free; choose a smaller model" in sentence
    assert (f" on {placement.device} " in sentence) == (placement.device != "cpu")


def test_a_pair_that_fits_is_not_refused(saved, monkeypatch):
    monkeypatch.setattr(devices, "free_bytes", lambda device: 2**40)
    assert load_pair(str(saved[0]), str(saved[1])).device == "cpu"


def test_free_memory_is_asked_where_the_models_go(monkeypatch):
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (7 * 2**30, 80 * 2**30))
    assert devices.free_bytes("cuda") == 7 * 2**30
    import psutil

    class Ram:
        available = 5 * 2**30
    monkeypatch.setattr(psutil, "virtual_memory", lambda: Ram())
    assert devices.free_bytes("cpu") == 5 * 2**30
    assert devices.size_text(5 * 2**30) == "5.0 GB" and devices.size_text(340 * 2**20) == "340 MB"


# --- timings wait for the device ----------------------------------------------------------------

def test_sync_waits_for_a_gpu_and_does_nothing_on_the_cpu(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: calls.append("cuda"))
    monkeypatch.setattr(torch.mps, "synchronize", lambda *a: calls.append("mps"))
    devices.sync("cpu")
    devices.sync(torch.device("cpu"))
    assert calls == []
    devices.sync("cuda")
    devices.sync(torch.device("cuda", 0))
    devices.sync("mps")
    assert calls == ["cuda", "cuda", "mps"]


def test_a_timed_call_is_read_between_two_syncs_of_its_device(monkeypatch):
    events = []
    model = tiny_pair("llama").target
    real = model.forward

    def forward(*args, **kwargs):
        events.append("call")
        return real(*args, **kwargs)
    monkeypatch.setattr(model, "forward", forward)
    monkeypatch.setattr(kv, "sync", lambda device: events.append(("sync", torch.device(device).type)))
    logits, seconds = kv.CachedModel(model).forward([2, 3, 4])
    assert events == [("sync", "cpu"), "call", ("sync", "cpu")]
    assert logits.dtype == torch.float32 and seconds > 0


# --- the engine on every device here ------------------------------------------------------------

def placed(family: str, device: str, dtype: str):
    return place(tiny_pair(family), Placement(device, dtype))


@pytest.mark.parametrize("device,dtype", EXACT, ids=lambda x: x)
@pytest.mark.parametrize("family", ["llama", "gpt2"])
def test_greedy_speculative_decoding_equals_plain_decoding_on_each_device(family, device, dtype):
    pair = placed(family, device, dtype)
    ids = pair.tokenizer.encode(PROMPT)
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=30))
    for drafter in ("model", "lookup", "hybrid"):
        for gamma in (1, 4, 8):
            spec = generate(pair, Request(ids, gamma=gamma, max_new_tokens=30, drafter=drafter))
            assert spec.new_ids == plain.new_ids, (drafter, gamma)
    spec = generate(pair, Request(ids, gamma=4, max_new_tokens=30))
    assert 0 < spec.accepted < spec.drafted                # kept and rejected drafts both happened


@pytest.mark.parametrize("device", ["cpu"] + HERE)
def test_greedy_equals_transformers_assisted_generation_on_each_device(device):
    pair = placed("llama", device, "float32")
    ids = pair.tokenizer.encode(PROMPT)
    out = pair.target.generate(
        torch.tensor([ids], device=device), assistant_model=pair.draft, do_sample=False, max_new_tokens=20,
        num_assistant_tokens=4, num_assistant_tokens_schedule="constant", assistant_confidence_threshold=0.0,
        pad_token_id=1, eos_token_id=None)
    assert generate(pair, Request(ids, gamma=4, max_new_tokens=20)).new_ids == out[0, len(ids):].tolist()


@pytest.mark.parametrize("device,dtype", LOW, ids=lambda x: x)
def test_in_low_precision_p_and_q_stay_exact_distributions_on_the_device(device, dtype):
    """The models' 16-bit logits become probabilities in float64 (float32 on MPS) on their device;
    the accept rule and the trace use them; a seed repeats exactly; the trace comes back to the CPU."""
    pair = placed("llama", device, dtype)
    ids = pair.tokenizer.encode(PROMPT)
    settings = SamplingSettings(temperature=1.0)
    decoder = Decoder(pair, Request(ids, gamma=4, settings=settings, seed=5, max_new_tokens=24, drafter="hybrid"))
    rounds = []
    while not decoder.done:
        rounds.append(decoder.step())
    assert decoder.writer_model.device.type == device and decoder.draft_cache.device.type == device
    for r in rounds:
        assert r.p_rows.sum(axis=1) == pytest.approx(1.0, abs=1e-5)
        for d in r.guesses:
            assert d.accept_probability == pytest.approx(min(1.0, d.p / d.q))
    logits = decoder.writer_model.forward([2])[0]
    from lab.core.sampling import probabilities
    probs = probabilities(logits, settings)
    assert probs.device.type == device and probs.dtype == devices.exact_dtype(device)
    again = generate(pair, Request(ids, gamma=4, settings=settings, seed=5, max_new_tokens=24, drafter="hybrid"))
    assert again.new_ids == decoder.new_ids


# --- the command line and the served lab ------------------------------------------------------

def test_measure_runs_where_it_is_asked_and_names_the_device(no_gpu, capsys, caplog):
    from lab.__main__ import main
    from transformers.utils import logging as hf_logging
    try:
        assert main(["measure", "--pair", "tiny", "--device", "cuda", "--prompt", "the cat", "--max-new-tokens", "6"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"^device +cpu float32$", out, re.M) and "torch finds no CUDA GPU" in caplog.text
        assert main(["measure", "--pair", "tiny", "--device", "cpu", "--dtype", "bfloat16", "--prompt", "the cat",
                     "--max-new-tokens", "6", "--json"]) == 0
        import json
        result = json.loads(capsys.readouterr().out)
        assert (result["device"], result["dtype"], result["matches_target_greedy"]) == ("cpu", "bfloat16", True)
    finally:
        hf_logging.set_verbosity_warning()
        hf_logging.enable_progress_bar()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_a_lab_served_with_device_cuda_and_no_gpu_serves_on_the_cpu(tmp_path):
    from tests.helpers import wait_until
    from tests.ui.helpers import served
    log = tmp_path / "server.log"
    env = {**os.environ, "SPECLAB_PAIR": "tiny"}
    with served(env, log, ("--device", "cuda")) as url:
        with urllib.request.urlopen(f"{url}?chapter=accept-rule", timeout=30) as page:   # a session loads the pair
            assert page.status == 200
        loaded = wait_until(lambda: re.search(r"pair loaded: .* on (\w+)", log.read_text()), timeout=90,
                            message="the pair to load")
    text = log.read_text()
    assert loaded.group(1) == "cpu"
    assert text.count("The device cuda was asked for, but torch finds no CUDA GPU on this machine; "
                      "the pair runs on the CPU in float32.") == 1
