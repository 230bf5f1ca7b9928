"""Offline authoring: match a curated skill to the kit that serves it best and build its task.

The skill's selected patterns (its `pattern_selections` rows) are mapped onto the ones the kit
implements; the pattern that makes the agent use the skill's kind of tool is added when missing, and
the kit's starters fill a selection that maps onto too few. Every decision is kept as a note.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill2env.kits.base import LEAD_AT_LEAST, MIN_MATCH, Kit, KitMatch
from skill2env.kits.spec import KitError
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.traits import SkillProfile, skill_traits
from skill2env.tasks.authoring import Rejection
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.draft import TaskDraft

AUTHOR = "offline-kits"
MIN_PATTERNS = 3
MAX_PATTERNS = 5


@dataclass(frozen=True)
class KitPlan:
    """Which kit builds a skill's task, with which patterns (all at intensity 1), and why."""

    kit: Kit
    match: KitMatch
    patterns: dict[str, int]
    notes: tuple[str, ...] = ()
    matches: tuple[KitMatch, ...] = field(default=())


def kit_matches(profile: SkillProfile, kits: Mapping[str, Kit]) -> list[KitMatch]:
    """Every kit's match for the skill, best first."""
    return sorted((kit.matches(profile) for kit in kits.values()), key=lambda m: (-m.score, m.kit))


def plan_offline(
    profile: SkillProfile, selection_rows: Sequence[Mapping[str, Any]], kits: Mapping[str, Kit] | None = None
) -> KitPlan | Rejection:
    """The kit and patterns for one skill, or a rejection saying why no kit serves it."""
    from skill2env.kits import KITS

    kits = kits or KITS
    matches = kit_matches(profile, kits)
    best = matches[0]
    if best.score < MIN_MATCH:
        shown = "; ".join(f"{m.kit} {m.score:.2f}" for m in matches)
        nowhere = f"no kit's lead traits (what its world is made of) show in the skill at {LEAD_AT_LEAST}"
        why = best.reason if best.score > 0 else nowhere
        return Rejection(f"no world kit fits the skill (best {shown}, need {MIN_MATCH}): {why}", AUTHOR)
    kit = kits[best.kit]
    notes = [f"kit {kit.name} (score {best.score:.2f}): {best.reason}"]
    ranked = sorted(selection_rows, key=lambda r: (r.get("rank") is None, r.get("rank") or 0))
    selected = list(dict.fromkeys(str(r["pattern_id"]) for r in ranked if r.get("pattern_id")))
    chosen = [p for p in selected if p in kit.patterns]
    skipped = [p for p in selected if p not in kit.patterns]
    if chosen:
        notes.append(f"from the skill's selection: {', '.join(chosen)}")
    if skipped:
        notes.append(f"not implemented by kit {kit.name}: {', '.join(skipped)}")
    offered = skill_traits(profile)
    tools = [
        kit.tool_patterns[t] for t in sorted(kit.tool_patterns, key=lambda t: -kit.traits.get(t, 0.0)) if t in offered
    ]
    tool = tools[0] if tools else next(iter(kit.tool_patterns.values()))
    if tool not in chosen:
        chosen.insert(0, tool)
        notes.append(f"added {tool}: it makes the agent use the skill's kind of tool")
    for starter in kit.starters:
        if len(chosen) >= MIN_PATTERNS:
            break
        if starter not in chosen:
            chosen.append(starter)
            notes.append(f"added {starter}: the selection maps onto fewer than {MIN_PATTERNS} of the kit's patterns")
    kept = _compatible(chosen)[:MAX_PATTERNS]
    if len(kept) < len(chosen):
        notes.append(f"dropped {', '.join(p for p in chosen if p not in kept)} (conflict or above {MAX_PATTERNS})")
    return KitPlan(kit, best, dict.fromkeys(kept, 1), tuple(notes), tuple(matches))


def _compatible(patterns: Sequence[str]) -> list[str]:
    pool = seed_pool()
    kept: list[str] = []
    for pattern_id in patterns:
        if not any(pattern_id in pool.conflicts(other) for other in kept if other in pool):
            kept.append(pattern_id)
    return kept


def skill_seed(skill_id: str) -> int:
    return int.from_bytes(hashlib.sha256(skill_id.encode()).digest()[:4], "big")


def author_offline(
    skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]], seed: int | None = None
) -> TaskDraft | Rejection:
    """The iteration-0 task of a curated skill from its best-matching kit, or why there is none."""
    profile = SkillProfile.from_row(skill_row)
    plan = plan_offline(profile, selection_rows)
    if isinstance(plan, Rejection):
        return plan
    skill = SkillRef(
        skill_id=str(skill_row["skill_id"]),
        name=str(skill_row.get("name") or skill_row["path"]),
        path=str(skill_row["path"]),
    )
    try:
        return plan.kit.build(
            skill_seed(skill.skill_id) if seed is None else seed,
            skill,
            profile.domain,
            plan.patterns,
            focus=plan.kit.focus_of(profile),
        )
    except KitError as exc:
        return Rejection(f"kit {plan.kit.name} could not build the task: {exc}", AUTHOR, failed=True)


class OfflineAuthor:
    """The offline kits as an `Author` (`skill2env.tasks.authoring`): load it as `skill2env.kits:OfflineAuthor`."""

    name = AUTHOR

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> TaskDraft | Rejection:
        return author_offline(skill_row, selection_rows)
