"""Polars schemas of the catalog tables, declared once, and record → frame conversion."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import polars as pl

from skill2env.catalog.models import ClawHubMeta, SkillRecord

_STR_LIST = pl.List(pl.String())

SKILLS_SCHEMA = pl.Schema(
    {
        "skill_id": pl.String(),
        "source": pl.String(),
        "path": pl.String(),
        "root": pl.String(),
        "skill_md_file": pl.String(),
        "status": pl.String(),
        "reason": pl.String(),
        "nested_in": pl.String(),
        "domain": pl.String(),
        "name": pl.String(),
        "description": pl.String(),
        "frontmatter_raw": pl.String(),
        "frontmatter": pl.String(),
        "skill_md_text": pl.String(),
        "skill_md_size": pl.Int64(),
        "body_chars": pl.Int64(),
        "text_encoding": pl.String(),
        "spec_findings": pl.List(pl.Struct({"code": pl.String(), "severity": pl.String(), "message": pl.String})),
        "clawhub_key": pl.String(),
        "requires_bins": _STR_LIST,
        "requires_any_bins": _STR_LIST,
        "requires_env": _STR_LIST,
        "requires_config": _STR_LIST,
        "supported_os": _STR_LIST,
        "install": pl.String(),
        "primary_env": pl.String(),
        "languages": _STR_LIST,
        "programs": _STR_LIST,
        "cli_tools": _STR_LIST,
        "dependencies": pl.List(pl.Struct({"ecosystem": pl.String(), "name": pl.String(), "source": pl.String})),
        "env_vars": _STR_LIST,
        "signals": pl.List(
            pl.Struct({"code": pl.String(), "file": pl.String(), "line": pl.Int64(), "excerpt": pl.String})
        ),
        "n_files": pl.Int64(),
        "total_bytes": pl.Int64(),
        "inventory_truncated": pl.Boolean(),
        "schema_version": pl.Int64(),
    }
)

SKILL_FILES_SCHEMA = pl.Schema(
    {
        "skill_id": pl.String(),
        "skill_path": pl.String(),
        "path": pl.String(),
        "size": pl.Int64(),
        "sha256": pl.String(),
        "kind": pl.String(),
        "language": pl.String(),
        "is_text": pl.Boolean(),
        "is_symlink": pl.Boolean(),
        "symlink_target": pl.String(),
        "truncated": pl.Boolean(),
        "status": pl.String(),
        "reason": pl.String(),
    }
)


def _json(value: object) -> str | None:
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)


def skill_row(record: SkillRecord) -> dict[str, object]:
    """One `skills` row; the file inventory goes to `skill_files_rows`."""
    row = record.model_dump(mode="json", exclude={"files", "clawhub", "frontmatter"})
    claw = record.clawhub
    row.update(
        frontmatter=_json(record.frontmatter),
        clawhub_key=claw.key if claw else None,
        requires_bins=claw.bins if claw else [],
        requires_any_bins=claw.any_bins if claw else [],
        requires_env=claw.env if claw else [],
        requires_config=claw.config if claw else [],
        supported_os=claw.os if claw else [],
        install=_json(claw.install) if claw and claw.install else None,
        primary_env=claw.primary_env if claw else None,
    )
    return row


def skill_files_rows(record: SkillRecord) -> list[dict[str, object]]:
    rows = []
    for item in record.files:
        row = item.model_dump(mode="json")
        row["skill_id"] = record.skill_id
        row["skill_path"] = record.path
        rows.append(row)
    return rows


def catalog_frames(records: Sequence[SkillRecord]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(`skills`, `skill_files`) frames for a batch of records, in the declared schemas."""
    skills = pl.DataFrame([skill_row(r) for r in records], schema=SKILLS_SCHEMA)
    file_rows = [row for r in records for row in skill_files_rows(r)]
    files = pl.DataFrame(file_rows, schema=SKILL_FILES_SCHEMA)
    return skills, files


def skill_record_from_row(row: dict[str, Any]) -> SkillRecord:
    """Rebuild a `SkillRecord` (without its file inventory) from a `skills` row read back from the lake."""
    data = {key: row[key] for key in SkillRecord.model_fields if key in row and row[key] is not None}
    data["frontmatter"] = json.loads(row["frontmatter"]) if row.get("frontmatter") else {}
    if row.get("clawhub_key"):
        data["clawhub"] = ClawHubMeta(
            key=row["clawhub_key"],
            bins=row.get("requires_bins") or [],
            any_bins=row.get("requires_any_bins") or [],
            env=row.get("requires_env") or [],
            config=row.get("requires_config") or [],
            os=row.get("supported_os") or [],
            install=json.loads(row["install"]) if row.get("install") else [],
            primary_env=row.get("primary_env"),
        )
    return SkillRecord.model_validate(data)
