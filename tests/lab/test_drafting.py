"""Drafters and draft length policies: exact against plain greedy decoding for every combination,
prompt lookup as transformers does it, the heuristic schedule's γ sequence, the confidence stop,
and the drafter/policy flags of a pair."""
from dataclasses import replace

import pytest
import torch

from lab.core.request import Request
from lab.core.adaptive import BUDGET, AutoSchedule, best_length, lower_bound, schedule_for
from lab.core.drafting import DraftPolicy, GammaSchedule, HybridDrafter, LookupDrafter, ModelDrafter
from lab.core.engine import Decoder, generate
from lab.pairs.load import PairError, resolve_pair
from lab.pairs.tiny import tiny_pair
from tests.lab.helpers import without_eos

REPEATING = "the cat sat on the mat and the cat sat on the"
POLICIES = ["constant", "heuristic", "confidence:0.5", "heuristic+confidence:0.3+model:2", "auto", "auto+model:2",
            "auto+confidence:0.7"]


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def pair(request):
    return tiny_pair(request.param)


@pytest.fixture(scope="module")
def plain_greedy(pair):
    return generate(pair, Request(pair.tokenizer.encode(REPEATING), mode="plain", max_new_tokens=40))


@pytest.mark.parametrize("drafter", ["model", "lookup", "hybrid"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("gamma", [1, 4])
def test_every_drafter_and_policy_equals_plain_greedy(pair, plain_greedy, drafter, policy, gamma):
    plain = plain_greedy
    spec = generate(pair, Request(pair.tokenizer.encode(REPEATING), gamma=gamma, max_new_tokens=40, drafter=drafter, policy=policy))
    assert spec.new_ids == plain.new_ids
    if policy.startswith("auto") and drafter != "lookup":
        # the tiny random draft's guesses rarely pay, and this text seldom repeats its prompt: auto
        # may take plain steps throughout, never more calls
        assert spec.target_calls <= plain.target_calls
    else:
        assert spec.target_calls < plain.target_calls    # drafts were kept: fewer target calls
    assert spec.drafter == drafter


def test_hybrid_uses_both_sources_and_lookup_alone_drafts_only_on_repeats(pair):
    ids = pair.tokenizer.encode(REPEATING)
    hybrid = generate(pair, Request(ids, gamma=4, max_new_tokens=40, drafter="hybrid"))
    assert {r.draft_source for r in hybrid.rounds} >= {"lookup"}
    lookup = generate(pair, Request(pair.tokenizer.encode("red blue"), gamma=4, max_new_tokens=6, drafter="lookup"))
    first = lookup.rounds[0]                       # nothing repeats yet: a plain target step
    assert first.gamma == 0 and first.draft_source == "none" and first.extra_kind == "target"
    for r in lookup.rounds:                        # lookup drafts are one-hot: kept exactly when p(x) wins
        for d in r.guesses:
            assert d.q == 1.0 and d.accept_probability == pytest.approx(d.p)


def test_lookup_finds_the_longest_latest_match_with_a_whole_copy():
    ids = [1, 2, 3, 4, 9, 2, 3, 5, 7, 2, 3]
    assert LookupDrafter.find(ids, gamma=2, max_ngram=1) == [5, 7]    # "3" last seen before 5 7
    assert LookupDrafter.find(ids, gamma=2, max_ngram=3) == [5, 7]    # "2 3" too, latest first
    assert LookupDrafter.find(ids, gamma=3, max_ngram=3) == [5, 7, 2]
    assert LookupDrafter.find([8, 1, 2, 3, 4, 1, 2, 3], gamma=9) == [4, 1, 2, 3]   # runs to the end
    # the latest "5 1" is cut short by the text's end (2 tokens after it): the earlier one has γ
    assert LookupDrafter.find([5, 1, 2, 3, 4, 9, 5, 1, 5, 1], gamma=4) == [2, 3, 4, 9]
    assert LookupDrafter.find([5, 1, 2, 5, 1, 7, 5, 1], gamma=9) == [2, 5, 1, 7, 5, 1]   # none has γ: the most
    assert LookupDrafter.find([1, 2, 3, 4], gamma=4) == []
    assert LookupDrafter.find([5, 6, 7, 5], gamma=2, min_ngram=2) == []   # a 1-gram is not enough


def test_a_capped_lookup_round_proposes_the_copy_the_auto_schedule_priced():
    """The auto schedule prices (and learns from) the copy found for the policy's γ; a round it caps
    shorter proposes that copy's first tokens, not a later occurrence with only the cap after it."""
    from lab.core.sampling import SamplingSettings
    ids = [5, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 5, 1, 9, 5, 1]
    assert LookupDrafter.find(ids, gamma=2) == [9, 5]           # the latest "5 1" with 2 tokens after it
    policy = DraftPolicy(gamma=12, schedule="auto")
    priced = LookupDrafter.find(ids, gamma=policy.gamma)         # what the schedule prices (lab.core.adaptive)
    proposed = LookupDrafter(vocab_size=16).propose(ids, 12, SamplingSettings(), torch.Generator(), policy,
                                                    {"lookup": 2, "model": 0})
    assert priced[:2] == [2, 3] and proposed.tokens == priced[:2]
    near_end = LookupDrafter(vocab_size=16).propose(ids, 2, SamplingSettings(), torch.Generator(), policy)
    assert near_end.tokens == [2, 3]                            # two tokens left to write: the same copy, cut


def test_our_prompt_lookup_equals_transformers_prompt_lookup(pair):
    ids = pair.tokenizer.encode(REPEATING)
    out = pair.target.generate(torch.tensor([ids]), prompt_lookup_num_tokens=4, do_sample=False,
                               max_new_tokens=30, pad_token_id=1, eos_token_id=None)
    ours = generate(pair, Request(ids, gamma=4, max_new_tokens=30, drafter="lookup"))
    assert len(ours.new_ids) == 30 and ours.new_ids == out[0, len(ids):].tolist()


def test_heuristic_schedule_follows_the_acceptance_pattern():
    schedule = GammaSchedule(DraftPolicy(4, "heuristic"))
    seen = []
    for drafted_all in [True, True, False, False, True, False, False, False, False, False, True] + [True] * 5:
        seen.append(schedule.gamma)
        schedule.update(schedule.gamma, schedule.gamma if drafted_all else 0)
    assert seen == [4, 6, 8, 7, 6, 8, 7, 6, 5, 4, 3, 5, 7, 9, 11, 13]
    assert schedule.gamma == 15 and (schedule.update(15, 15) or schedule.gamma) == 16   # capped at 16
    constant = GammaSchedule(DraftPolicy(3))
    constant.update(3, 0)
    assert constant.gamma == 3


def test_auto_schedule_silences_a_failing_draft_model_and_probes_it_from_a_budget():
    schedule = AutoSchedule(gamma=6)
    seen = []
    for _ in range(120):                     # every model draft rejected at once
        cap = schedule.caps([1, 2, 3])["model"]
        seen.append(cap)
        schedule.update(cap, 0, "model" if cap else "none", [1, 2, 3, 4])
        one_guess = schedule.round_cost("model", 1, [1, 2, 3]) - 1
        assert schedule.loss <= max(BUDGET * schedule.spent, one_guess) + 1e-9   # the budget, or one guess
    # α's lower bound starts at 0.21: with the fixed prices one guess pays, and no more once rejected
    assert seen[0] == 1 and seen[1] == 0
    probes = [i for i, cap in enumerate(seen) if cap and i > 0]
    assert probes and all(seen[i] == 1 for i in probes)
    assert len(probes) <= 1 + BUDGET * schedule.spent / (schedule.round_cost("model", 1, [1, 2, 3]) - 1)
    for _ in range(30):                      # the text got easy: every draft kept (a probe within 20 rounds)
        cap = schedule.caps([1, 2, 3])["model"]
        schedule.update(cap, cap, "model" if cap else "none", [1, 2, 3, 4])
    assert schedule.caps([1, 2, 3])["model"] == 6


def test_the_decision_to_draft_uses_the_lower_bound_of_alpha_not_its_mean():
    assert lower_bound(1, 1) < lower_bound(10, 10) < lower_bound(100, 100) < 0.5
    assert lower_bound(5, 0) < 1 and lower_bound(0, 5) == 0
    few, many = AutoSchedule(gamma=6, sources=("model",)), AutoSchedule(gamma=6, sources=("model",))
    few.alpha["model"].kept, few.alpha["model"].rejected = 0.6, 0.4           # α 0.6 from one guess
    many.alpha["model"].kept, many.alpha["model"].rejected = 30.0, 20.0       # α 0.6 from fifty
    few.tried = many.tried = True                                             # no opening probe
    assert few.alpha["model"].alpha == pytest.approx(many.alpha["model"].alpha)
    assert few.caps([1, 2, 3])["model"] == 0 < many.caps([1, 2, 3])["model"]


def test_auto_schedule_learns_lookup_from_guesses_it_did_not_make():
    schedule, text = AutoSchedule(gamma=8), [1, 2, 3, 4, 5] * 8
    for n in range(6, 36, 5):                # lookup never asked, yet its guesses were right
        schedule.caps(text[:n])
        schedule.update(0, 0, "none", text[:n + 5])
    assert schedule.caps(text[:36]) == {"lookup": 8, "model": 0}   # a whole copy of γ (the 5 before would end the text)
    wrong = AutoSchedule(gamma=8)
    for n in range(6, 36, 5):                # the text never continues as before
        wrong.caps(text[:n])
        wrong.update(0, 0, "none", text[:n] + [9, 9, 9, 9, 9])
    assert wrong.caps(text[:36])["lookup"] <= 1      # one token pays only at α above POSITION_COST


def test_auto_draft_lengths_are_the_best_expected_tokens_per_cost():
    assert best_length(0.0, 8, 0.0) == 0 and best_length(1.0, 8, 0.08) == 8
    assert best_length(0.5, 8, 0.0) == 3      # (1 − .5^4)/.5 ÷ 1.18 beats 3 and 5 tokens
    assert best_length(0.1, 8, 0.08) == 0 and best_length(0.2, 8, 0.08) == 1 and best_length(0.9, 8, 0.08) == 8


def test_auto_policy_in_a_real_generation_drafts_little_where_little_is_kept(pair):
    same = replace(without_eos(pair), draft=pair.target)        # every draft kept, the text runs on
    easy = generate(same, Request(pair.tokenizer.encode("the"), gamma=8, max_new_tokens=60, policy="auto"))
    assert max(r.gamma for r in easy.rounds) == 8
    random_draft = generate(pair, Request(pair.tokenizer.encode("red blue green"), gamma=8, max_new_tokens=60, policy="auto", drafter="model"))
    plain = generate(pair, Request(pair.tokenizer.encode("red blue green"), mode="plain", max_new_tokens=60))
    assert random_draft.new_ids == plain.new_ids
    drafted = sum(r.gamma for r in random_draft.rounds)
    assert drafted < sum(r.gamma for r in generate(pair, Request(pair.tokenizer.encode("red blue green"), gamma=8, max_new_tokens=60, drafter="model")).rounds) / 2


def test_heuristic_gamma_sequence_in_a_real_generation(pair):
    """Each round's γ is the previous γ + 2 after a fully kept round, − 1 otherwise (≥ 1)."""
    same = type(pair)(target=pair.target, draft=pair.target, tokenizer=pair.tokenizer)  # every draft kept
    rounds = generate(same, Request(pair.tokenizer.encode("the"), gamma=2, max_new_tokens=60, policy="heuristic")).rounds
    assert [r.gamma for r in rounds[:4]] == [2, 4, 6, 8]
    mixed = generate(pair, Request(pair.tokenizer.encode("the"), gamma=3, max_new_tokens=60, policy="heuristic")).rounds
    for before, after in zip(mixed, mixed[1:-1]):
        expected = before.gamma + 2 if before.n_accepted == before.gamma else max(1, before.gamma - 1)
        assert after.gamma == min(expected, 16)


def test_confidence_stop_drafts_fewer_and_only_after_an_unsure_token(pair):
    ids = pair.tokenizer.encode("the cat")
    decoder = Decoder(pair, Request(ids, gamma=8, policy=DraftPolicy(8, threshold=0.9), max_new_tokens=40))
    drafter = decoder.drafter
    lengths = []
    while not decoder.done:
        r = decoder.step()
        lengths.append(r.gamma)
    assert min(lengths) < 8
    # A drafter told "stop below 0.9" stops exactly at the first token its model gave < 0.9.
    probe = ModelDrafter(pair.draft)
    probe.prefill(ids)
    guesses = probe.propose(ids, 8, decoder.settings, torch.Generator().manual_seed(0), DraftPolicy(8, threshold=0.9))
    with torch.inference_mode():
        full = pair.draft(input_ids=torch.tensor([ids + guesses.tokens])).logits[0].softmax(-1)
    confidences = [float(full[len(ids) - 1 + i, x]) for i, x in enumerate(guesses.tokens)]
    assert all(c >= 0.9 for c in confidences[:-1])
    assert confidences[-1] < 0.9 or len(guesses.tokens) == 8
    assert guesses.sure == sum(c >= 0.9 for c in confidences)      # what the auto policy learns from
    assert isinstance(drafter, ModelDrafter)
    plain = ModelDrafter(pair.draft)
    plain.prefill(ids)
    assert plain.propose(ids, 8, decoder.settings, torch.Generator().manual_seed(0), DraftPolicy(8)).sure is None


def test_hybrid_catches_up_the_draft_cache_after_lookup_rounds(pair):
    decoder = Decoder(pair, Request(pair.tokenizer.encode(REPEATING), gamma=4, drafter="hybrid", max_new_tokens=40))
    assert isinstance(decoder.drafter, HybridDrafter)
    while not decoder.done:
        decoder.step()
        assert decoder.draft_cache.length <= len(decoder.ids) - 1
    assert decoder.writer_model.cache.get_seq_length() == len(decoder.ids) - 1


def test_policies_are_read_from_text():
    assert DraftPolicy.parse("") == DraftPolicy()
    assert DraftPolicy.parse("constant:8", gamma=3) == DraftPolicy(8)
    assert DraftPolicy.parse("heuristic:6+confidence:0.3") == DraftPolicy(6, "heuristic", 0.3)
    assert DraftPolicy.parse("confidence", gamma=5) == DraftPolicy(5, "constant", 0.4)
    assert DraftPolicy.parse("constant:12+model:3") == DraftPolicy(12, model_gamma=3)
    auto = DraftPolicy.parse("auto:12+cost:0.2")
    assert auto == DraftPolicy(12, "auto", draft_cost=0.2) and schedule_for(auto).draft_cost == 0.2
    assert "0.2" in auto.describe()


def test_hybrid_proposes_long_lookups_and_short_model_drafts(pair):
    policy = DraftPolicy.parse("constant:8+model:2")
    trace = generate(pair, Request(pair.tokenizer.encode(REPEATING), max_new_tokens=40, drafter="hybrid", policy=policy))
    model_rounds = [r for r in trace.rounds if r.draft_source == "model"]
    assert model_rounds and all(r.gamma <= 2 for r in model_rounds)
    assert max(r.gamma for r in trace.rounds if r.draft_source == "lookup") > 2


@pytest.mark.parametrize("text", ["fast", "constant:0", "constant:17", "heuristic:x", "confidence:x", "confidence:1.5",
                                  "auto+cost:x", "auto+cost:-1",
                                  "model:0", "model:x"])
def test_bad_policies_are_refused_in_one_sentence(text):
    with pytest.raises(ValueError) as err:
        DraftPolicy.parse(text)
    assert str(err.value).count(".") >= 1 and "\n" not in str(err.value)


def test_pair_drafting_flags_and_environment():
    assert resolve_pair(["--pair", "weak", "--drafter", "lookup"], {}).drafter == "lookup"
    spec = resolve_pair([], {"SPECLAB_PAIR": "random", "SPECLAB_DRAFTER": "hybrid", "SPECLAB_POLICY": "heuristic"})
    assert (spec.name, spec.drafter, spec.policy) == ("random", "hybrid", "heuristic")
    assert resolve_pair(["--pair", "weak", "--policy", "constant"], {"SPECLAB_POLICY": "heuristic"}).policy == "constant"
    with pytest.raises(PairError, match="no drafter 'magic'"):
        resolve_pair(["--drafter", "magic"], {})
    with pytest.raises(PairError, match="policy"):
        resolve_pair(["--policy", "sometimes"], {})


def test_the_pairs_drafting_is_the_decoders_default(monkeypatch):
    from lab.pairs.load import load_spec
    pair = load_spec(resolve_pair(["--pair", "tiny", "--drafter", "lookup", "--policy", "heuristic"], {}))
    decoder = Decoder(pair, Request(pair.tokenizer.encode(REPEATING), gamma=3))
    assert decoder.drafter.name == "lookup" and decoder.policy == DraftPolicy(3, "heuristic")


def test_lookup_drafts_fit_a_head_wider_than_the_tokenizer(tmp_path):
    """Hub models often pad their output layer past the tokenizer (Qwen: 151,936 logits, 151,665
    tokens); a lookup draft's q row must be as wide as the target's p row."""
    from lab.pairs.load import load_pair
    from tests.helpers import WORDS, save_tiny
    wide = len(WORDS) + 5
    pair = load_pair(str(save_tiny(tmp_path / "t", layers=2, vocab_size=wide)),
                     str(save_tiny(tmp_path / "d", seed=1, vocab_size=wide)))
    assert len(pair.tokenizer) < pair.target.config.vocab_size
    ids = pair.tokenizer.encode("the cat sat on the mat and the cat sat on the")
    plain = generate(pair, Request(ids, mode="plain", max_new_tokens=20))
    for drafter in ("lookup", "hybrid"):
        assert generate(pair, Request(ids, max_new_tokens=20, drafter=drafter)).new_ids == plain.new_ids
