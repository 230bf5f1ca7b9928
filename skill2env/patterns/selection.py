"""Per-skill pattern selection: the compatible subset P_κ of the pool that fits one goal."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from skill2env.patterns.models import Pattern, Trait
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.traits import SkillProfile, TraitEvidence, skill_traits

RULES_CHOOSER = "rules"
_GENERIC = frozenset({Trait.MULTI_FILE_WORKSPACE})
_NOT_FOCUS = frozenset({Trait.MULTI_FILE_WORKSPACE, Trait.CLI_TOOLS, Trait.SKILL_SCRIPTS})
"""Traits nearly every skill offers: they cannot say what the task's goal is about."""


class SelectionStatus(StrEnum):
    selected = "selected"
    too_few = "too_few"
    """Fewer compatible patterns than the policy's minimum; the ones found are kept."""
    no_compatible_pattern = "no_compatible_pattern"


@dataclass(frozen=True)
class SelectionPolicy:
    min_patterns: int = 3
    max_patterns: int = 5
    focus_size: int = 3
    """How many of the skill's strongest traits make the goal's focus."""
    new_capability_bonus: float = 1.0
    """Added to a pattern whose capability the selection does not cover yet."""
    focus_weight: float = 1.5
    tie_break: float = 0.6
    """Largest per-(skill, pattern) hash-derived nudge, so equally good patterns spread over skills."""

    def __post_init__(self) -> None:
        if not 1 <= self.min_patterns <= self.max_patterns:
            raise ValueError(f"need 1 <= min_patterns <= max_patterns, got {self.min_patterns}, {self.max_patterns}")


@dataclass(frozen=True)
class ScoredPattern:
    pattern: Pattern
    score: float
    required: tuple[Trait, ...]
    affinity: tuple[Trait, ...]
    """The pattern's affinity traits the skill offers."""


@dataclass(frozen=True)
class Choice:
    pattern_id: str
    capability: str
    score: float
    rationale: str


@dataclass(frozen=True)
class Selection:
    """The patterns chosen for one skill, or why there are none."""

    skill_id: str
    path: str
    domain: str
    status: SelectionStatus
    focus: tuple[Trait, ...]
    traits: tuple[Trait, ...]
    choices: tuple[Choice, ...] = ()
    reason: str | None = None
    chooser: str = RULES_CHOOSER
    candidates: int = 0
    notes: tuple[str, ...] = field(default=())
    """What happened on the way (e.g. a model chooser's failure and the fallback)."""


def goal_focus(traits: dict[Trait, TraitEvidence], size: int) -> tuple[Trait, ...]:
    """The skill's strongest distinctive traits: what the one goal of its task is about."""
    ranked = sorted((e for t, e in traits.items() if t not in _NOT_FOCUS), key=lambda e: (-e.strength, e.trait.value))
    return tuple(e.trait for e in ranked[:size])


def score_patterns(
    profile: SkillProfile, traits: dict[Trait, TraitEvidence], focus: Sequence[Trait], pool: PatternPool,
    policy: SelectionPolicy,
) -> list[ScoredPattern]:  # fmt: skip
    """Every pattern whose required traits the skill offers and that fits the goal's focus, best first."""
    scored = []
    for pattern in pool:
        required = tuple(pattern.traits)
        if any(t not in traits for t in required):
            continue
        related = (set(required) | set(pattern.affinity)) - _GENERIC
        if related and focus and not related & (set(focus) | _NOT_FOCUS):
            continue  # about something else than this skill's goal
        offered = tuple(t for t in pattern.affinity if t in traits)
        score = 1.0 + sum(traits[t].strength for t in required if t not in _GENERIC)
        # The share of the pattern's affinity the skill offers, so a long affinity list is no advantage.
        wanted = [t for t in pattern.affinity if t not in _GENERIC]
        if wanted:
            matched = sum(traits[t].strength * (policy.focus_weight if t in focus else 1.0) for t in offered)
            score += 2.0 * matched / len(wanted)
        score += policy.tie_break * _nudge(profile.skill_id, pattern.id)
        scored.append(ScoredPattern(pattern, round(score, 4), required, offered))
    return sorted(scored, key=lambda s: (-s.score, s.pattern.id))


def select_patterns(profile: SkillProfile, pool: PatternPool, policy: SelectionPolicy | None = None) -> Selection:
    """Choose `min..max` compatible, mutually non-conflicting patterns, covering several capabilities."""
    policy = policy or SelectionPolicy()
    traits = skill_traits(profile)
    focus = goal_focus(traits, policy.focus_size)
    candidates = score_patterns(profile, traits, focus, pool, policy)
    chosen = greedy_choice(candidates, pool, policy)
    base = Selection(
        skill_id=profile.skill_id,
        path=profile.path,
        domain=profile.domain,
        status=SelectionStatus.no_compatible_pattern,
        focus=focus,
        traits=tuple(sorted(traits, key=lambda t: t.value)),
        candidates=len(candidates),
    )
    if not chosen:
        missing = sorted({t.value for p in pool for t in p.traits if t not in traits})
        reason = f"no pattern's required traits are all offered; the skill lacks {', '.join(missing[:8])}"
        return replace(base, reason=reason)
    choices = tuple(Choice(s.pattern.id, s.pattern.capability.value, s.score, rationale(s, traits, focus))
                    for s in chosen)  # fmt: skip
    if len(chosen) < policy.min_patterns:
        reason = f"only {len(chosen)} compatible non-conflicting patterns (policy minimum {policy.min_patterns})"
        return replace(base, status=SelectionStatus.too_few, choices=choices, reason=reason)
    return replace(base, status=SelectionStatus.selected, choices=choices)


def greedy_choice(
    candidates: Sequence[ScoredPattern], pool: PatternPool, policy: SelectionPolicy
) -> list[ScoredPattern]:
    """Best first, a bonus for a capability not yet covered, never two conflicting patterns."""
    chosen: list[ScoredPattern] = []
    covered: set[str] = set()
    blocked: set[str] = set()
    remaining = sorted(candidates, key=lambda s: (-s.score, s.pattern.id))
    bonus = policy.new_capability_bonus
    while remaining and len(chosen) < policy.max_patterns:
        # `remaining` is sorted best first (ties by id), so among equal keys the earlier index wins.
        index = max(
            range(len(remaining)),
            key=lambda i: (remaining[i].score + (0.0 if remaining[i].pattern.capability in covered else bonus), -i),
        )
        best = remaining.pop(index)
        if best.pattern.id in blocked:
            continue
        chosen.append(best)
        covered.add(best.pattern.capability)
        blocked |= pool.conflicts(best.pattern.id)
    return chosen


def rationale(scored: ScoredPattern, traits: dict[Trait, TraitEvidence], focus: Sequence[Trait]) -> str:
    """Why this pattern fits this skill, in one line a person can check against the skill."""
    parts = [f"{scored.pattern.capability.value}: {scored.pattern.name.lower()}"]
    needs = [t for t in scored.required if t not in _GENERIC]
    if needs:
        parts.append("needs " + "; ".join(f"{t.value} ({', '.join(traits[t].cues[:2])})" for t in needs))
    fits = [t.value for t in scored.affinity if t in focus]
    if fits:
        parts.append("fits the goal's focus on " + ", ".join(fits))
    elif scored.affinity:
        parts.append("skill also offers " + ", ".join(t.value for t in scored.affinity))
    else:
        parts.append("fits any multi-file workspace")
    return "; ".join(parts)


def _nudge(skill_id: str, pattern_id: str) -> float:
    return int.from_bytes(hashlib.blake2b(f"{skill_id}\0{pattern_id}".encode(), digest_size=4).digest()) / 2**32
