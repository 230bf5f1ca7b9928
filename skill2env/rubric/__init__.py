"""Rubric evaluators: weighted items, deterministic checks and judge items, evidence for every score."""
