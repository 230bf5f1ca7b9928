"""The pool as the pipeline sees it: seed files plus the additions accepted from hardening."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.patterns.models import Pattern
from skill2env.patterns.pool import PatternPool, build_pool, seed_pool
from skill2env.patterns.tables import patterns_from_additions


def current_pool(additions: pl.DataFrame) -> PatternPool:
    """The seed pool with every accepted addition applied in order (a merge replaces its pattern)."""
    pool = seed_pool()
    for pattern in patterns_from_additions(additions):
        pool = pool.with_pattern(pattern, pool.sources.get(pattern.id) or f"diagnosis:{pattern.origin.diagnosis}")
    return pool


def pool_from_library(frame: pl.DataFrame) -> PatternPool:
    """The pool stored in `pattern_library` rows (what selections read)."""
    entries: Sequence[tuple[Pattern, str]] = [
        (Pattern.model_validate(json.loads(text)), source or "")
        for text, source in zip(frame.get_column("pattern"), frame.get_column("source"), strict=True)
    ]
    return build_pool(entries)
