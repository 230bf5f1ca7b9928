"""Validation gates: a built task is accepted only when its reward is right about known policies."""
