"""The RL export: accepted Harbor task directories and the per-item pass rates of their groups of attempts.

    out/tasks/<name>-<version>/     each accepted task version not flagged as defective, as a Harbor task
                                    (`tasks.export`): a task carried unchanged into the next iteration
                                    is one folder, its task ids listed in its task.toml
    out/item_pass_rates.parquet     one row per (task, rubric item) — per policy when several rolled a task
    out/item_pass_rates.csv         the same table
    out/rollouts.parquet            one row per verified attempt at an exported task: its reward, and
    out/rollouts.csv                whether its trajectory was flagged (`rollout_flags`), by which rules
    out/compoworld/tasks.jsonl      each current CompoTask (initial states, goal, oracle, rubric) with its
                                    task id, domain, services and capability tags
    out/compoworld/rollouts.parquet one row per attempt at a CompoTask: status, reward, the group reward
    out/compoworld/rollouts.csv     and advantage of its group, the task's services

The weights are the `item_pass_rates` view's: w'_c ∝ w_c · (1 − p_c + ε) with
ε = `thresholds.PASS_RATE_FLOOR` (0.1), normalised per group of attempts, so items the group rarely
passes count more (CompoWorld's low-pass-rate up-weighting).
Flagged attempts still count in the pass rates (the verifier scored them); `flagged_attempts` says how
many of a group's were, and `rollouts.*` which ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from skill2env.lake.ports import Snapshot
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.export import Exported, by_task_version, export_tasks
from skill2env.tasks.store import TaskStore

TASKS_DIR = "tasks"
RATES_STEM = "item_pass_rates"
ROLLOUTS_STEM = "rollouts"
PASS_RATE_COLUMNS = ("task_id", "task_digest", "domain", "iteration", "policy", "item_id", "method", "weight",
                     "attempts", "passes", "mean_q", "pass_rate", "rl_weight", "flagged_attempts")  # fmt: skip
ROLLOUT_COLUMNS = ("rollout_id", "task_id", "task_digest", "domain", "iteration", "policy", "attempt",
                   "verification", "reward", "full_credit", "flagged", "flag_rules", "flag_severity",
                   "flag_steps")  # fmt: skip
GROUP = ("task_id", "iteration", "policy")
COMPOWORLD_DIR = "compoworld"
COMPO_TASKS_FILE = "tasks.jsonl"


@dataclass(frozen=True)
class RlExport:
    tasks: list[Exported]
    pass_rates: pl.DataFrame
    """The table written: one row per (task, policy, rubric item) of the exported tasks."""
    parquet: Path
    csv: Path
    rollouts: pl.DataFrame
    """One row per verified attempt at an exported task, `flagged` with its `flag_rules`."""
    rollouts_parquet: Path
    rollouts_csv: Path
    compo_tasks: int = 0
    """CompoTasks written to `compoworld/tasks.jsonl`."""
    compo_rollouts: pl.DataFrame | None = None
    """One row per attempt at a CompoTask (`compoworld/rollouts.*`)."""

    @property
    def tasks_with_rates(self) -> int:
        return self.pass_rates.get_column("task_id").n_unique() if self.pass_rates.height else 0


def export_rl(lake: Snapshot, store: TaskStore, out: Path, *, policy: str | None = None) -> RlExport:
    """Export the accepted tasks not flagged as defective (by a hardening round or in `task_defects`, by id
    or by content) as Harbor tasks under `out/tasks/`, one folder per task version, and write their item
    pass rates (per task id) and their verified attempts
    (of `policy`'s attempts, or every policy's; attempts whose trajectory is in `rollout_flags` marked) as
    Parquet and CSV beside them; and CompoWorld's tasks and attempts (of `policy`'s) under `out/compoworld/`.

    Raises:
        skill2env.tasks.export.ExportError: a stored directory is missing or no longer matches its digest.
        skill2env.lake.lake.LakeError: the lake could not be read.
    """
    with lake.reading() as reader:
        tasks = reader.query(load_sql("queries/rl_tasks"))
        rates = reader.query(load_sql("queries/rl_item_pass_rates"), {"policy": policy})
        attempts = reader.query(load_sql("queries/rl_rollouts"), {"policy": policy})
        compo_tasks = reader.query(load_sql("queries/compo_rl_tasks"))
        compo_rollouts = reader.query(load_sql("queries/compo_rl_rollouts"))
    exported = export_tasks(task_versions(tasks).to_dicts(), store, out / TASKS_DIR, folder=by_task_version)
    of_task = tasks.select("task_id", "task_digest", "domain")
    rollouts = attempts.join(of_task, on="task_id", how="inner").select(ROLLOUT_COLUMNS)
    flagged = (
        rollouts.filter(pl.col("verification") == "scored")
        .group_by(GROUP)
        .agg(flagged_attempts=pl.col("flagged").sum().cast(pl.Int64))
    )
    table = (
        rates.join(of_task, on="task_id", how="inner")
        .join(flagged, on=GROUP, how="left")
        .with_columns(pl.col("flagged_attempts").fill_null(0))
        .select(PASS_RATE_COLUMNS)
        .sort("task_id", "policy", "item_id")
    )
    parquet, csv = out / f"{RATES_STEM}.parquet", out / f"{RATES_STEM}.csv"
    _replace(parquet, table.write_parquet)
    _replace(csv, table.write_csv)
    rollouts_parquet, rollouts_csv = out / f"{ROLLOUTS_STEM}.parquet", out / f"{ROLLOUTS_STEM}.csv"
    _replace(rollouts_parquet, rollouts.write_parquet)
    _replace(rollouts_csv, rollouts.write_csv)
    if policy is not None:
        compo_rollouts = compo_rollouts.filter(pl.col("policy") == policy)
    write_compoworld(compo_tasks, compo_rollouts, out / COMPOWORLD_DIR)
    return RlExport(exported, table, parquet, csv, rollouts, rollouts_parquet, rollouts_csv,
                    compo_tasks=compo_tasks.height, compo_rollouts=compo_rollouts)  # fmt: skip


def write_compoworld(tasks: pl.DataFrame, rollouts: pl.DataFrame, out: Path) -> None:
    """CompoWorld's RL rows under `out`: `tasks.jsonl` (a line per CompoTask: its lineage and the whole
    task) and `rollouts.parquet` / `.csv` (a row per attempt; in the CSV the lists comma-joined)."""
    out.mkdir(parents=True, exist_ok=True)

    def write_tasks(path: Path) -> None:
        with path.open("w", encoding="utf-8") as handle:
            for row in tasks.iter_rows(named=True):
                line = {name: value for name, value in row.items() if name != "task"}
                handle.write(json.dumps(line | {"task": json.loads(row["task"])}, ensure_ascii=False) + "\n")

    lists = [name for name, dtype in rollouts.schema.items() if isinstance(dtype, pl.List)]
    flat = rollouts.with_columns(pl.col(name).list.join(",") for name in lists)
    _replace(out / COMPO_TASKS_FILE, write_tasks)
    _replace(out / f"{ROLLOUTS_STEM}.parquet", rollouts.write_parquet)
    _replace(out / f"{ROLLOUTS_STEM}.csv", flat.write_csv)


def task_versions(tasks: pl.DataFrame) -> pl.DataFrame:
    """One row per distinct task version (`task_digest`): its first id, name and iteration, and every
    id and iteration it had (Harbor would run two folders of one task as duplicate trials)."""
    return (
        tasks.sort("task_id")
        .group_by("task_digest", maintain_order=True)
        .agg(
            pl.col("task_id").first(),
            pl.col("task_name").first(),
            pl.col("iteration").min(),
            pl.col("store_path").first(),
            pl.col("task_id").alias("task_ids"),
            pl.col("iteration").unique().sort().alias("iterations"),
        )
    )


def _replace(target: Path, write: Callable[[Path], object]) -> None:
    """Write through a hidden partial file renamed into place: the file appears whole or not at all."""
    partial = target.with_name(f".{target.name}.partial")
    write(partial)
    partial.replace(target)
