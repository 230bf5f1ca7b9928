"""The RL export: accepted Harbor task directories and the per-item pass rates of their groups of attempts.

    out/tasks/<task_id>/            each accepted task not flagged as defective, byte for byte as stored
    out/item_pass_rates.parquet     one row per (task, rubric item) — per policy when several rolled a task
    out/item_pass_rates.csv         the same table

The weights are the `item_pass_rates` view's: w'_c ∝ w_c · (1 − p_c + 0.1), normalised per group of
attempts, so items the group rarely passes count more (CompoWorld's low-pass-rate up-weighting).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.export import Exported, export_tasks
from skill2env.tasks.store import TaskStore

TASKS_DIR = "tasks"
RATES_STEM = "item_pass_rates"
PASS_RATE_COLUMNS = ("task_id", "task_digest", "domain", "iteration", "policy", "item_id", "method", "weight",
                     "attempts", "passes", "mean_q", "pass_rate", "rl_weight")  # fmt: skip


@dataclass(frozen=True)
class RlExport:
    tasks: list[Exported]
    pass_rates: pl.DataFrame
    """The table written: one row per (task, policy, rubric item) of the exported tasks."""
    parquet: Path
    csv: Path

    @property
    def tasks_with_rates(self) -> int:
        return self.pass_rates.get_column("task_id").n_unique() if self.pass_rates.height else 0


def export_rl(lake: Lake, store: TaskStore, out: Path, *, policy: str | None = None) -> RlExport:
    """Copy the accepted tasks not flagged as defective (by a hardening round or in `task_defects`, by id
    or by content) to `out/tasks/<task_id>/` and write their item pass rates (of `policy`'s attempts, or
    every policy's) as Parquet and CSV beside them.

    Raises:
        skill2env.tasks.export.ExportError: a stored directory is missing or no longer matches its digest.
        skill2env.lake.lake.LakeError: the lake could not be read.
    """
    with lake.reading() as reader:
        tasks = reader.query(load_sql("queries/rl_tasks"))
        rates = reader.query(load_sql("queries/rl_item_pass_rates"), {"policy": policy})
    exported = export_tasks(tasks.to_dicts(), store, out / TASKS_DIR)
    table = (
        rates.join(tasks.select("task_id", "task_digest", "domain"), on="task_id", how="inner")
        .select(PASS_RATE_COLUMNS)
        .sort("task_id", "policy", "item_id")
    )
    parquet, csv = out / f"{RATES_STEM}.parquet", out / f"{RATES_STEM}.csv"
    _replace(parquet, table.write_parquet)
    _replace(csv, table.write_csv)
    return RlExport(exported, table, parquet, csv)


def _replace(target: Path, write: Callable[[Path], object]) -> None:
    """Write through a hidden partial file renamed into place: the file appears whole or not at all."""
    partial = target.with_name(f".{target.name}.partial")
    write(partial)
    partial.replace(target)
