"""CompoWorld: the service catalog and its tool graph, and cross-service tasks per CompoWorld domain."""

import warnings
from typing import Literal

import dagster as dg
import polars as pl

from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.compoworld.graph import build_graph
from skill2env.compoworld.service import DOMAINS
from skill2env.compoworld.services import SERVICES
from skill2env.compoworld.tables import (
    compo_tasks_frame,
    edges_frame,
    graph_from_tables,
    service_tools_frame,
    services_frame,
    simulated_calls_frame,
)
from skill2env.compoworld.tasks import generate_tasks
from skill2env.compoworld.verify import verify_services
from skill2env.compoworld.world_model import SimulationRecord, WorldModel
from skill2env.compoworld.world_model_llm import LlmWorldModel
from skill2env.formatting import markdown_table
from skill2env.lake.lake import TableWrite

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")

GRAPH_CODE_VERSION = "compoworld-graph-1"
TASKS_CODE_VERSION = "compoworld-tasks-1"
VERIFY_BACKENDS: dict[str, Literal["auto", "bwrap", "subprocess"]] = {
    "auto": "auto",
    "bwrap": "bwrap",
    "subprocess": "subprocess",
}
compoworld_domains = dg.StaticPartitionsDefinition(list(DOMAINS))
"""CompoWorld's own domains (commerce, office, communication, operations), not the skill taxonomy."""


class ServiceGraphConfig(dg.Config):
    verify_backend: str = "auto"
    """Where each service's tests run: auto (bwrap when installed, else a subprocess) | bwrap | subprocess."""
    verify_timeout_seconds: float = 120.0


@dg.asset(group_name="compoworld", kinds={"duckdb"}, pool="sandbox")
def service_graph(
    context: dg.AssetExecutionContext, config: ServiceGraphConfig, lake: LakeResource
) -> dg.MaterializeResult:
    """One row per service (its tests run in the sandbox), per tool and per edge of the tool dependency graph."""
    classes = list(SERVICES.values())
    backend = VERIFY_BACKENDS.get(config.verify_backend)
    if backend is None:
        raise dg.Failure(f"verify_backend must be one of {', '.join(VERIFY_BACKENDS)}, not {config.verify_backend!r}")
    checks = verify_services(backend=backend, timeout=config.verify_timeout_seconds)
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
    world_model_role: str = ""
    """A model role (e.g. author) whose endpoint answers simulated tools; '' = none: walks through
    simulated tools are skipped with that reason."""
    include_unverified: bool = False
    """Also walk through services whose tests did not pass."""


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
                graph, domain, config.tasks_per_domain, seed=config.seed, world_model=world_model, log=log
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
