"""The lake's CompoWorld tables as polars frames (schemas declared once), and the graph read back."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC
from typing import Any

import polars as pl

from skill2env.compoworld.graph import Edge, ToolGraph
from skill2env.compoworld.selftest import Verification
from skill2env.compoworld.service import Service, ToolSpec
from skill2env.compoworld.tasks import CompoTask, Generated, SkippedWalk
from skill2env.compoworld.world_model import SimulationRecord

SCHEMA_VERSION = 1
LIST = pl.List(pl.String())
SERVICES_SCHEMA = pl.Schema(
    {
        "service": pl.String(),
        "domain": pl.String(),
        "description": pl.String(),
        "module": pl.String(),
        "tools": pl.Int64(),
        "simulated_tools": pl.Int64(),
        "state_fields": LIST,
        "state_schema": pl.String(),
        "status": pl.String(),
        "verified": pl.Boolean(),
        "backend": pl.String(),
        "runner": pl.String(),
        "tests_passed": pl.Int64(),
        "tests_failed": pl.Int64(),
        "verify_seconds": pl.Float64(),
        "verify_output": pl.String(),
        "verified_at": pl.Datetime("us", "UTC"),
        "schema_version": pl.Int64(),
    }
)
SERVICE_TOOLS_SCHEMA = pl.Schema(
    {
        "tool_key": pl.String(),
        "service": pl.String(),
        "tool": pl.String(),
        "domain": pl.String(),
        "description": pl.String(),
        "simulated": pl.Boolean(),
        "read_only": pl.Boolean(),
        "reads": LIST,
        "writes": LIST,
        "input_types": LIST,
        "output_types": LIST,
        "errors": LIST,
        "intent": pl.String(),
        "component": pl.Int64(),
        "out_degree": pl.Int64(),
        "in_degree": pl.Int64(),
        "spec": pl.String(),
        "schema_version": pl.Int64(),
    }
)
EDGES_SCHEMA = pl.Schema(
    {
        "source": pl.String(),
        "target": pl.String(),
        "source_service": pl.String(),
        "target_service": pl.String(),
        "kind": pl.String(),
        "via": pl.String(),
        "parameter": pl.String(),
        "cross_service": pl.Boolean(),
    }
)
COMPO_TASKS_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "domain": pl.String(),
        "status": pl.String(),
        "skip_reason": pl.String(),
        "chain": LIST,
        "services": LIST,
        "length": pl.Int64(),
        "goal": pl.String(),
        "capability_tags": LIST,
        "rubric_items": pl.Int64(),
        "simulated_steps": pl.Int64(),
        "oracle_score": pl.Float64(),
        "nop_score": pl.Float64(),
        "partial_score": pl.Float64(),
        "seed": pl.Int64(),
        "task": pl.String(),
        "schema_version": pl.Int64(),
    }
)
SIMULATED_CALLS_SCHEMA = pl.Schema(
    {
        "call_id": pl.String(),
        "called_at": pl.Datetime("us", "UTC"),
        "service": pl.String(),
        "tool": pl.String(),
        "attempt": pl.Int64(),
        "accepted": pl.Boolean(),
        "arguments": pl.String(),
        "result": pl.String(),
        "state_delta": pl.String(),
        "error": pl.String(),
        "model": pl.String(),
        "run_id": pl.String(),
        "partition_key": pl.String(),
    }
)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def services_frame(classes: Sequence[type[Service]], verifications: Mapping[str, Verification]) -> pl.DataFrame:
    """One row per service: its definition and the outcome of running its tests."""
    rows = []
    for cls in classes:
        check = verifications.get(cls.name)
        rows.append(
            {
                "service": cls.name,
                "domain": cls.domain,
                "description": cls.description,
                "module": cls.__module__,
                "tools": len(cls.tools),
                "simulated_tools": sum(b.spec.simulated for b in cls.tools.values()),
                "state_fields": list(cls.State.model_fields),
                "state_schema": _json(cls.state_schema()),
                "status": check.status if check else "unverified",
                "verified": bool(check and check.verified),
                "backend": check.backend if check else None,
                "runner": check.runner if check else None,
                "tests_passed": check.tests_passed if check else 0,
                "tests_failed": check.tests_failed if check else 0,
                "verify_seconds": check.duration_s if check else None,
                "verify_output": check.output if check else None,
                "verified_at": check.verified_at if check else None,
                "schema_version": SCHEMA_VERSION,
            }
        )
    return pl.DataFrame(rows, schema=SERVICES_SCHEMA)


def service_tools_frame(graph: ToolGraph) -> pl.DataFrame:
    """One row per tool: its spec, its component of the graph and its degrees."""
    components = graph.components()
    rows = [
        {
            "tool_key": key,
            "service": spec.service,
            "tool": spec.name,
            "domain": spec.domain,
            "description": spec.description,
            "simulated": spec.simulated,
            "read_only": spec.read_only,
            "reads": spec.reads,
            "writes": spec.writes,
            "input_types": sorted(set(spec.inputs.values())),
            "output_types": spec.outputs,
            "errors": [e.type for e in spec.errors],
            "intent": spec.intent,
            "component": components[key],
            "out_degree": len(graph.out[key]),
            "in_degree": len(graph.into[key]),
            "spec": spec.model_dump_json(),
            "schema_version": SCHEMA_VERSION,
        }
        for key, spec in sorted(graph.specs.items())
    ]
    return pl.DataFrame(rows, schema=SERVICE_TOOLS_SCHEMA)


def edges_frame(graph: ToolGraph) -> pl.DataFrame:
    rows = [
        {
            "source": e.source,
            "target": e.target,
            "source_service": e.source.split(".", 1)[0],
            "target_service": e.target.split(".", 1)[0],
            "kind": e.kind,
            "via": e.via,
            "parameter": e.parameter,
            "cross_service": e.cross_service,
        }
        for e in graph.edges
    ]
    return pl.DataFrame(rows, schema=EDGES_SCHEMA)


def graph_from_tables(tools: pl.DataFrame, edges: pl.DataFrame) -> ToolGraph:
    """The graph as `service_tools` and `service_graph_edges` hold it."""
    specs = {row["tool_key"]: ToolSpec.model_validate_json(row["spec"]) for row in tools.iter_rows(named=True)}
    links = [
        Edge(row["source"], row["target"], row["kind"], row["via"], row["parameter"] or "")
        for row in edges.iter_rows(named=True)
        if row["source"] in specs and row["target"] in specs
    ]
    return ToolGraph(specs, sorted(links))


def _task_row(task: CompoTask) -> dict[str, Any]:
    scores = task.scores
    return {
        "task_id": task.task_id,
        "domain": task.domain,
        "status": "ok",
        "skip_reason": None,
        "chain": task.chain,
        "services": task.services,
        "length": len(task.chain),
        "goal": task.goal,
        "capability_tags": task.capability_tags,
        "rubric_items": len(task.rubric.items),
        "simulated_steps": len(task.simulations),
        "oracle_score": scores.oracle if scores else None,
        "nop_score": scores.nop if scores else None,
        "partial_score": scores.partial if scores else None,
        "seed": task.seed,
        "task": task.model_dump_json(),
        "schema_version": SCHEMA_VERSION,
    }


def _skip_row(domain: str, skipped: SkippedWalk) -> dict[str, Any]:
    digest = hashlib.sha256(f"skipped:{domain}:{'|'.join(skipped.chain)}".encode()).hexdigest()
    return {
        "task_id": digest,
        "domain": domain,
        "status": "skipped",
        "skip_reason": skipped.reason,
        "chain": list(skipped.chain),
        "services": list(dict.fromkeys(step.split(".", 1)[0] for step in skipped.chain)),
        "length": len(skipped.chain),
        "schema_version": SCHEMA_VERSION,
    }


def compo_tasks_frame(domain: str, generated: Generated) -> pl.DataFrame:
    """The domain's tasks, and a `skipped` row (with its reason) per walk that needs a world model."""
    rows = [_task_row(task) for task in generated.tasks]
    seen: set[tuple[str, ...]] = set()
    for skipped in generated.skipped:
        if skipped.kind == "needs_world_model" and skipped.chain not in seen:
            seen.add(skipped.chain)
            rows.append(_skip_row(domain, skipped))
    return pl.DataFrame(rows, schema=COMPO_TASKS_SCHEMA)


def simulated_calls_frame(records: Sequence[SimulationRecord], *, run_id: str, partition_key: str) -> pl.DataFrame:
    rows = [
        {
            "call_id": r.call_id,
            "called_at": r.called_at.astimezone(UTC) if r.called_at.tzinfo else r.called_at.replace(tzinfo=UTC),
            "service": r.service,
            "tool": r.tool,
            "attempt": r.attempt,
            "accepted": r.accepted,
            "arguments": _json(r.arguments),
            "result": None if r.result is None else _json(r.result),
            "state_delta": None if r.state_delta is None else _json(r.state_delta),
            "error": r.error,
            "model": r.model,
            "run_id": run_id,
            "partition_key": partition_key,
        }
        for r in records
    ]
    return pl.DataFrame(rows, schema=SIMULATED_CALLS_SCHEMA)
