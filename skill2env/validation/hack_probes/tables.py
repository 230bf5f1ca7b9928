"""The `hack_probes` table: one row per (task, strategy), written beside `validations`."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.validation.gates import Validation

HACK_PROBES_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "strategy": pl.String(),
        "family": pl.String(),
        "status": pl.String(),
        "reward": pl.Float64(),
        "items_passed": pl.String(),
        "evidence": pl.String(),
        "rollout_id": pl.String(),
        "backend": pl.String(),
    }
)


def hack_probes_frame(validations: Sequence[tuple[Validation, str, int]], backend: str) -> pl.DataFrame:
    """Rows for (validation, domain, iteration) triples: every probe of each."""
    rows = [
        {
            "task_id": validation.task_id,
            "iteration": iteration,
            "domain": domain,
            "strategy": probe.strategy,
            "family": probe.family,
            "status": probe.status.value,
            "reward": probe.reward,
            "items_passed": json.dumps(list(probe.items_passed)),
            "evidence": probe.evidence,
            "rollout_id": probe.rollout_id,
            "backend": backend,
        }
        for validation, domain, iteration in validations
        for probe in validation.probes
    ]
    return pl.DataFrame(rows, schema=HACK_PROBES_SCHEMA)
