"""Building and distilling drafts for the embedded target (no Panel imports)."""
