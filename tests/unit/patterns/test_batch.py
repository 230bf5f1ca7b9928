"""Selecting many skills over worker processes gives what selecting each in-process gives: the same
selections, in each domain's row order, with every domain present (an empty one included)."""

from __future__ import annotations

import polars as pl

from skill2env.patterns.batch import CHUNK_SIZE, select_partitions
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.selection import SelectionPolicy, select_patterns
from skill2env.patterns.traits import SkillProfile

TEXTS = (
    "Extract tables from PDF invoices and write a CSV report of the totals per contract.",
    "Refactor a repository: run the unit tests, read the git history, open a pull request.",
    "Keep a to-do list in SQLite; list overdue tasks by priority and due date.",
    "Parse server logs, find the incident window and summarise error rates per service.",
)


def rows(domain: str, n: int) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"skill_id": f"{domain}-{i}", "path": f"{domain}/s{i}", "domain": domain, "name": f"s{i}",
             "description": "", "skill_md_text": TEXTS[i % len(TEXTS)] + f" Variant {i}.", "languages": ["python"],
             "programs": ["git"] if i % 2 else [], "extensions": ["pdf", "csv"] if i % 3 == 0 else ["md"]}
            for i in range(n)
        ]
    )  # fmt: skip


def test_workers_select_what_the_process_itself_selects() -> None:
    pool, policy = seed_pool(), SelectionPolicy()
    inputs = [("data", rows("data", CHUNK_SIZE + 7)), ("empty", rows("empty", 0)), ("code", rows("code", 9))]
    parallel = select_partitions(iter(inputs), pool, policy, workers=2)
    assert list(parallel) == ["data", "empty", "code"]
    for domain, frame in inputs:
        alone = [select_patterns(SkillProfile.from_row(r), pool, policy) for r in frame.iter_rows(named=True)]
        assert parallel[domain] == alone
    assert parallel["empty"] == [] and len(parallel["data"]) == CHUNK_SIZE + 7


def test_progress_counts_every_skill_once() -> None:
    seen: list[int] = []
    select_partitions(iter([("a", rows("a", 5)), ("b", rows("b", 3))]), seed_pool(), SelectionPolicy(), workers=1,
                      progress=seen.append)  # fmt: skip
    assert seen[-1] == 8 and seen == sorted(seen)
