"""A small fixture lake for rollout tests: Harbor fixture tasks stored and listed in the `tasks` view."""

from __future__ import annotations

import polars as pl

from skill2env.agent.markers import close_attempts
from skill2env.agent.partition import DomainRollouts, roll_out, task_refs
from skill2env.agent.rollout import RolloutRunner
from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.records import PIPELINE_SOURCE, rubric_column
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import TASKS_SCHEMA
from skill2env.validation.tasks import task_rubric

DOMAIN = "data-analysis"


def register_tasks(lake: Lake, home: Home, *tasks: TaskDir, domain: str = DOMAIN, pipeline: bool = False) -> list[str]:
    """Store each task directory under `home` and write one `tasks` partition listing them as built.

    Columns the rollouts do not read are left at empty values. `pipeline`: list them as the `tasks`
    asset does (source `pipeline`, their rubric, no leaks found), what the iteration stages validate
    and roll out; each task then needs a rubric. Returns the task ids (`<name>-i0`).
    """
    store = TaskStore.of(home)
    empty = {pl.List: [], pl.Int64: 0}
    rows = []
    for task in tasks:
        stored = store.put_dir(task.root)
        row = {name: empty.get(type(dtype), "") for name, dtype in TASKS_SCHEMA.items()}
        row |= {
            "task_id": f"{task.name}-i0",
            "task_name": task.name,
            "iteration": 0,
            "status": "built",
            "domain": domain,
            "task_digest": stored.digest,
            "store_path": stored.relative_path,
        }
        if pipeline:
            row |= {"source": PIPELINE_SOURCE, "rubric": rubric_column(task_rubric(task.root)), "findings": "[]"}
        rows.append(row)
    frame = pl.DataFrame(rows, schema=TASKS_SCHEMA)
    lake.write([TableWrite("tasks", frame, partition_key=domain)], run_id="tasks-run", code_version="test")
    return [str(row["task_id"]) for row in rows]


def open_attempts(lake: Lake, domain: str = DOMAIN) -> pl.DataFrame:
    """The domain's attempts that started and never finished, as the rollout assets read them."""
    return lake.query(load_sql("queries/open_rollout_attempts_of_domain"), {"domain": domain})


def roll_out_domain(lake: Lake, home: Home, domain: str, runner: RolloutRunner, *, attempts: int, run_id: str,
                    code_version: str) -> DomainRollouts:  # fmt: skip
    """Every task the `tasks` view lists for `domain`, rolled out and written as an asset does: read,
    `roll_out`, one write, then the recovered attempts closed."""
    rows = lake.query(load_sql("queries/rollout_tasks_of_domain"), {"domain": domain}).to_dicts()
    outcome = roll_out(open_attempts(lake, domain), home, domain, task_refs(rows, home, domain), runner,
                       attempts=attempts, partition=domain)  # fmt: skip
    lake.write(outcome.writes, run_id=run_id, code_version=code_version)
    close_attempts(lake, outcome.recovered)
    return outcome
