"""The rollout stage of one iteration for one domain: the accepted tasks its asset read in, k
attempts each, every final workspace verified in a fresh sandbox; the `rollouts`,
`trajectory_steps`, `rollout_flags`, `rubric_scores` and `sft_examples` writes out (plus a summary),
under the partition `<domain>@i<iteration>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from skill2env.agent.partition import roll_out, task_refs
from skill2env.agent.rollout import RolloutRunner
from skill2env.agent.trajectory import Trajectory
from skill2env.exports.sft import Candidate, sft_frame
from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.rubric import ItemResult, Judge, Rubric, VerificationResult, verify_workspace
from skill2env.rubric.tables import ScoredRollout, scores_frame
from skill2env.sandbox import BackendName, SandboxLimits, TaskDir, make_sandbox


@dataclass(frozen=True)
class RolloutStage:
    domain: str
    iteration: int
    tasks: int
    trajectories: list[Trajectory]
    recovered: list[Trajectory]
    scored: list[ScoredRollout]
    sft_examples: int
    sft_skipped: list[str]
    writes: list[TableWrite] = field(default_factory=list)
    """`rollouts`, `trajectory_steps`, `rollout_flags`, `rubric_scores` and `sft_examples`, for one transaction."""


def rollout_stage(
    rows: Sequence[Mapping[str, Any]],
    opened: pl.DataFrame,
    home: Home,
    domain: str,
    iteration: int,
    runner: RolloutRunner,
    *,
    attempts: int,
    judge: Judge | None = None,
) -> RolloutStage:
    """Roll out the domain's accepted tasks of `iteration` (`rows`, from `queries/stage_accepted_tasks`;
    k attempts each) and verify every final workspace in a fresh sandbox; the writes of `rollouts`,
    `trajectory_steps`, `rubric_scores` and `sft_examples`. Attempts a killed run left open (`opened`,
    see `roll_out`) are closed as `infra_error`: the caller marks them finished after its write."""
    refs = task_refs([{**r, "iteration": iteration} for r in rows], home, domain)
    by_task = {row["task_id"]: row for row in rows}
    scored: list[ScoredRollout] = []
    sft_rows: list[int] = []
    sft_skipped: list[str] = []

    def scores_and_sft(trajectories: list[Trajectory]) -> list[TableWrite]:
        scored.extend(_verify(t, by_task[t.task_id], home, runner.backend, judge) for t in trajectories)
        candidates = [
            Candidate(t, s.result.reward, by_task[t.task_id])
            for t, s in zip(trajectories, scored, strict=True)
            if s.result.status == "scored" and s.result.reward is not None and t.status == "completed"
        ]
        sft, skipped = sft_frame(candidates)
        sft_rows.append(sft.height)
        sft_skipped.extend(skipped)
        partition = stage_partition(domain, iteration)
        return [TableWrite("rubric_scores", scores_frame(scored), partition_key=partition),
                TableWrite("sft_examples", sft, partition_key=partition)]  # fmt: skip

    outcome = roll_out(opened, home, domain, refs, runner, attempts=attempts,
                       partition=stage_partition(domain, iteration), more_writes=scores_and_sft)  # fmt: skip
    return RolloutStage(domain, iteration, outcome.tasks, outcome.trajectories, outcome.recovered, scored,
                        sum(sft_rows), sft_skipped, outcome.writes)  # fmt: skip


def _verify(trajectory: Trajectory, row: Mapping[str, Any], home: Home, backend: BackendName,
            judge: Judge | None) -> ScoredRollout:  # fmt: skip
    def scored(result: VerificationResult) -> ScoredRollout:
        return ScoredRollout(trajectory.rollout_id, trajectory.task_id, trajectory.iteration, trajectory.domain,
                             trajectory.policy, trajectory.attempt, result)  # fmt: skip

    if trajectory.status == "infra_error":
        why = trajectory.error or "the rollout failed outside the sandbox"
        return scored(VerificationResult.infra_error(f"not verified: {why}", rollout_id=trajectory.rollout_id))
    rubric = Rubric.model_validate_json(row["rubric"])
    if not trajectory.workspace_path:
        # The agent's own commands ended the sandbox with its workspace (e.g. it starved the command
        # server): the attempt is the agent's failure, scored 0 with the cause, never excused.
        why = f"the attempt left no final workspace ({trajectory.status}): {trajectory.error or 'no cause recorded'}"
        failed = [ItemResult.failed(item, why) for item in rubric.items]
        return scored(VerificationResult.scored_from(rubric, failed, rollout_id=trajectory.rollout_id))
    task = TaskDir(home.data_root / row["store_path"])
    fresh = make_sandbox(backend, SandboxLimits.for_task(task))
    return scored(verify_workspace(home.data_root / trajectory.workspace_path, task, rubric, fresh, judge=judge))


def stage_summary(stages: Sequence[RolloutStage]) -> dict[str, float]:
    """Figures for asset metadata: attempts, infra errors, mean reward, full-credit rate."""
    results = [s.result for stage in stages for s in stage.scored]
    rewards = [r.reward for r in results if r.status == "scored" and r.reward is not None]
    full = [r for r in results if r.full_credit]
    return {
        "attempts": float(len(results)),
        "infra_errors": float(sum(1 for r in results if r.status == "infra_error")),
        "mean_reward": round(sum(rewards) / len(rewards), 4) if rewards else 0.0,
        "full_credit_rate": round(len(full) / len(rewards), 4) if rewards else 0.0,
    }
