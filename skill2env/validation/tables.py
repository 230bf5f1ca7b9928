"""The `validations` table: one row per (task, gate)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.validation.gates import Validation

VALIDATIONS_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "gate": pl.String(),
        "status": pl.String(),
        "reward": pl.Float64(),
        "threshold": pl.Float64(),
        "evidence": pl.String(),
        "rollout_id": pl.String(),
        "item_rewards": pl.String(),
        "accepted": pl.Boolean(),
        "backend": pl.String(),
        "acceptance": pl.String(),
    }
)


def validations_frame(validations: Sequence[tuple[Validation, str, int]], backend: str) -> pl.DataFrame:
    """Rows for (validation, domain, iteration) triples."""
    rows = [
        {
            "task_id": validation.task_id,
            "iteration": iteration,
            "domain": domain,
            "gate": outcome.gate.value,
            "status": outcome.status.value,
            "reward": outcome.reward,
            "threshold": outcome.threshold,
            "evidence": outcome.evidence,
            "rollout_id": outcome.rollout_id,
            "item_rewards": json.dumps(outcome.item_rewards, sort_keys=True) if outcome.item_rewards else None,
            "accepted": validation.accepted,
            "backend": backend,
            "acceptance": validation.acceptance.value,
        }
        for validation, domain, iteration in validations
        for outcome in validation.outcomes
    ]
    return pl.DataFrame(rows, schema=VALIDATIONS_SCHEMA)
