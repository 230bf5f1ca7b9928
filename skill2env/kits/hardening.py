"""Rule-based hardening without a diagnoser model: one targeted step per round.

A rollout group's per-item results say which challenges the solver met: an item checks the patterns
whose challenge lists the item's expected fact, and a pattern whose items all passed was solved too
easily. Like the paper's hardening (one targeted revision of the blueprint per round), a round makes
one move:

* raise the easiest solved pattern one intensity (at most 3): the one at the lowest intensity, ties
  broken by a per-task hash so equally easy patterns are spread over tasks;
* only when no solved pattern can go higher, add one compatible pattern the task does not use yet,
  at intensity 1.

A pattern with a failed item stays where it is: it still discriminates. Every move makes the task
strictly harder for a careful solver too (a higher intensity or one more challenge to handle).

Why one move and not "raise everything solved and add a pattern": the kits' intensity-2 forms are
drawn benign now and then (the trap is there but the obvious reading happens to be right), so a
single raise defeats a naive solver only sometimes, and a task it still solves gets the next step
the round after. Raising all three starting patterns at once multiplied those chances away: the
naive baseline's full-credit rate went 0.69 → 0.15 → 0.00 over three iterations (20 seeds per kit,
every task hardened), against the paper's 48.4 → 24.8 → 15.4 %, and the bundled offline run went
0.625 → 0.000 → 0.000. One step per round gives a gradual fall: 0.69 → 0.43 → 0.23 (55 → 34 → 18
of 80), strictly falling in every kit (`tests/unit/kits/test_solvers.py`), and 0.625 → 0.375 →
0.250 on the bundled run. The price is slower growth: a task gains a challenge only once its solved
patterns are all at intensity 3.
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

MAX_INTENSITY = 3


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


def solved_patterns(blueprint: Blueprint, item_results: Mapping[str, float | bool]) -> list[str]:
    """Patterns whose items all passed (missing results count as failed); a pattern no item checks
    counts as solved when every item of the task passed."""
    every_item_passed = all(passed(item_results.get(i.id, 0.0)) for i in blueprint.rubric.items)
    return [
        pattern_id
        for pattern_id, items in items_by_pattern(blueprint).items()
        if (all(passed(item_results.get(i, 0.0)) for i in items) if items else every_item_passed)
    ]


def harden(
    kit: Kit, draft_or_blueprint: TaskDraft | Blueprint, item_results: Mapping[str, float | bool]
) -> dict[str, int]:
    """The next iteration's patterns (id → intensity) for a task, from its group's item results;
    the current patterns unchanged when there is no move left."""
    blueprint = draft_or_blueprint.blueprint if isinstance(draft_or_blueprint, TaskDraft) else draft_or_blueprint
    following = {c.pattern_id: c.intensity for c in blueprint.challenges}
    raisable = [p for p in solved_patterns(blueprint, item_results) if following[p] < MAX_INTENSITY]
    if raisable:
        easiest = min(raisable, key=lambda p: (following[p], task_order(blueprint.task_name, p)))
        following[easiest] += 1
        return following
    addition = next_pattern(kit, blueprint.task_name, following)
    if addition:
        following[addition] = 1
    return following


def task_order(task: str, pattern_id: str) -> str:
    """A per-task-family sort key for a pattern: the same at every iteration of one task, varied across tasks."""
    family = task.rsplit("-i", 1)[0]
    return hashlib.sha256(f"{family}\0{pattern_id}".encode()).hexdigest()


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
    return min(candidates, key=lambda p: task_order(task, p))
