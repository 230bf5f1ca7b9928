"""The pattern tables: `pattern_library`, `pattern_selections`, `pattern_additions` as polars frames."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import polars as pl

from skill2env.hardening.growth import Growth
from skill2env.patterns.models import PATTERN_SCHEMA_VERSION, Pattern
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.selection import Selection

_STR_LIST = pl.List(pl.String())

PATTERN_LIBRARY_SCHEMA = pl.Schema(
    {
        "id": pl.String(),
        "name": pl.String(),
        "capability": pl.String(),
        "description": pl.String(),
        "origin": pl.String(),
        "parent": pl.String(),
        "diagnosis": pl.String(),
        "version": pl.Int64(),
        "traits": _STR_LIST,
        "affinity": _STR_LIST,
        "conflicts": _STR_LIST,
        "source": pl.String(),
        "built_by": _STR_LIST,
        "pattern": pl.String(),
        "pool_digest": pl.String(),
        "schema_version": pl.Int64(),
    }
)

PATTERN_SELECTIONS_SCHEMA = pl.Schema(
    {
        "skill_id": pl.String(),
        "path": pl.String(),
        "domain": pl.String(),
        "status": pl.String(),
        "rank": pl.Int64(),
        "pattern_id": pl.String(),
        "capability": pl.String(),
        "score": pl.Float64(),
        "rationale": pl.String(),
        "reason": pl.String(),
        "focus": _STR_LIST,
        "skill_traits": _STR_LIST,
        "candidates": pl.Int64(),
        "chooser": pl.String(),
        "notes": _STR_LIST,
        "pool_digest": pl.String(),
    }
)

PATTERN_ADDITIONS_SCHEMA = pl.Schema(
    {
        "added_at": pl.Datetime("us", "UTC"),
        "candidate_id": pl.String(),
        "action": pl.String(),
        "pattern_id": pl.String(),
        "version": pl.Int64(),
        "nearest": pl.String(),
        "similarity": pl.Float64(),
        "reason": pl.String(),
        "parent": pl.String(),
        "diagnosis": pl.String(),
        "pattern": pl.String(),
    }
)


def library_frame(pool: PatternPool, builders: Mapping[str, Sequence[str]] | None = None) -> pl.DataFrame:
    """`pattern_library` rows of `pool`; `builders`: pattern id → the world kits that build it offline."""
    digest, builders = pool.digest, builders or {}
    rows = [_library_row(p, pool.sources.get(p.id, ""), digest) | {"built_by": sorted(builders.get(p.id, []))}
            for p in pool]  # fmt: skip
    return pl.DataFrame(rows, schema=PATTERN_LIBRARY_SCHEMA)


def _library_row(pattern: Pattern, source: str, digest: str) -> dict[str, object]:
    return {
        "id": pattern.id,
        "name": pattern.name,
        "capability": pattern.capability.value,
        "description": pattern.description,
        "origin": pattern.origin.kind,
        "parent": pattern.origin.parent,
        "diagnosis": pattern.origin.diagnosis,
        "version": pattern.version,
        "traits": [t.value for t in pattern.traits],
        "affinity": [t.value for t in pattern.affinity],
        "conflicts": list(pattern.conflicts),
        "source": source,
        "pattern": pattern.model_dump_json(),
        "pool_digest": digest,
        "schema_version": PATTERN_SCHEMA_VERSION,
    }


def selections_frame(selections: Sequence[Selection], pool_digest: str) -> pl.DataFrame:
    """One row per chosen pattern; a skill with none gets one row with its status and reason."""
    rows = []
    for selection in selections:
        base: dict[str, object] = {
            "skill_id": selection.skill_id,
            "path": selection.path,
            "domain": selection.domain,
            "status": selection.status.value,
            "reason": selection.reason,
            "focus": [t.value for t in selection.focus],
            "skill_traits": [t.value for t in selection.traits],
            "candidates": selection.candidates,
            "chooser": selection.chooser,
            "notes": list(selection.notes),
            "pool_digest": pool_digest,
        }
        if not selection.choices:
            rows.append(base | {"rank": None, "pattern_id": None, "capability": None, "score": None, "rationale": None})
        for rank, choice in enumerate(selection.choices, start=1):
            rows.append(base | {"rank": rank, "pattern_id": choice.pattern_id, "capability": choice.capability,
                                "score": choice.score, "rationale": choice.rationale})  # fmt: skip
    return pl.DataFrame(rows, schema=PATTERN_SELECTIONS_SCHEMA)


def addition_frame(growth: Growth) -> pl.DataFrame:
    """The `pattern_additions` row recording what became of one candidate."""
    pattern = growth.pattern
    row = {
        "added_at": datetime.now(UTC),
        "candidate_id": growth.candidate.id,
        "action": growth.action.value,
        "pattern_id": pattern.id if pattern else None,
        "version": pattern.version if pattern else None,
        "nearest": growth.nearest,
        "similarity": growth.similarity,
        "reason": growth.reason,
        "parent": growth.candidate.origin.parent,
        "diagnosis": growth.candidate.origin.diagnosis,
        "pattern": pattern.model_dump_json() if pattern else growth.candidate.model_dump_json(),
    }
    return pl.DataFrame([row], schema=PATTERN_ADDITIONS_SCHEMA)


def patterns_from_additions(frame: pl.DataFrame) -> list[Pattern]:
    """The pooled form of every accepted addition, oldest first (a later version of an id wins)."""
    accepted = frame.filter(pl.col("action") != "rejected").sort("added_at")
    return [Pattern.model_validate(json.loads(text)) for text in accepted.get_column("pattern").to_list()]
