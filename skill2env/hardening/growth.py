"""Grow the pool with patterns abstracted from hardening diagnoses, without near-duplicates."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from skill2env.patterns.models import Construction, Evidence, Origin, Pattern
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.similarity import pattern_text, pool_index

REJECT_AT = 0.50
"""At or above this similarity to a pooled pattern the candidate says nothing new: rejected."""
MERGE_AT = 0.35
"""From here up to REJECT_AT the candidate is a variant of the pooled pattern: merged into it."""


class GrowthAction(StrEnum):
    added = "added"
    merged = "merged"
    rejected = "rejected"


@dataclass(frozen=True)
class Growth:
    """What became of one candidate, and the pool afterwards."""

    action: GrowthAction
    candidate: Pattern
    pattern: Pattern | None
    """The pattern as pooled now: the candidate (added), the merged pattern, or None (rejected)."""
    nearest: str | None
    similarity: float
    reason: str
    pool: PatternPool


def grow_pool(pool: PatternPool, candidate: Pattern, *, diagnosis: str, parent: str | None = None) -> Growth:
    """Add `candidate` (abstracted from `diagnosis`, derived from pattern `parent`) to `pool`.

    A near-duplicate of a pooled pattern is rejected; a close variant is merged into it (its
    construction and evidence gain what is new, its version goes up); anything else is added
    with `origin: hardening`. Conflicts must name pooled patterns.
    """
    if parent is not None and parent not in pool:
        raise ValueError(f"parent pattern {parent!r} is not in the pool")
    candidate = candidate.model_copy(update={"origin": Origin(kind="hardening", parent=parent, diagnosis=diagnosis)})
    nearest, similarity = pool_index(list(pool)).most_similar(pattern_text(candidate))
    similarity = round(similarity, 4)
    if candidate.id in pool:
        nearest, similarity = candidate.id, max(similarity, REJECT_AT)
    if similarity >= REJECT_AT and nearest is not None:
        reason = f"near-duplicate of {nearest} (similarity {similarity:.2f} >= {REJECT_AT})"
        return Growth(GrowthAction.rejected, candidate, None, nearest, similarity, reason, pool)
    if similarity >= MERGE_AT and nearest is not None:
        merged = _merge(pool[nearest], candidate)
        reason = f"variant of {nearest} (similarity {similarity:.2f}); merged as version {merged.version}"
        return Growth(GrowthAction.merged, candidate, merged, nearest, similarity, reason, pool.with_pattern(
            merged, pool.sources.get(nearest, "")))  # fmt: skip
    grown = pool.with_pattern(candidate, f"diagnosis:{diagnosis}")
    reason = f"new challenge (nearest {nearest}, similarity {similarity:.2f} < {MERGE_AT})"
    return Growth(GrowthAction.added, candidate, candidate, nearest, similarity, reason, grown)


def _merge(pooled: Pattern, variant: Pattern) -> Pattern:
    workspace = pooled.construction.workspace + [w for w in variant.construction.workspace
                                                  if w not in pooled.construction.workspace]  # fmt: skip
    must_not_say = pooled.construction.must_not_say + [m for m in variant.construction.must_not_say
                                                        if m not in pooled.construction.must_not_say]  # fmt: skip
    construction = Construction(
        workspace=workspace,
        instruction=pooled.construction.instruction,
        must_not_say=must_not_say,
        evaluator=pooled.construction.evaluator,
    )
    shortcut = pooled.evidence.shortcut
    if variant.evidence.shortcut not in shortcut:
        shortcut = f"{shortcut} Variant: {variant.evidence.shortcut}"
    evidence = Evidence(
        rubric_check=pooled.evidence.rubric_check, shortcut=shortcut, shortcut_signal=pooled.evidence.shortcut_signal
    )
    affinity = pooled.affinity + [t for t in variant.affinity if t not in pooled.affinity]
    return pooled.model_copy(
        update={
            "construction": construction,
            "evidence": evidence,
            "affinity": affinity,
            "version": pooled.version + 1,
        }
    )
