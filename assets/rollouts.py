"""Rollouts: k attempts of a policy on every built task of a domain, with their trajectories."""

import warnings
from typing import Literal

import dagster as dg
import polars as pl

from assets.partitions import domain_partitions
from assets.progress import progress_logger
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.agent.actors import policy_from_name
from skill2env.agent.markers import AttemptLog
from skill2env.agent.partition import DomainRollouts, roll_out_domain
from skill2env.agent.rollout import RolloutRunner
from skill2env.agent.tables import rollouts_frame
from skill2env.formatting import markdown_table
from skill2env.home import Home
from skill2env.llm.errors import ModelNotConfigured

CODE_VERSION = "rollouts-1"

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


class RolloutsConfig(dg.Config):
    policy: str = "oracle"
    """oracle | nop | partial | solver (the solver role's model) | script:<path to a JSON file of turns>."""
    attempts: int = 1
    """Attempts per task (one group per task)."""
    backend: Literal["docker", "bwrap"] = "docker"
    max_turns: int = 30
    max_tokens: int = 0
    """Input + output tokens per attempt; 0: no limit."""
    concurrency: int = 0
    """Attempts at once; 0: `$SKILL2ENV_SANDBOX_SLOTS` (default 2)."""
    partial_fraction: float = 0.5
    """The share of the oracle's commands the `partial` policy runs."""


@dg.asset(
    partitions_def=domain_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["tasks"],
    group_name="rollouts",
    kinds={"duckdb", "docker"},
    pool="sandbox",
)
def rollouts(
    context: dg.AssetExecutionContext, config: RolloutsConfig, lake: LakeResource, llm: LlmResource
) -> dg.MaterializeResult:
    """One row per rollout attempt of every built task of a domain (its steps in `trajectory_steps`)."""
    store = lake.lake()
    home = Home.resolve(lake.home or None)
    outcomes: list[DomainRollouts] = []
    with llm.session(context, store) as models:
        try:
            client = models.client("solver") if config.policy == "solver" else None
            policy = policy_from_name(config.policy, client=client, fraction=config.partial_fraction)
        except (ModelNotConfigured, ValueError) as exc:
            raise dg.Failure(description=str(exc)) from exc
        runner = RolloutRunner(
            policy,
            backend=config.backend,
            run_id=context.run.run_id,
            home=home,
            attempts=AttemptLog(store),
            concurrency=config.concurrency or None,
            max_turns=config.max_turns,
            max_tokens=config.max_tokens or None,
            progress=progress_logger(context, "rollout attempts finished"),
        )
        for domain in context.partition_keys:
            outcome = roll_out_domain(
                store, home, domain, runner, attempts=config.attempts, run_id=context.run.run_id,
                code_version=CODE_VERSION,
            )  # fmt: skip
            outcomes.append(outcome)
            closed = f", {len(outcome.recovered)} interrupted attempts closed as infra_error"
            context.log.info(
                f"{domain}: {outcome.tasks} tasks, {len(outcome.trajectories)} attempts"
                + (closed if outcome.recovered else "")
            )
    frame = rollouts_frame([t for o in outcomes for t in (*o.recovered, *o.trajectories)])
    by_status = frame.group_by("status").agg(pl.len().alias("attempts")).sort("status")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": frame.height,
            "tasks": sum(o.tasks for o in outcomes),
            "recovered": sum(len(o.recovered) for o in outcomes),
            "policy": policy.name,
            "model": policy.model or "",
            "backend": config.backend,
            "status": dg.MetadataValue.md(markdown_table(by_status)),
            "mean_turns": round(sum(frame.get_column("turns").to_list()) / max(1, frame.height), 2),
        }
    )
