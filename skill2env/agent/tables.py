"""The rollout tables as polars frames: `rollouts`, `trajectory_steps`, and the `rollout_attempts` log."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.agent.trajectory import Trajectory, utc_now

_TIME = pl.Datetime("us", "UTC")

ROLLOUTS_SCHEMA = pl.Schema(
    {
        "rollout_id": pl.String(),
        "group_id": pl.String(),
        "attempt_run_id": pl.String(),
        "task_id": pl.String(),
        "task_name": pl.String(),
        "domain": pl.String(),
        "iteration": pl.Int64(),
        "task_digest": pl.String(),
        "policy": pl.String(),
        "model": pl.String(),
        "attempt": pl.Int64(),
        "backend": pl.String(),
        "sandbox_mode": pl.String(),
        "status": pl.String(),
        "error": pl.String(),
        "started_at": _TIME,
        "finished_at": _TIME,
        "wall_s": pl.Float64(),
        "model_s": pl.Float64(),
        "tool_s": pl.Float64(),
        "sandbox_s": pl.Float64(),
        "turns": pl.Int64(),
        "input_tokens": pl.Int64(),
        "output_tokens": pl.Int64(),
        "tool_calls": pl.Int64(),
        "tool_errors": pl.Int64(),
        "final_message": pl.String(),
        "workspace_digest": pl.String(),
        "workspace_path": pl.String(),
        "trajectory_path": pl.String(),
        "schema_version": pl.Int64(),
    }
)

TRAJECTORY_STEPS_SCHEMA = pl.Schema(
    {
        "rollout_id": pl.String(),
        "task_id": pl.String(),
        "step_id": pl.Int64(),
        "source": pl.String(),
        "timestamp": _TIME,
        "model_name": pl.String(),
        "message": pl.String(),
        "reasoning": pl.String(),
        "tool_calls": pl.String(),
        "observations": pl.String(),
        "prompt_tokens": pl.Int64(),
        "completion_tokens": pl.Int64(),
        "latency_ms": pl.Float64(),
        "repaired": pl.Int64(),
        "extra": pl.String(),
    }
)

ROLLOUT_ATTEMPTS_SCHEMA = pl.Schema(
    {
        "event": pl.String(),
        "recorded_at": _TIME,
        "rollout_id": pl.String(),
        "group_id": pl.String(),
        "run_id": pl.String(),
        "owner": pl.String(),
        "task_id": pl.String(),
        "task_name": pl.String(),
        "domain": pl.String(),
        "iteration": pl.Int64(),
        "task_digest": pl.String(),
        "policy": pl.String(),
        "model": pl.String(),
        "attempt": pl.Int64(),
        "backend": pl.String(),
        "status": pl.String(),
        "error": pl.String(),
        "trajectory_path": pl.String(),
    }
)


def rollouts_frame(trajectories: Sequence[Trajectory]) -> pl.DataFrame:
    """One row per attempt: the trajectory's header and its totals."""
    return pl.DataFrame([_rollout_row(t) for t in trajectories], schema=ROLLOUTS_SCHEMA)


def trajectory_steps_frame(trajectories: Sequence[Trajectory]) -> pl.DataFrame:
    """One row per step of every trajectory."""
    rows = []
    for trajectory in trajectories:
        for step in trajectory.steps:
            metrics = step.metrics
            rows.append(
                {
                    "rollout_id": trajectory.rollout_id,
                    "task_id": trajectory.task_id,
                    "step_id": step.step_id,
                    "source": step.source,
                    "timestamp": step.timestamp,
                    "model_name": step.model_name,
                    "message": step.message,
                    "reasoning": step.reasoning,
                    "tool_calls": _json([call.model_dump() for call in step.tool_calls]),
                    "observations": _json([o.model_dump() for o in step.observations]),
                    "prompt_tokens": metrics.prompt_tokens if metrics else None,
                    "completion_tokens": metrics.completion_tokens if metrics else None,
                    "latency_ms": metrics.latency_ms if metrics else None,
                    "repaired": metrics.repaired if metrics else None,
                    "extra": _json(step.extra),
                }
            )
    return pl.DataFrame(rows, schema=TRAJECTORY_STEPS_SCHEMA)


def attempt_event_frame(event: str, trajectory: Trajectory, owner: str) -> pl.DataFrame:
    """One `rollout_attempts` row: `started` (status `started`) or `finished` (the final status)."""
    row = {
        "event": event,
        "recorded_at": utc_now(),
        "rollout_id": trajectory.rollout_id,
        "group_id": trajectory.group_id,
        "run_id": trajectory.run_id,
        "owner": owner,
        "task_id": trajectory.task_id,
        "task_name": trajectory.task_name,
        "domain": trajectory.domain,
        "iteration": trajectory.iteration,
        "task_digest": trajectory.task_digest,
        "policy": trajectory.policy,
        "model": trajectory.model,
        "attempt": trajectory.attempt,
        "backend": trajectory.backend,
        "status": trajectory.status,
        "error": trajectory.error,
        "trajectory_path": trajectory.trajectory_path,
    }
    return pl.DataFrame([row], schema=ROLLOUT_ATTEMPTS_SCHEMA)


def _rollout_row(trajectory: Trajectory) -> dict[str, object]:
    observations = [o for step in trajectory.steps for o in step.observations]
    header = trajectory.model_dump(exclude={"steps", "tools", "run_id"})
    return {
        **header,
        "attempt_run_id": trajectory.run_id,
        "tool_calls": sum(len(step.tool_calls) for step in trajectory.steps),
        "tool_errors": sum(o.is_error for o in observations),
    }


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
