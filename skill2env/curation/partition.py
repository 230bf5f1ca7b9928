"""Curate one domain partition: skills rows in, `curated_skills` rows out."""

from __future__ import annotations

import polars as pl

from skill2env.catalog.models import SkillRecord, SkillStatus
from skill2env.catalog.tables import skill_record_from_row
from skill2env.curation.curate import curate_skill
from skill2env.curation.curator import Curator
from skill2env.curation.models import CurationRecord, Outcome
from skill2env.curation.tables import curation_frame, curation_row


def parse_failure(record: SkillRecord) -> str | None:
    """Why a skill fails the funnel's second stage (frontmatter parsed, with a name and a description)."""
    if record.status != SkillStatus.ok:
        return f"unparsed:{record.status.value}"
    if not record.name or not record.description:
        return "unparsed:missing-name-or-description"
    return None


def mark_content_duplicates(curations: list[CurationRecord]) -> None:
    """Reject every copy of a skill's content but the first path (same `skill_id` = same bytes)."""
    first_path: dict[str, str] = {}
    for record in sorted(curations, key=lambda r: r.path):
        original = first_path.setdefault(record.skill_id, record.path)
        if original == record.path:
            continue
        reason = f"duplicate:content-of:{original}"
        record.practical.outcome = Outcome.fail
        record.practical.reasons.append(reason)
        record.curated = False
        record.reasons.insert(0, reason)


def curate_partition(skills: pl.DataFrame, domain: str, curator: Curator | None = None) -> pl.DataFrame:
    """`curated_skills` rows for the skills of one domain (rows of the `skills` view)."""
    records = [skill_record_from_row(row) for row in skills.iter_rows(named=True)]
    curations = [curate_skill(record, curator, domain=domain) for record in records]
    mark_content_duplicates(curations)
    failures = {record.path: parse_failure(record) for record in records}
    return curation_frame([curation_row(c, parse_failure=failures[c.path]) for c in curations])
