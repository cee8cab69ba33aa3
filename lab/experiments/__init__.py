"""The chapters' experiments, without Panel: what each chapter computes from the core and a pair
(break-even numbers, two-token rounds, the correction's draws, a case search, draftings side by side,
α per kind of text, the models compared, the race) and the preset prompts."""
