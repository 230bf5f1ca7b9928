"""The `curated_skills` table: its polars schema and record → frame conversion."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.curation.models import CurationRecord, SkillVerdict, Verdict

_STR_LIST = pl.List(pl.String())

CURATED_SKILLS_SCHEMA = pl.Schema(
    {
        "skill_id": pl.String(),
        "path": pl.String(),
        "domain": pl.String(),
        "parsed": pl.Boolean(),
        "practical": pl.String(),
        "practical_reasons": _STR_LIST,
        "compatible": pl.String(),
        "compatible_reasons": _STR_LIST,
        "feasible": pl.String(),
        "feasible_reasons": _STR_LIST,
        "safe": pl.String(),
        "safe_reasons": _STR_LIST,
        "curated": pl.Boolean(),
        "verdict": pl.String(),
        "reasons": _STR_LIST,
        "verdicts": pl.String(),
        "schema_version": pl.Int64(),
    }
)
CRITERIA = ("practical", "compatible", "feasible", "safe")


def curation_row(record: CurationRecord, *, parse_failure: str | None) -> dict[str, object]:
    """One `curated_skills` row; a skill that failed parsing is never curated (and is rejected), whatever its
    criteria's verdicts."""
    row: dict[str, object] = {
        "skill_id": record.skill_id,
        "path": record.path,
        "domain": record.domain,
        "parsed": parse_failure is None,
        "curated": record.curated and parse_failure is None,
        "verdict": (record.verdict if parse_failure is None else SkillVerdict.rejected).value,
        "reasons": record.reasons if parse_failure is None else [parse_failure, *record.reasons],
        "schema_version": record.schema_version,
    }
    verdicts = {}
    for criterion in CRITERIA:
        verdict = getattr(record, criterion)
        row[criterion] = verdict.outcome.value
        row[f"{criterion}_reasons"] = verdict.reasons
        verdicts[criterion] = _verdict_json(verdict)
    row["verdicts"] = json.dumps(verdicts, ensure_ascii=False, sort_keys=True)
    return row


def _verdict_json(verdict: Verdict) -> dict[str, object]:
    """`verdict.model_dump(mode="json")`, built directly: every curated skill writes four of them."""
    return {
        "criterion": str(verdict.criterion),
        "outcome": str(verdict.outcome),
        "reasons": list(verdict.reasons),
        "evidence": list(verdict.evidence),
        "decided_by": verdict.decided_by,
    }


def curation_frame(rows: Sequence[dict[str, object]]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=CURATED_SKILLS_SCHEMA)
