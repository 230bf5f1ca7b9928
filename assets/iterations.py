"""The hardening loop, unrolled: one stage of assets per iteration (Dagster forbids cycles).

    tasks ─► iteration_0/validations ─► iteration_0/rollouts + rubric_scores ─► iteration_0/hardening
          ─► iteration_1/validations ─► … ─► iteration_N/rollouts + rubric_scores ─► sft_trajectories

Every stage is partitioned by domain and writes the shared tables (`validations`, `rollouts`,
`trajectory_steps`, `rubric_scores`, `sft_examples`, `hardening_rounds`, `tasks`) under the lake
partition `<domain>@i<k>`, with an `iteration` column, so the asset graph shows the progression.
"""

import warnings
from collections.abc import Iterator, Sequence
from typing import Literal

import dagster as dg

from assets.partitions import domain_partitions
from assets.progress import progress_logger
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.agent.markers import AttemptLog
from skill2env.agent.rollout import RolloutRunner
from skill2env.home import Home
from skill2env.pipeline.policies import pipeline_policy, session_judge
from skill2env.pipeline.settings import resolve_backend
from skill2env.pipeline.stages import RolloutStage, rollout_stage, stage_summary, validate_stage

CODE_VERSION = "iterations-1"
DEFAULT_ITERATIONS = 2

warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


class StageConfig(dg.Config):
    backend: Literal["auto", "docker", "bwrap"] = "auto"
    """Sandbox backend; `auto` prefers bwrap with the unpacked base image, then docker."""


class RolloutStageConfig(StageConfig):
    policy: str = "auto"
    """solver (the solver role's model) | naive (each kit's scripted baseline) | oracle | nop | partial |
    script:<file.json>; `auto`: solver when a solver endpoint is configured, else naive."""
    attempts: int = 4
    """Attempts per task: one group, for pass rates and adaptive triggers."""
    max_turns: int = 40


def stage_key(iteration: int, name: str) -> dg.AssetKey:
    return dg.AssetKey([f"iteration_{iteration}", name])


def _upstream_tasks(iteration: int) -> dg.AssetKey:
    return dg.AssetKey("tasks") if iteration == 0 else stage_key(iteration - 1, "hardening")


def validations_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.asset(
        key=stage_key(iteration, "validations"),
        deps=[_upstream_tasks(iteration)],
        partitions_def=domain_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name=f"iteration_{iteration}",
        kinds={"duckdb"},
        pool="sandbox",
    )
    def validations(
        context: dg.AssetExecutionContext, config: StageConfig, lake: LakeResource, llm: LlmResource
    ) -> dg.MaterializeResult:
        """Every validation gate (oracle, nop, partial, leak, judge) for this iteration's built tasks."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        backend = resolve_backend(config.backend)
        report = progress_logger(context, "tasks validated")
        with llm.session(context, store) as models:
            judge = session_judge(models)
            stages = [
                validate_stage(
                    store,
                    home,
                    domain,
                    iteration,
                    backend=backend,
                    run_id=context.run.run_id,
                    code_version=CODE_VERSION,
                    judge=judge,
                    progress=report,
                )
                for domain in context.partition_keys
            ]
        failing: dict[str, int] = {}
        for stage in stages:
            for gate, count in stage.failing.items():
                failing[gate] = failing.get(gate, 0) + count
        return dg.MaterializeResult(
            metadata={
                "validated": sum(s.validated for s in stages),
                "accepted": sum(s.accepted for s in stages),
                "backend": backend,
                **{f"failed/{gate}": count for gate, count in sorted(failing.items())},
            }
        )

    return validations


def rollouts_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.multi_asset(
        specs=[
            dg.AssetSpec(
                stage_key(iteration, "rollouts"),
                deps=[stage_key(iteration, "validations")],
                description="k attempts of the solver on every accepted task, with trajectories.",
                group_name=f"iteration_{iteration}",
                kinds={"duckdb"},
            ),
            dg.AssetSpec(
                stage_key(iteration, "rubric_scores"),
                deps=[stage_key(iteration, "rollouts")],
                description="Every rollout verified in a fresh sandbox: item results with evidence, reward.",
                group_name=f"iteration_{iteration}",
                kinds={"duckdb"},
            ),
        ],
        partitions_def=domain_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool="sandbox",
        name=f"iteration_{iteration}_rollouts",
    )
    def rollouts(
        context: dg.AssetExecutionContext, config: RolloutStageConfig, lake: LakeResource, llm: LlmResource
    ) -> Iterator[dg.MaterializeResult]:
        """Roll out this iteration's accepted tasks and score every attempt (SFT candidates included)."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        backend = resolve_backend(config.backend)
        with llm.session(context, store) as models:
            policy_name = config.policy
            if policy_name == "auto":
                policy_name = "solver" if models.configured("solver") else "naive"
            client = models.client("solver") if policy_name == "solver" else None
            policy = pipeline_policy(policy_name, client)
            runner = RolloutRunner(policy, backend=backend, run_id=context.run.run_id, home=home,
                                   attempts=AttemptLog(store), max_turns=config.max_turns,
                                   progress=progress_logger(context, "rollout attempts finished"))  # fmt: skip
            judge = session_judge(models)
            stages = [
                rollout_stage(
                    store,
                    home,
                    domain,
                    iteration,
                    runner,
                    attempts=config.attempts,
                    run_id=context.run.run_id,
                    code_version=CODE_VERSION,
                    judge=judge,
                )
                for domain in context.partition_keys
            ]
        summary = stage_summary(stages)
        yield dg.MaterializeResult(
            asset_key=stage_key(iteration, "rollouts"),
            metadata={
                "tasks": sum(s.tasks for s in stages),
                "attempts": int(summary["attempts"]),
                "policy": policy.name,
                "backend": backend,
                "recovered": sum(len(s.recovered) for s in stages),
                "mean_turns": round(
                    sum(t.turns for s in stages for t in s.trajectories)
                    / max(1, sum(len(s.trajectories) for s in stages)),
                    2,
                ),
            },
        )
        yield dg.MaterializeResult(
            asset_key=stage_key(iteration, "rubric_scores"),
            metadata={
                "mean_reward": summary["mean_reward"],
                "full_credit_rate": summary["full_credit_rate"],
                "infra_errors": int(summary["infra_errors"]),
                "sft_examples": sum(s.sft_examples for s in stages),
            },
        )

    return rollouts


def _mean_turns(stages: Sequence[RolloutStage]) -> float:
    turns = [t.turns for stage in stages for t in stage.trajectories]
    return round(sum(turns) / len(turns), 2) if turns else 0.0
