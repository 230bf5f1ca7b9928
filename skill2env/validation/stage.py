"""The validation stage of one iteration for one domain: the rows its asset read in, the
`validations` and `hack_probes` writes out (plus a summary), under the partition
`<domain>@i<iteration>` (so iteration k+1 adds to what iteration k wrote; the views show the newest
write of each partition).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.rubric import Judge
from skill2env.sandbox import BackendName
from skill2env.validation.hack_probes.tables import HACK_PROBES_SCHEMA, hack_probes_frame
from skill2env.validation.red_team import RedTeam
from skill2env.validation.tables import VALIDATIONS_SCHEMA, validations_frame
from skill2env.validation.tasks import validate_rows


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
    validations = validate_rows([r for r in rows if r["task_id"] not in reused], home.data_root, backend=backend,
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
