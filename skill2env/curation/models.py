"""Records curation produces: one `CurationRecord` per skill, one verdict per criterion."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1


class Outcome(StrEnum):
    pass_ = "pass"  # noqa: S105 - an outcome, not a password
    fail = "fail"
    undecided = "undecided"
    """Static rules could not decide; a curator model may (see `skill2env.curation.curator`)."""


class SkillVerdict(StrEnum):
    """What curation decided about a skill as a whole."""

    kept = "kept"
    """Parsed, and every criterion passed: the only verdict later stages use."""
    rejected = "rejected"
    """Unparsed, a duplicate, or at least one criterion failed."""
    undecided = "undecided"
    """Nothing failed, but a criterion stayed undecided: counted on its own, never taken for a reject."""


def skill_verdict(outcomes: list[Outcome], *, parsed: bool = True) -> SkillVerdict:
    """The verdict of a skill from its criteria's outcomes (and whether its frontmatter parsed)."""
    if not parsed or Outcome.fail in outcomes:
        return SkillVerdict.rejected
    if Outcome.undecided in outcomes:
        return SkillVerdict.undecided
    return SkillVerdict.kept


class Criterion(StrEnum):
    practical = "practical"
    compatible = "compatible"
    feasible = "feasible"
    safe = "safe"


class Verdict(BaseModel):
    """The decision on one criterion, with machine-readable reasons."""

    criterion: Criterion
    outcome: Outcome
    reasons: list[str] = Field(default_factory=list)
    """Stable reason codes, `family:detail`, e.g. `needs:macos`, `stub:near-empty`, `malicious:pipe-to-shell`."""
    evidence: list[str] = Field(default_factory=list)
    """Short excerpts (`file:line: text`) that support the reasons."""
    decided_by: str = "rules"
    """`rules`, or `curator:<model>` when a model settled an undecided case."""


class CurationRecord(BaseModel):
    schema_version: int = SCHEMA_VERSION
    skill_id: str
    path: str
    domain: str
    practical: Verdict
    compatible: Verdict
    feasible: Verdict
    safe: Verdict
    curated: bool
    """True only when every criterion passed (undecided counts as not curated)."""
    verdict: SkillVerdict = SkillVerdict.rejected
    """kept (= curated) | rejected | undecided."""
    reasons: list[str] = Field(default_factory=list)
    """All failing and undecided reason codes, in criterion order."""
