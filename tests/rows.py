"""Hand-written table rows for lake and SQL tests: every column present, overridable by keyword."""

from __future__ import annotations

from typing import Any

import polars as pl

from skill2env.catalog.tables import SKILL_FILES_SCHEMA, SKILLS_SCHEMA
from skill2env.curation.tables import CURATED_SKILLS_SCHEMA


def skill_row(path: str, **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {column: None for column in SKILLS_SCHEMA}
    row.update(
        skill_id=f"id-{path}",
        source=path.split("/")[0],
        path=path,
        skill_md_file="SKILL.md",
        status="ok",
        domain="data-analytics",
        name=path.split("/")[-1],
        description=f"{path} does things",
        spec_findings=[],
        signals=[],
        dependencies=[],
        languages=[],
        programs=[],
        cli_tools=[],
        env_vars=[],
        n_files=1,
        total_bytes=100,
        inventory_truncated=False,
        schema_version=1,
    )
    row.update(overrides)
    return row


def file_row(skill_path: str, path: str, **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {column: None for column in SKILL_FILES_SCHEMA}
    row.update(
        skill_id=f"id-{skill_path}", skill_path=skill_path, path=path, size=10, sha256="0" * 64,
        kind="script", language="python", is_text=True, is_symlink=False, truncated=False, status="ok",
    )  # fmt: skip
    row.update(overrides)
    return row


def curated_row(path: str, curated: bool = True, **overrides: Any) -> dict[str, Any]:
    outcome = "pass" if curated else "fail"
    row: dict[str, Any] = {
        "skill_id": f"id-{path}", "path": path, "domain": "data-analytics", "parsed": True,
        "practical": "pass", "practical_reasons": [], "compatible": "pass", "compatible_reasons": [],
        "feasible": "pass", "feasible_reasons": [], "safe": outcome,
        "safe_reasons": [] if curated else ["malicious:pipe-to-shell"], "curated": curated,
        "reasons": [] if curated else ["malicious:pipe-to-shell"], "verdicts": "{}", "schema_version": 1,
    }  # fmt: skip
    row.update(overrides)
    return row


def skills_frame(*rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=SKILLS_SCHEMA)


def files_frame(*rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=SKILL_FILES_SCHEMA)


def curated_frame(*rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=CURATED_SKILLS_SCHEMA)
