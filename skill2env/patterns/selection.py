"""Per-skill pattern selection: the compatible subset P_κ of the pool that fits one goal."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import NamedTuple

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


class ScoredPattern(NamedTuple):
    """A compatible pattern's score for one skill (a tuple: a selection makes dozens per skill)."""

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
    in_focus = frozenset(focus)
    about_the_goal = in_focus | _NOT_FOCUS
    nudge = _nudger(profile.skill_id)
    offered_traits = frozenset(traits)
    scored = []
    for entry in _scorable(pool):
        if not entry.required_set <= offered_traits:
            continue
        if entry.related and focus and not entry.related & about_the_goal:
            continue  # about something else than this skill's goal
        offered = tuple(t for t in entry.affinity if t in traits)
        score = 1.0 + sum(traits[t].strength for t in entry.weighed)
        # The share of the pattern's affinity the skill offers, so a long affinity list is no advantage.
        if entry.wanted:
            matched = sum(traits[t].strength * (policy.focus_weight if t in in_focus else 1.0) for t in offered)
            score += 2.0 * matched / entry.wanted
        score += policy.tie_break * nudge(entry.pattern.id)
        scored.append(ScoredPattern(entry.pattern, round(score, 4), entry.required, offered))
    return sorted(scored, key=lambda s: (-s.score, s.pattern.id))


@dataclass(frozen=True)
class _Scorable:
    """What scoring reads of one pattern, worked out once per pool rather than once per skill."""

    pattern: Pattern
    required: tuple[Trait, ...]
    required_set: frozenset[Trait]
    weighed: tuple[Trait, ...]
    """The required traits that add their strength to the score (every one but the generic)."""
    related: frozenset[Trait]
    affinity: tuple[Trait, ...]
    wanted: int
    """How many of its affinity traits are not generic."""


_SCORABLE: dict[int, tuple[PatternPool, tuple[_Scorable, ...]]] = {}
"""id(pool) → (the pool, kept so its id is not reused while cached; its patterns for scoring)."""


def _scorable(pool: PatternPool) -> tuple[_Scorable, ...]:
    cached = _SCORABLE.get(id(pool))
    if cached is None or cached[0] is not pool:
        if len(_SCORABLE) >= 8:
            _SCORABLE.clear()
        entries = tuple(
            _Scorable(
                pattern=p,
                required=tuple(p.traits),
                required_set=frozenset(p.traits),
                weighed=tuple(t for t in p.traits if t not in _GENERIC),
                related=frozenset((set(p.traits) | set(p.affinity)) - _GENERIC),
                affinity=tuple(p.affinity),
                wanted=sum(1 for t in p.affinity if t not in _GENERIC),
            )
            for p in pool
        )
        cached = _SCORABLE[id(pool)] = (pool, entries)
    return cached[1]


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
        best = remaining.pop(_best_index(remaining, covered, bonus))
        if best.pattern.id in blocked:
            continue
        chosen.append(best)
        covered.add(best.pattern.capability)
        blocked |= pool.conflicts(best.pattern.id)
    return chosen


def _best_index(remaining: Sequence[ScoredPattern], covered: set[str], bonus: float) -> int:
    """The candidate with the highest score plus the bonus where its capability is not covered yet,
    the earliest among equals. `remaining` is sorted best first (ties by id), so only the first
    candidate of a covered capability and the first of a new one can win."""
    first_covered = first_new = -1
    for index, candidate in enumerate(remaining):
        if candidate.pattern.capability in covered:
            first_covered = index if first_covered < 0 else first_covered
        elif first_new < 0:
            first_new = index
        if first_covered >= 0 and first_new >= 0:
            break
    if first_covered < 0 or first_new < 0:
        return max(first_covered, first_new)
    covered_value, new_value = remaining[first_covered].score, remaining[first_new].score + bonus
    if new_value > covered_value or (new_value == covered_value and first_new < first_covered):
        return first_new
    return first_covered


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


def _nudger(skill_id: str) -> Callable[[str], float]:
    """A skill's per-pattern nudge in [0, 1): the first 4 bytes of blake2b(skill id, NUL, pattern id)."""
    prefix = hashlib.blake2b(f"{skill_id}\0".encode(), digest_size=4)

    def nudge(pattern_id: str) -> float:
        hashed = prefix.copy()
        hashed.update(pattern_id.encode())
        return int.from_bytes(hashed.digest()) / 2**32

    return nudge
