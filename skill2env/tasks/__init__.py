"""Tasks: the blueprint (author-side contract) and the Harbor task directories built from it."""
