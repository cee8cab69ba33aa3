"""The random teaching draft: q uniform, greedy guesses random tokens (not token 0 every time)."""
from dataclasses import replace

import torch

from lab.pairs.draftmodels import make_random, uniform_guesses


def _last_logits(model, ids):
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0, -1]


def test_random_draft_is_uniform_and_guesses_a_seeded_random_token():
    vocab = 5000
    model = make_random(vocab, 1, 0, 2)
    perm = torch.randperm(vocab, generator=torch.Generator().manual_seed(1))
    for ids in ([5], [7, 9, 11], [0], [4999, 3]):
        q = torch.softmax(_last_logits(model, ids), -1)
        assert float(q.max() * vocab) < 1.01 and float(q.min() * vocab) > 0.99      # uniform within 1 %
        assert int(q.argmax()) == int(perm[ids[-1]])                                # the guess: perm(last)
    every = torch.arange(vocab).unsqueeze(1)
    with torch.no_grad():
        guesses = model(every).logits[:, -1].argmax(-1)
    assert torch.equal(guesses, perm)        # each token's guess is its own: a permutation, so uniform
    assert int((guesses == 0).sum()) == 1    # token 0 (end of text) is guessed after one token only


def test_a_random_draft_prepared_with_zero_logits_gets_random_guesses_when_switched_to():
    """A random draft prepared as all zeros guessed token 0 at every position; the variant switch
    gives it the random guesses (lab.pairs.variants)."""
    from lab.pairs.tiny import tiny_pair
    from lab.pairs.variants import DraftVariants, all_zero_head
    pair = tiny_pair()
    model = make_random(pair.target.config.vocab_size)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()                                               # as an older `python -m lab prepare` saved it
    assert all_zero_head(model) and int(_last_logits(model, [5]).argmax()) == 0
    pair = replace(pair, draft=model, teaching_drafts={"random": (None, "")})    # the pair's own draft
    random = DraftVariants().pair(pair, "random")
    assert not all_zero_head(random.draft)
    vocab = pair.target.config.vocab_size
    guesses = [int(_last_logits(random.draft, [t]).argmax()) for t in range(vocab)]
    assert sorted(guesses) == list(range(vocab))                   # a different random token after each


def test_uniform_guesses_unties_a_tied_head():
    model = make_random(300)
    model.lm_head.weight = model.model.embed_tokens.weight          # tied, as a saved model may be
    uniform_guesses(model)
    assert model.lm_head.weight is not model.model.embed_tokens.weight
