"""The rules' pattern selection of many skills at once, spread over worker processes.

The rules select each skill on its own, from its profile and the pool, so chunks of skills go to
workers as they are read, domain after domain, and come back in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl

from skill2env.parallel import map_chunks
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.selection import Selection, SelectionPolicy, select_patterns
from skill2env.patterns.traits import SkillProfile

CHUNK_SIZE = 256
"""Skills per chunk: a few hundred milliseconds of work, so the last chunk leaves no worker idle long."""
INLINE_BELOW = 512
"""Fewer skills than this are best selected in-process: spawning workers costs more."""


@dataclass(frozen=True)
class SelectionChunk:
    domain: str
    rows: list[dict[str, Any]]
    pool: PatternPool
    policy: SelectionPolicy


def select_chunk(chunk: SelectionChunk) -> tuple[str, list[Selection]]:
    """The selections of one chunk's skills (worker entry point)."""
    return chunk.domain, [select_patterns(SkillProfile.from_row(row), chunk.pool, chunk.policy) for row in chunk.rows]


def select_partitions(
    inputs: Iterable[tuple[str, pl.DataFrame]],
    pool: PatternPool,
    policy: SelectionPolicy,
    *,
    workers: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, list[Selection]]:
    """Each domain's selections, in its rows' order; `inputs` gives (domain, selection-input rows),
    read as the workers need them (in-process when `workers` <= 1)."""
    by_domain: dict[str, list[Selection]] = {}
    done = 0

    def chunks() -> Iterator[SelectionChunk]:
        for domain, rows in inputs:
            by_domain[domain] = []
            for start in range(0, rows.height, CHUNK_SIZE):
                yield SelectionChunk(domain, rows.slice(start, CHUNK_SIZE).to_dicts(), pool, policy)

    def count(result: tuple[str, list[Selection]]) -> None:
        nonlocal done
        done += len(result[1])
        if progress:
            progress(done)

    for domain, selections in map_chunks(select_chunk, chunks(), workers=workers, on_result=count):
        by_domain[domain].extend(selections)
    return by_domain
