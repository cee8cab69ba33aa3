"""The decoding core: p and q, the drafters and draft length policies, one round of draft,
verify, accept and correct on two KV caches, its trace, and the analytic model and seeded draws it is
checked against."""
