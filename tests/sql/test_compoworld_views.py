"""`compoworld_stats` and `compo_task_tags` from hand-written rows; newest write per partition only."""

from __future__ import annotations

from typing import Any

import polars as pl

from skill2env.compoworld.tables import COMPO_TASKS_SCHEMA, EDGES_SCHEMA, SERVICE_TOOLS_SCHEMA, SERVICES_SCHEMA
from skill2env.lake.lake import Lake, TableWrite


def frame(schema: pl.Schema, *rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame([{column: row.get(column) for column in schema} for row in rows], schema=schema)


def service(name: str, domain: str, verified: bool) -> dict[str, Any]:
    return {
        "service": name,
        "domain": domain,
        "description": name,
        "module": f"m.{name}",
        "tools": 2,
        "simulated_tools": 0,
        "state_schema": "{}",
        "status": "verified" if verified else "failed",
        "verified": verified,
    }


def tool(key: str, component: int, simulated: bool = False) -> dict[str, Any]:
    service_name, name = key.split(".")
    return {
        "tool_key": key,
        "service": service_name,
        "tool": name,
        "domain": "commerce",
        "description": name,
        "simulated": simulated,
        "read_only": True,
        "intent": name,
        "component": component,
        "out_degree": 0,
        "in_degree": 0,
        "spec": "{}",
    }


def edge(source: str, target: str, kind: str) -> dict[str, Any]:
    return {
        "source": source,
        "target": target,
        "source_service": source.split(".")[0],
        "target_service": target.split(".")[0],
        "kind": kind,
        "via": "OrderId",
        "cross_service": source.split(".")[0] != target.split(".")[0],
    }


def task(task_id: str, domain: str, status: str = "ok", tags: list[str] | None = None) -> dict[str, Any]:
    return {"task_id": task_id, "domain": domain, "status": status, "length": 2, "capability_tags": tags or []}


def test_stats_count_the_current_catalog_graph_and_tasks(lake: Lake) -> None:
    lake.write(
        [
            TableWrite(
                "services",
                frame(SERVICES_SCHEMA, service("crm", "commerce", True), service("chat", "communication", False)),
            ),
            TableWrite(
                "service_tools",
                frame(SERVICE_TOOLS_SCHEMA, tool("crm.a", 0), tool("crm.b", 0), tool("chat.c", 1, True)),
            ),
            TableWrite(
                "service_graph_edges",
                frame(EDGES_SCHEMA, edge("crm.a", "crm.b", "data"), edge("crm.b", "crm.a", "state")),
            ),
            TableWrite(
                "compo_tasks",
                frame(COMPO_TASKS_SCHEMA, task("t1", "commerce", tags=["cross_service"])),
                partition_key="commerce",
            ),
            TableWrite(
                "compo_tasks", frame(COMPO_TASKS_SCHEMA, task("t2", "office", "skipped")), partition_key="office"
            ),
        ],
        run_id="r1",
        code_version="v1",
    )
    lake.write(
        [
            TableWrite(
                "compo_tasks",
                frame(
                    COMPO_TASKS_SCHEMA,
                    task("t3", "commerce", tags=["cross_service", "reporting"]),
                    task("t4", "commerce", tags=["reporting"]),
                ),
                partition_key="commerce",
            )
        ],
        run_id="r2",
        code_version="v1",
    )
    stats = lake.query("SELECT * FROM compoworld_stats").row(0, named=True)
    assert stats == {
        "services": 2,
        "verified_services": 1,
        "domains": 2,
        "tools": 3,
        "simulated_tools": 1,
        "edges": 2,
        "data_edges": 1,
        "state_edges": 1,
        "cross_service_edges": 0,
        "components": 2,
        "tasks": 2,
        "skipped_tasks": 1,
    }
    tags = lake.query("SELECT domain, tag, tasks FROM compo_task_tags").rows()
    assert tags == [("commerce", "cross_service", 1), ("commerce", "reporting", 2)]
