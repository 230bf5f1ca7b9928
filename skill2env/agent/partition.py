"""Rolling out one partition: k attempts of each task, closing what a killed run left open; the writes out.

    refs = task_refs(rows, home, domain)                    # rows: queries/rollout_tasks_of_domain
    opened = …                                              # queries/open_rollout_attempts_of_domain
    outcome = roll_out(opened, home, domain, refs, runner, attempts=4, partition=domain)
    lake.write(outcome.writes, run_id=…, code_version=…)
    close_attempts(lake, outcome.recovered)                 # after the write: their `finished` markers

Attempts a killed run left open become `infra_error` rows of the same writes (so they are recorded,
never lost), and get their `finished` marker once those writes committed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.flags import flags_frame, workspace_inputs
from skill2env.agent.markers import interrupted_attempts
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.agent.tables import rollouts_frame, trajectory_steps_frame
from skill2env.agent.trajectory import Trajectory
from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.sandbox import TaskDir
from skill2env.tasks.store import TaskStore


@dataclass(frozen=True)
class DomainRollouts:
    domain: str
    tasks: int
    trajectories: list[Trajectory]
    """This run's attempts."""
    recovered: list[Trajectory]
    """Attempts of killed runs, closed as infra_error in these writes."""
    writes: list[TableWrite] = field(default_factory=list)
    """`rollouts`, `trajectory_steps`, `rollout_flags` and the caller's `more_writes`, for one transaction."""

    @property
    def rows(self) -> int:
        return len(self.trajectories) + len(self.recovered)


def task_refs(rows: Iterable[Mapping[str, Any]], home: Home, domain: str) -> list[TaskRef]:
    """The tasks of `rows` (`task_id`, `iteration`, `task_digest`, `store_path`) with their stored directories."""
    store = TaskStore.of(home)
    return [
        TaskRef(
            task=TaskDir(store.resolve(row["store_path"])),
            task_id=row["task_id"],
            domain=domain,
            iteration=int(row["iteration"]),
            task_digest=row["task_digest"],
        )
        for row in rows
    ]


def roll_out(
    opened: pl.DataFrame,
    home: Home,
    domain: str,
    refs: Sequence[TaskRef],
    runner: RolloutRunner,
    *,
    attempts: int,
    partition: str,
    more_writes: Callable[[list[Trajectory]], list[TableWrite]] | None = None,
) -> DomainRollouts:
    """Close the domain's interrupted attempts (`opened`: its attempts that started and never finished),
    run `attempts` attempts of every task in `refs`; the writes of `rollouts`, `trajectory_steps`,
    `rollout_flags` and whatever `more_writes` makes of this run's attempts (scores, SFT rows) under
    `partition`. The caller writes them in one transaction, then closes `recovered` (`close_attempts`)."""
    recovered = interrupted_attempts(opened, TrajectoryFiles(home.data_root))
    trajectories = runner.run_all(attempt_specs(refs, attempts)) if refs else []
    everything = [*recovered, *trajectories]
    inputs = {ref.task_id: workspace_inputs(ref.task.workspace_dir) for ref in refs}
    writes = [
        TableWrite("rollouts", rollouts_frame(everything), partition_key=partition),
        TableWrite("trajectory_steps", trajectory_steps_frame(everything), partition_key=partition),
        TableWrite("rollout_flags", flags_frame(everything, inputs), partition_key=partition),
        *(more_writes(trajectories) if more_writes is not None else []),
    ]
    return DomainRollouts(domain, len(refs), trajectories, recovered, writes)
