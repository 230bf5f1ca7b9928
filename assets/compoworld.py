"""CompoWorld: the service catalog and its tool graph, cross-service tasks per CompoWorld domain, and
rollouts of those tasks through the agent loop (with their SFT examples)."""

import warnings
from typing import Literal

import dagster as dg
import polars as pl
from pydantic import Field

from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.agent import LoopLimits, sandbox_slots
from skill2env.compoworld.graph import build_graph
from skill2env.compoworld.rollout import COMPO_POLICIES, policy_label, roll_out_compo
from skill2env.compoworld.rollout_tables import compo_rollouts_frame
from skill2env.compoworld.selftest import self_test_services
from skill2env.compoworld.service import DOMAINS
from skill2env.compoworld.services import SERVICES
from skill2env.compoworld.sft import compo_sft_frame
from skill2env.compoworld.tables import (
    compo_tasks_frame,
    edges_frame,
    graph_from_tables,
    service_tools_frame,
    services_frame,
    simulated_calls_frame,
)
from skill2env.compoworld.tasks import CompoTask, generate_tasks
from skill2env.compoworld.world_model import SimulationRecord, WorldModel
from skill2env.compoworld.world_model_llm import LlmWorldModel
from skill2env.formatting import markdown_table
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.llm import ModelNotConfigured
from skill2env.thresholds import FULL_CREDIT_AT

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")

GRAPH_CODE_VERSION = "compoworld-graph-1"
TASKS_CODE_VERSION = "compoworld-tasks-1"
ROLLOUTS_CODE_VERSION = "compoworld-rollouts-1"
compoworld_domains = dg.StaticPartitionsDefinition(list(DOMAINS))
"""CompoWorld's own domains (commerce, office, communication, operations), not the skill taxonomy."""


ModelRole = Literal["", "curator", "author", "solver", "judge", "verifier", "diagnoser"]
"""A role of `skill2env.llm.config.ROLES`, or '' for none."""


class ServiceGraphConfig(dg.Config):
    verify_backend: Literal["auto", "bwrap", "subprocess"] = "auto"
    """Where each service's tests run: auto (bwrap when installed, else a subprocess) | bwrap | subprocess."""
    verify_timeout_seconds: float = 120.0


@dg.asset(group_name="compoworld", kinds={"duckdb"}, pool="sandbox")
def service_graph(
    context: dg.AssetExecutionContext, config: ServiceGraphConfig, lake: LakeResource
) -> dg.MaterializeResult:
    """One row per service (its tests run in the sandbox), per tool and per edge of the tool dependency graph."""
    classes = list(SERVICES.values())
    checks = self_test_services(backend=config.verify_backend, timeout=config.verify_timeout_seconds)
    for check in checks:
        context.log.info(f"{check.service}: {check.status} ({check.backend}, {check.tests_passed} passed)")
    graph = build_graph(spec for cls in classes for spec in cls.specs())
    store = lake.lake()
    services = services_frame(classes, {check.service: check for check in checks})
    writes = [
        TableWrite("services", services),
        TableWrite("service_tools", service_tools_frame(graph)),
        TableWrite("service_graph_edges", edges_frame(graph)),
    ]
    store.write(writes, run_id=context.run.run_id, code_version=GRAPH_CODE_VERSION)
    stats = graph.stats()
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": services.height,
            "services": stats.services,
            "verified_services": sum(check.verified for check in checks),
            "tools": stats.tools,
            "edges": stats.edges,
            "components": stats.components,
            "verification": dg.MetadataValue.md(
                markdown_table(services.select("service", "domain", "tools", "status", "backend", "tests_passed"))
            ),
        }
    )


class CompoTasksConfig(dg.Config):
    tasks_per_domain: int = 20
    seed: int = 0
    world_model_role: ModelRole = ""
    """A model role (e.g. author) whose endpoint answers simulated tools; '' = none: walks through
    simulated tools are skipped with that reason."""
    include_unverified: bool = False
    """Also walk through services whose tests did not pass."""
    min_length: int = 2
    """The fewest tools a task's chain takes (walks are 2–6 tools)."""


@dg.asset(
    partitions_def=compoworld_domains,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["service_graph"],
    group_name="compoworld",
    kinds={"duckdb"},
    pool="lake",
)
def compo_tasks(
    context: dg.AssetExecutionContext, config: CompoTasksConfig, lake: LakeResource, llm: LlmResource
) -> dg.MaterializeResult:
    """One row per cross-service task (initial states, goal, oracle, rubric) of a domain, or per walk skipped."""
    store = lake.lake()
    tools = store.query("SELECT * FROM service_tools")
    if tools.is_empty():
        raise dg.Failure("service_tools is empty: materialize service_graph first")
    verified = store.query("SELECT service FROM services WHERE verified OR $all", {"all": config.include_unverified})
    graph = graph_from_tables(tools, store.query("SELECT * FROM service_graph_edges"))
    graph = graph.subgraph(verified.get_column("service").to_list())
    writes, summary, calls = [], [], []
    with llm.session(context, store) as models:
        world_model: WorldModel | None = None
        role = config.world_model_role
        if role and models.configured(role):
            world_model = LlmWorldModel(models.client(role))
        context.log.info(f"world model: {role if world_model else 'none (walks through simulated tools are skipped)'}")
        for domain in context.partition_keys:
            log: list[SimulationRecord] = []
            generated = generate_tasks(
                graph,
                domain,
                config.tasks_per_domain,
                seed=config.seed,
                world_model=world_model,
                log=log,
                min_length=config.min_length,
            )
            frame = compo_tasks_frame(domain, generated)
            writes.append(TableWrite("compo_tasks", frame, partition_key=domain))
            calls.append(simulated_calls_frame(log, run_id=context.run.run_id, partition_key=domain))
            summary.append(
                {
                    "domain": domain,
                    "tasks": len(generated.tasks),
                    "skipped": frame.filter(pl.col("status") == "skipped").height,
                    "walks_tried": generated.walks_tried,
                    "simulated_calls": len(log),
                }
            )
            context.log.info(f"{domain}: {len(generated.tasks)} tasks from {generated.walks_tried} walks")
    store.write(writes, run_id=context.run.run_id, code_version=TASKS_CODE_VERSION)
    store.append("simulated_calls", pl.concat(calls))
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": sum(w.frame.height for w in writes),
            "tasks": sum(row["tasks"] for row in summary),
            "simulated_calls": sum(row["simulated_calls"] for row in summary),
            "domains": dg.MetadataValue.md(markdown_table(pl.DataFrame(summary))),
        }
    )


class CompoRolloutsConfig(dg.Config):
    policy: str = "auto"
    """solver (the solver role's model) | oracle | partial | nop | script:<path to a JSON file of turns>;
    auto: the solver when a solver endpoint is configured, else the oracle (scripted)."""
    attempts: int = Field(default=1, ge=1)
    """Attempts per task (one group per task)."""
    gateway: Literal["auto", "bwrap", "in_process"] = "auto"
    """Where the services run: bwrap (in a sandbox) | in_process | auto (bwrap where installed)."""
    min_length: int = 1
    """Only tasks whose chain takes at least this many tools."""
    max_tasks: int = 0
    """Tasks per domain; 0: all."""
    max_turns: int = 40
    max_tokens: int = 0
    """Input + output tokens per attempt; 0: no limit."""
    concurrency: int = 0
    """Attempts at once; 0: `$SKILL2ENV_SANDBOX_SLOTS` (default 2)."""
    world_model_role: ModelRole = ""
    """In process only: a model role that answers simulated calls the oracle run did not record."""


def _compo_tasks_of(store: Lake, domain: str, config: CompoRolloutsConfig) -> list[CompoTask]:
    rows = store.query(
        load_sql("queries/compo_rollout_tasks_of_domain"), {"domain": domain, "min_length": config.min_length}
    )
    tasks = [CompoTask.model_validate_json(text) for text in rows.get_column("task").to_list()]
    return tasks[: config.max_tasks] if config.max_tasks > 0 else tasks


@dg.asset(
    partitions_def=compoworld_domains,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["compo_tasks"],
    group_name="compoworld",
    kinds={"duckdb"},
    pool="sandbox",
)
def compo_rollouts(
    context: dg.AssetExecutionContext, config: CompoRolloutsConfig, lake: LakeResource, llm: LlmResource
) -> dg.MaterializeResult:
    """One row per rollout attempt of every current CompoTask of a domain; the completed, scored ones
    also as rows of `compo_sft_examples`."""
    known = (*COMPO_POLICIES, "auto", "script:")
    if not config.policy.startswith(known):
        raise dg.Failure(f"policy must be one of {', '.join(COMPO_POLICIES)} or script:<file>, not {config.policy!r}")
    store = lake.lake()
    limits = LoopLimits(max_turns=config.max_turns, max_tokens=config.max_tokens or None)
    writes, summary, frames = [], [], []
    with llm.session(context, store) as models:
        policy = config.policy
        if policy == "auto":
            policy = "solver" if models.configured("solver") else "oracle"
            context.log.info(f"policy: {policy}")
        try:
            client = models.client("solver") if policy == "solver" else None
        except ModelNotConfigured as exc:
            raise dg.Failure(description=str(exc)) from exc
        world_model: WorldModel | None = None
        if config.world_model_role and models.configured(config.world_model_role):
            world_model = LlmWorldModel(models.client(config.world_model_role))
        for domain in context.partition_keys:
            tasks = _compo_tasks_of(store, domain, config)
            try:
                attempts = roll_out_compo(
                    tasks, policy, attempts=config.attempts, client=client, host=config.gateway,
                    world_model=world_model, run_id=context.run.run_id, limits=limits,
                    concurrency=config.concurrency or sandbox_slots(),
                ) if tasks else []  # fmt: skip
            except ValueError as exc:
                raise dg.Failure(description=str(exc)) from exc
            rollouts = compo_rollouts_frame(attempts)
            examples, skipped = compo_sft_frame(attempts)
            writes += [
                TableWrite("compo_rollouts", rollouts, partition_key=domain),
                TableWrite("compo_sft_examples", examples, partition_key=domain),
            ]
            frames.append(rollouts)
            rewards = [a.reward for a in attempts if a.reward is not None]
            summary.append(
                {
                    "domain": domain,
                    "tasks": len(tasks),
                    "attempts": rollouts.height,
                    "infra_error": rollouts.filter(pl.col("status") == "infra_error").height,
                    "mean_reward": round(sum(rewards) / len(rewards), 4) if rewards else None,
                    "full_credit": sum(r >= FULL_CREDIT_AT for r in rewards),
                    "sft_examples": examples.height,
                }
            )
            context.log.info(f"{domain}: {len(tasks)} tasks, {rollouts.height} attempts, {examples.height} examples")
            for reason in skipped[:5]:
                context.log.debug(f"{domain}: not an SFT example: {reason}")
    store.write(writes, run_id=context.run.run_id, code_version=ROLLOUTS_CODE_VERSION)
    everything = pl.concat(frames) if frames else compo_rollouts_frame([])
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": everything.height,
            "tasks": sum(row["tasks"] for row in summary),
            "policy": policy_label(policy),
            "model": client.model if client is not None else "",
            "backend": ", ".join(sorted(set(everything.get_column("backend").to_list()))) or config.gateway,
            "sft_examples": sum(row["sft_examples"] for row in summary),
            "domains": dg.MetadataValue.md(markdown_table(pl.DataFrame(summary))),
        }
    )
