"""The `rubric_scores` table: one row per (rollout, rubric item), from verification results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from skill2env.rubric.results import VerificationResult

RUBRIC_SCORES_SCHEMA = pl.Schema(
    {
        "rollout_id": pl.String(),
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "policy": pl.String(),
        "attempt": pl.Int64(),
        "verification": pl.String(),
        "reward": pl.Float64(),
        "raw_reward": pl.Float64(),
        "scored_weight": pl.Float64(),
        "full_credit": pl.Boolean(),
        "flags": pl.List(pl.String()),
        "item_id": pl.String(),
        "method": pl.String(),
        "weight": pl.Float64(),
        "status": pl.String(),
        "q": pl.Float64(),
        "evidence": pl.String(),
        "error": pl.String(),
        "isolation": pl.String(),
    }
)


@dataclass(frozen=True)
class ScoredRollout:
    """Which rollout a verification belongs to."""

    rollout_id: str
    task_id: str
    iteration: int
    domain: str
    policy: str
    attempt: int
    result: VerificationResult


def scores_frame(scored: Sequence[ScoredRollout]) -> pl.DataFrame:
    rows = []
    for entry in scored:
        result = entry.result
        base = {
            "rollout_id": entry.rollout_id,
            "task_id": entry.task_id,
            "iteration": entry.iteration,
            "domain": entry.domain,
            "policy": entry.policy,
            "attempt": entry.attempt,
            "verification": result.status,
            "reward": result.reward,
            "raw_reward": result.raw_reward,
            "scored_weight": result.scored_weight,
            "full_credit": result.full_credit,
            "flags": [flag.value for flag in result.flags],
            "error": result.error,
            "isolation": result.isolation,
        }
        if result.status != "scored" or not result.items:
            rows.append(base | {"item_id": None, "method": None, "weight": None, "status": None, "q": None,
                                "evidence": None})  # fmt: skip
        for item in result.items:
            rows.append(base | {
                "item_id": item.item_id,
                "method": item.method.value,
                "weight": item.weight,
                "status": item.status.value,
                "q": item.q,
                "evidence": json.dumps(item.evidence, default=str, sort_keys=True)[:20_000],
                "error": item.error or result.error,
            })  # fmt: skip
    return pl.DataFrame(rows, schema=RUBRIC_SCORES_SCHEMA)
