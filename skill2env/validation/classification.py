"""The verification stage after the rollouts of iteration k: why each failed rubric item failed.

Takes the iteration's failed items (`rubric_scores`, through `queries/failed_items_of_domain`) and,
per task (`queries/verification_inputs_of_domain`), its oracle gate per-item q (`validations`), its
rubric and directory (`tasks`) and its blueprint (`blueprints`, by digest); classifies every failure
with the rules and, when a verifier is given, its model; returns the `failure_classifications` write
for the partition `<domain>@i<k>` (always, so a re-run replaces what an earlier one wrote). The
`task_defects` view lists the tasks with construction defects.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.rubric import ItemResult, ItemStatus, Method, Rubric
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.store import TaskStore
from skill2env.validation.classifier import Classification, FailureClassifier, classify_failures
from skill2env.validation.tasks import task_rubric

TABLE = "failure_classifications"
FAILURE_CLASSIFICATIONS_SCHEMA = pl.Schema(
    {
        "rollout_id": pl.String(),
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "item_id": pl.String(),
        "classification": pl.String(),
        "decided_by": pl.String(),
        "evidence": pl.String(),
    }
)


@dataclass(frozen=True)
class ClassificationStage:
    domain: str
    iteration: int
    tasks: int
    classifications: list[Classification] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Task id → why its failures could not be classified (no rubric recorded)."""
    writes: list[TableWrite] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """Classification → failed items (rollout × item) classified so."""
        return dict(Counter(c.classification.value for c in self.classifications))

    @property
    def defective_tasks(self) -> list[str]:
        return sorted({c.task_id for c in self.classifications if c.classification.defect})


def classify_failures_stage(
    failed: Sequence[Mapping[str, Any]],
    tasks: Sequence[Mapping[str, Any]],
    home: Home,
    domain: str,
    iteration: int,
    *,
    verifier: FailureClassifier | None = None,
) -> ClassificationStage:
    """Classify every failed item (`failed`) of the domain's scored rollouts of `iteration` (`tasks`: the
    tasks rolled out); the `failure_classifications` write (partition `<domain>@i<iteration>`)."""
    failures: dict[str, dict[str, list[ItemResult]]] = {}
    for row in failed:
        failures.setdefault(row["task_id"], {}).setdefault(row["rollout_id"], []).append(item_result(row))
    store = TaskStore.of(home)
    classifications: list[Classification] = []
    skipped: dict[str, str] = {}
    for task in tasks:
        task_id = task["task_id"]
        task_dir = store.resolve(task["store_path"]) if task.get("store_path") else None
        rubric = _rubric(task, task_dir)
        if rubric is None:
            skipped[task_id] = "no rubric recorded for the task and none in its directory"
            continue
        blueprint = Blueprint.model_validate_json(task["blueprint"]) if task.get("blueprint") else None
        oracle = oracle_item_q(task.get("oracle_item_rewards"))
        found = classify_failures(task_id, blueprint, rubric, failures.get(task_id, {}), oracle, task_dir)
        if verifier is not None:
            found = verifier.review(blueprint, rubric, failures.get(task_id, {}), found, task_dir)
        classifications += found
    frame = failure_classifications_frame(classifications, domain, iteration)
    writes = [TableWrite(TABLE, frame, partition_key=stage_partition(domain, iteration))]
    return ClassificationStage(domain, iteration, len(tasks), classifications, skipped, writes)


def item_result(row: Mapping[str, Any]) -> ItemResult:
    """An item result from a `rubric_scores` row (its evidence JSON parsed back)."""
    evidence = json.loads(row["evidence"]) if row.get("evidence") else {}
    return ItemResult(item_id=row["item_id"], method=Method(row["method"]), weight=row["weight"],
                      status=ItemStatus(row["status"]), q=row["q"],
                      evidence=evidence if isinstance(evidence, dict) else {"evidence": evidence},
                      error=row.get("error"))  # fmt: skip


def oracle_item_q(item_rewards: str | None) -> dict[str, float | None] | None:
    """The oracle gate's per-item q from a `validations` row's `item_rewards` JSON (None: no oracle
    run recorded, or it hit an infrastructure error)."""
    if not item_rewards:
        return None
    parsed = json.loads(item_rewards)
    if not isinstance(parsed, dict):
        return None
    return {str(k): float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
            for k, v in parsed.items()}  # fmt: skip


def failure_classifications_frame(classifications: Sequence[Classification], domain: str,
                                  iteration: int) -> pl.DataFrame:  # fmt: skip
    rows = [
        {
            "rollout_id": c.rollout_id,
            "task_id": c.task_id,
            "iteration": iteration,
            "domain": domain,
            "item_id": c.item_id,
            "classification": c.classification.value,
            "decided_by": c.decided_by,
            "evidence": c.evidence,
        }
        for c in classifications
    ]
    return pl.DataFrame(rows, schema=FAILURE_CLASSIFICATIONS_SCHEMA)


def _rubric(task: Mapping[str, Any], task_dir: Path | None) -> Rubric | None:
    if task.get("rubric"):
        return Rubric.model_validate_json(task["rubric"])
    if task_dir is not None and task_dir.is_dir():
        try:
            return task_rubric(task_dir)
        except ValueError:
            return None
    return None
