"""Rule-based hardening without a diagnoser model.

A rollout's per-item results say which challenges the solver met: an item checks the patterns whose
challenge lists the item's expected fact. Every pattern whose items all passed was solved too easily
and goes one intensity up (at most 3); one compatible pattern the task does not use yet is added at
intensity 1. A pattern with a failed item stays where it is: it still discriminates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from skill2env.kits.base import FULL_CREDIT, expected_fact
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.draft import TaskDraft

if TYPE_CHECKING:
    from skill2env.kits.base import Kit


def items_by_pattern(blueprint: Blueprint) -> dict[str, list[str]]:
    """Pattern id → the rubric items that check its challenge."""
    linked: dict[str, list[str]] = {c.pattern_id: [] for c in blueprint.challenges}
    for item in blueprint.rubric.items:
        fact = expected_fact(item.id)
        for challenge in blueprint.challenges:
            if fact in challenge.facts:
                linked[challenge.pattern_id].append(item.id)
    return linked


def passed(score: float | bool) -> bool:
    return float(score) >= FULL_CREDIT


def harden(
    kit: Kit, draft_or_blueprint: TaskDraft | Blueprint, item_results: Mapping[str, float | bool]
) -> dict[str, int]:
    """The next iteration's patterns (id → intensity) for a task, from one rollout's item results."""
    blueprint = draft_or_blueprint.blueprint if isinstance(draft_or_blueprint, TaskDraft) else draft_or_blueprint
    current = {c.pattern_id: c.intensity for c in blueprint.challenges}
    every_item_passed = all(passed(item_results.get(i.id, 0.0)) for i in blueprint.rubric.items)
    following: dict[str, int] = {}
    for pattern_id, items in items_by_pattern(blueprint).items():
        solved = all(passed(item_results.get(i, 0.0)) for i in items) if items else every_item_passed
        following[pattern_id] = min(3, current[pattern_id] + 1) if solved else current[pattern_id]
    addition = next_pattern(kit, blueprint.task_name, following)
    if addition:
        following[addition] = 1
    return following


def next_pattern(kit: Kit, task: str, used: Mapping[str, int]) -> str | None:
    """A kit pattern not used yet and compatible with the used ones; the order varies by task."""
    pool = seed_pool()
    blocked = set(used)
    for pattern_id in used:
        if pattern_id in pool:
            blocked |= pool.conflicts(pattern_id)
    candidates = [p for p in kit.patterns if p not in blocked]
    if not candidates:
        return None
    return min(candidates, key=lambda p: hashlib.sha256(f"{task.rsplit('-i', 1)[0]}\0{p}".encode()).hexdigest())
