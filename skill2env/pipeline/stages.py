"""Validation and rollout stages of one iteration for one domain: the rows their asset read in,
the writes their asset makes out (plus a summary).

Every stage's writes go under the partition `<domain>@i<iteration>`, so the stages of iteration
k+1 add to what iteration k wrote instead of replacing it (the views show the newest write of each
partition).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from skill2env.agent.partition import roll_out, task_refs
from skill2env.agent.rollout import RolloutRunner
from skill2env.agent.trajectory import Trajectory
from skill2env.exports.sft import Candidate, sft_frame
from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.rubric.evaluate import verify_workspace
from skill2env.rubric.judge import Judge
from skill2env.rubric.models import Rubric
from skill2env.rubric.results import ItemResult, VerificationResult
from skill2env.rubric.tables import ScoredRollout, scores_frame
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.validation.hack_probes.tables import HACK_PROBES_SCHEMA, hack_probes_frame
from skill2env.validation.red_team import RedTeam
from skill2env.validation.tables import VALIDATIONS_SCHEMA, validations_frame
from skill2env.validation.tasks import validate_rows


def stage_partition(domain: str, iteration: int) -> str:
    """The lake partition a stage writes for one domain at one iteration."""
    return f"{domain}@i{iteration}"


@dataclass(frozen=True)
class ValidationStage:
    domain: str
    iteration: int
    validated: int
    accepted: int
    failing: dict[str, int] = field(default_factory=dict)
    """Gate → tasks that failed it."""
    writes: list[TableWrite] = field(default_factory=list)
    """`validations` and `hack_probes` for the partition."""


def validate_stage(
    rows: Sequence[Mapping[str, Any]],
    reused: Mapping[str, ReusedGates],
    home: Home,
    domain: str,
    iteration: int,
    *,
    backend: BackendName,
    judge: Judge | None = None,
    red_team: RedTeam | None = None,
    progress: Callable[[int], None] | None = None,
) -> ValidationStage:
    """Run every gate for the domain's built tasks of `iteration` (`rows`, from `queries/stage_tasks`);
    the `validations` and `hack_probes` writes.

    A task the hardening stage built and already ran every gate on (same backend; `reused`, see
    `reused_gates`) is not run again: its rows are the hardening stage's, their evidence saying so."""
    validations = validate_rows([r for r in rows if r["task_id"] not in reused], home.root, backend=backend,
                                judge=judge, red_team=red_team, progress=progress)  # fmt: skip
    kept = [reused[r["task_id"]] for r in rows if r["task_id"] in reused]
    gate_rows = pl.DataFrame([row for gates in kept for row in gates.rows], schema=VALIDATIONS_SCHEMA)
    probe_rows = pl.DataFrame([row for gates in kept for row in gates.probes], schema=HACK_PROBES_SCHEMA)
    partition = stage_partition(domain, iteration)
    writes = [TableWrite("validations", pl.concat([validations_frame(validations, backend), gate_rows]),
                         partition_key=partition),
              TableWrite("hack_probes", pl.concat([hack_probes_frame(validations, backend), probe_rows]),
                         partition_key=partition)]  # fmt: skip
    failing: dict[str, int] = {}
    for validation, _, _ in validations:
        for gate in validation.failing:
            failing[gate] = failing.get(gate, 0) + 1
    accepted = sum(1 for validation, _, _ in validations if validation.accepted)
    carried_over = {row["task_id"] for gates in kept for row in gates.rows}
    return ValidationStage(domain, iteration, len(validations) + len(carried_over), accepted + len(carried_over),
                           failing, writes)  # fmt: skip


@dataclass(frozen=True)
class ReusedGates:
    """The `validations` and `hack_probes` rows the hardening stage wrote for a child it adopted."""

    rows: list[dict[str, Any]]
    probes: list[dict[str, Any]]


def reused_gates(child_gates: Iterable[tuple[str, str]], iteration: int, backend: str) -> dict[str, ReusedGates]:
    """Task id → the gate rows the hardening stage wrote for it when it built it (accepted, on
    `backend`, hack probes included), evidence marked as run then; `child_gates` are the (task id,
    gates JSON) rows of `queries/hardened_child_gates`. A child whose record lacks the probes (a lake
    from before the hack-probe gate) is validated again."""
    if iteration == 0:
        return {}
    found: dict[str, ReusedGates] = {}
    for task_id, text in child_gates:
        gates = json.loads(text)
        rows, probes = gates.get("rows") or [], gates.get("probes")
        if not gates.get("accepted") or not rows or not probes or any(row.get("backend") != backend for row in rows):
            continue
        note = f" [run by the hardening stage after iteration {iteration - 1}, before the task was adopted]"
        found[task_id] = ReusedGates([row | {"evidence": f"{row['evidence']}{note}"} for row in rows], probes)
    return found


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
    task = TaskDir(home.root / row["store_path"])
    fresh = make_sandbox(backend, SandboxLimits.for_task(task))
    return scored(verify_workspace(home.root / trajectory.workspace_path, task, rubric, fresh, judge=judge))


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
