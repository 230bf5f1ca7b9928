"""The task tables: `blueprints`, `tasks`, `task_files` as polars frames."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from skill2env.tasks.blueprint import BLUEPRINT_SCHEMA_VERSION, Blueprint
from skill2env.tasks.records import TaskRecord

TASKS_SCHEMA_VERSION = 1
_STR_LIST = pl.List(pl.String())

BLUEPRINTS_SCHEMA = pl.Schema(
    {
        "task_name": pl.String(),
        "iteration": pl.Int64(),
        "blueprint_digest": pl.String(),
        "parent_digest": pl.String(),
        "proposal_id": pl.String(),
        "skill_id": pl.String(),
        "skill_name": pl.String(),
        "skill_path": pl.String(),
        "domain": pl.String(),
        "patterns": _STR_LIST,
        "n_challenges": pl.Int64(),
        "n_facts": pl.Int64(),
        "n_rubric_items": pl.Int64(),
        "author": pl.String(),
        "blueprint": pl.String(),
        "schema_version": pl.Int64(),
    }
)

TASKS_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "task_name": pl.String(),
        "iteration": pl.Int64(),
        "status": pl.String(),
        "reasons": _STR_LIST,
        "skill_id": pl.String(),
        "skill_path": pl.String(),
        "domain": pl.String(),
        "patterns": _STR_LIST,
        "blueprint_digest": pl.String(),
        "task_digest": pl.String(),
        "store_path": pl.String(),
        "workspace_files": pl.Int64(),
        "formats": _STR_LIST,
        "author": pl.String(),
        "source": pl.String(),
        "environment": pl.String(),
        "rubric": pl.String(),
        "leak_checked": pl.Int64(),
        "leak_leaked": pl.Int64(),
        "findings": pl.String(),
        "schema_version": pl.Int64(),
    }
)

TASK_FILES_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "task_digest": pl.String(),
        "path": pl.String(),
        "area": pl.String(),
        "size": pl.Int64(),
        "sha256": pl.String(),
        "format": pl.String(),
    }
)


def blueprints_frame(blueprints: Sequence[tuple[Blueprint, str]]) -> pl.DataFrame:
    """One row per (blueprint, author)."""
    return pl.DataFrame([_blueprint_row(b, author) for b, author in blueprints], schema=BLUEPRINTS_SCHEMA)


def tasks_frame(records: Sequence[TaskRecord]) -> pl.DataFrame:
    return pl.DataFrame([_task_row(r) for r in records], schema=TASKS_SCHEMA)


def task_files_frame(records: Sequence[TaskRecord]) -> pl.DataFrame:
    """One row per file of every stored task directory among `records`."""
    rows = [
        {"task_id": r.task_id, "task_digest": r.task_digest, "path": f.path, "area": f.area, "size": f.size,
         "sha256": f.sha256, "format": f.format}
        for r in records
        if r.task_id and r.task_digest
        for f in r.files
    ]  # fmt: skip
    return pl.DataFrame(rows, schema=TASK_FILES_SCHEMA)


def _blueprint_row(blueprint: Blueprint, author: str) -> dict[str, object]:
    revision = blueprint.revision
    return {
        "task_name": blueprint.task_name,
        "iteration": blueprint.iteration,
        "blueprint_digest": blueprint.digest(),
        "parent_digest": revision.parent_digest if revision else None,
        "proposal_id": revision.proposal_id if revision else None,
        "skill_id": blueprint.skill.skill_id,
        "skill_name": blueprint.skill.name,
        "skill_path": blueprint.skill.path,
        "domain": blueprint.domain,
        "patterns": blueprint.pattern_ids,
        "n_challenges": len(blueprint.challenges),
        "n_facts": len(blueprint.facts),
        "n_rubric_items": len(blueprint.rubric.items),
        "author": author,
        "blueprint": blueprint.canonical_json(),
        "schema_version": BLUEPRINT_SCHEMA_VERSION,
    }


def _task_row(record: TaskRecord) -> dict[str, object]:
    return {
        "task_id": record.task_id,
        "task_name": record.task_name,
        "iteration": record.iteration,
        "status": record.status.value,
        "reasons": list(record.reasons),
        "skill_id": record.skill_id,
        "skill_path": record.skill_path,
        "domain": record.domain,
        "patterns": list(record.patterns),
        "blueprint_digest": record.blueprint_digest,
        "task_digest": record.task_digest,
        "store_path": record.store_path,
        "workspace_files": record.workspace_files,
        "formats": record.formats,
        "author": record.author,
        "source": record.source,
        "environment": record.environment,
        "rubric": record.rubric,
        "leak_checked": record.leak_checked,
        "leak_leaked": record.leak_leaked,
        "findings": record.findings,
        "schema_version": TASKS_SCHEMA_VERSION,
    }
