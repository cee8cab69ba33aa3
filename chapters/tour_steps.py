"""The guided tour: one short text per step, each about the live widget of one chapter.

A stub the tour issue fills in (texts and which widget each step shows); the landing page counts it.
Each step: {"chapter": number (0 = the landing page), "text": one or two short sentences}.
"""

TOUR = [
    {"chapter": 0, "text": "Can a small model make a big one faster — and give exactly the same output?"},
    {"chapter": 1, "text": "A large model is a careful writer, but it writes one word per expensive call."},
    {"chapter": 1, "text": "Pause & predict: why can't the big model write all 20 words in one call?"},
    {"chapter": 1, "text": "Press Write: both models write 20 tokens at their real, measured speed."},
    {"chapter": 1, "text": "We want the big model's words at something like the small model's speed."},
    {"chapter": 2, "text": "At every position of the big model's text, ask the small model for its first guess."},
    {"chapter": 2, "text": "Easy words (✓) are the same guess; hard words (✗) differ. Click one to compare."},
    {"chapter": 2, "text": "The big model's care is only needed at a few hard words."},
    {"chapter": 3, "text": "Writing: each word waits for the one before it — n words, n calls."},
    {"chapter": 3, "text": "Checking: words already on the page are read in one call."},
    {"chapter": 3, "text": "Measured on this machine: one call over a few positions costs about one call."},
    {"chapter": 4, "text": "Two names: the target is the big model, the draft is the small one."},
    {"chapter": 4, "text": "Guess, check, keep: the draft writes ahead, the target checks all of it at once."},
    {"chapter": 4, "text": "Press Next round and count target calls in both lanes."},
    {"chapter": 4, "text": "The target is called once per round, not once per token."},
    {"chapter": 5, "text": "γ cheap draft calls, each token sampled from q."},
    {"chapter": 5, "text": "One target pass returns p at every drafted position, plus one more."},
    {"chapter": 5, "text": "The check at position i assumed guesses 1 … i − 1 were right."},
    {"chapter": 6, "text": "One position, two tokens: the draft proposes with q, the target would pick with p."},
    {"chapter": 6, "text": "Keep the proposal with probability min(1, p / q)."},
    {"chapter": 6, "text": "Draw 1000 times and watch the frequencies settle."},
    {"chapter": 6, "text": "Both agree, draft too eager, draft too shy."},
    {"chapter": 7, "text": "After a rejection we still owe a token."},
    {"chapter": 7, "text": "The residual: the part of p the draft did not cover."},
    {"chapter": 7, "text": "Switch the correction rule and compare what comes out with p."},
    {"chapter": 7, "text": "Only the residual reproduces the target distribution exactly."},
    {"chapter": 8, "text": "A full round with real numbers: p, q, p/q and the uniform draw."},
    {"chapter": 8, "text": "Keep the prefix, correct once, drop the rest."},
    {"chapter": 8, "text": "All kept? The target's extra row gives a bonus token."},
    {"chapter": 9, "text": "The whole round fits in seventeen lines."},
    {"chapter": 9, "text": "At temperature 0 the accept test becomes: draft token == target's argmax."},
    {"chapter": 9, "text": "Two KV caches roll back after a miss."},
    {"chapter": 10, "text": "Tokens per round, divided by cost per round."},
    {"chapter": 10, "text": "Drag α, γ and c: where is the break-even?"},
    {"chapter": 10, "text": "Use my models: the measured speed-up beside the predicted one."},
    {"chapter": 11, "text": "Same distribution, a different schedule: tokens arrive in bursts."},
]
