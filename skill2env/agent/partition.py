"""Rolling out one domain partition: its tasks from the lake, k attempts each, one write of its rows.

    outcome = roll_out_domain(lake, home, "data-analysis", runner, attempts=4, run_id=…, code_version=…)

Attempts a killed run left open are closed first: they become `infra_error` rows of this write
(so they are recorded, never lost), and get their `finished` marker once the write committed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.flags import flags_frame, workspace_inputs
from skill2env.agent.markers import close_attempts, interrupted_attempts
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.agent.tables import rollouts_frame, trajectory_steps_frame
from skill2env.agent.trajectory import Trajectory
from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.store import TaskStore


@dataclass(frozen=True)
class DomainRollouts:
    domain: str
    tasks: int
    trajectories: list[Trajectory]
    """This run's attempts."""
    recovered: list[Trajectory]
    """Attempts of killed runs, closed as infra_error in this write."""

    @property
    def rows(self) -> int:
        return len(self.trajectories) + len(self.recovered)


def tasks_of_domain(lake: Lake, home: Home, domain: str) -> list[TaskRef]:
    """The domain's built or accepted tasks (from the `tasks` view), with their stored directories."""
    store = TaskStore.of(home)
    rows = lake.query(load_sql("queries/rollout_tasks_of_domain"), {"domain": domain})
    return [
        TaskRef(
            task=TaskDir(store.resolve(row["store_path"])),
            task_id=row["task_id"],
            domain=domain,
            iteration=int(row["iteration"]),
            task_digest=row["task_digest"],
        )
        for row in rows.iter_rows(named=True)
    ]


def roll_out_domain(
    lake: Lake,
    home: Home,
    domain: str,
    runner: RolloutRunner,
    *,
    attempts: int,
    run_id: str,
    code_version: str,
) -> DomainRollouts:
    """Close the domain's interrupted attempts, run `attempts` attempts of every task, write
    `rollouts`, `trajectory_steps` and `rollout_flags` for the partition in one transaction."""
    refs = tasks_of_domain(lake, home, domain)
    return roll_out(lake, home, domain, refs, runner, attempts=attempts, partition=domain, run_id=run_id,
                    code_version=code_version)  # fmt: skip


def roll_out(
    lake: Lake,
    home: Home,
    domain: str,
    refs: Sequence[TaskRef],
    runner: RolloutRunner,
    *,
    attempts: int,
    partition: str,
    run_id: str,
    code_version: str,
    more_writes: Callable[[list[Trajectory]], list[TableWrite]] | None = None,
) -> DomainRollouts:
    """Close the domain's interrupted attempts, run `attempts` attempts of every task in `refs`, and
    write `rollouts`, `trajectory_steps`, `rollout_flags` and whatever `more_writes` makes of this run's
    attempts (scores, SFT rows) under `partition` in one transaction; then mark the recovered attempts
    closed."""
    recovered = interrupted_attempts(lake, TrajectoryFiles(home.root), domain)
    trajectories = runner.run_all(attempt_specs(refs, attempts)) if refs else []
    everything = [*recovered, *trajectories]
    inputs = {ref.task_id: workspace_inputs(ref.task.workspace_dir) for ref in refs}
    writes = [
        TableWrite("rollouts", rollouts_frame(everything), partition_key=partition),
        TableWrite("trajectory_steps", trajectory_steps_frame(everything), partition_key=partition),
        TableWrite("rollout_flags", flags_frame(everything, inputs), partition_key=partition),
        *(more_writes(trajectories) if more_writes is not None else []),
    ]
    lake.write(writes, run_id=run_id, code_version=code_version)
    close_attempts(lake, recovered)
    return DomainRollouts(domain, len(refs), trajectories, recovered)
