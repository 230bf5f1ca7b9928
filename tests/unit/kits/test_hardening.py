"""Rule-based hardening: raise what was solved, keep what still discriminates, add one new pattern."""

from __future__ import annotations

from skill2env.kits import KITS
from skill2env.kits.hardening import harden, items_by_pattern, next_pattern
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.blueprint import SkillRef

SKILL = SkillRef(skill_id="s-1", name="docling", path="docling")


def test_passed_patterns_go_up_failed_ones_stay_and_one_is_added() -> None:
    kit = KITS["billing"]
    draft = kit.build(5, SKILL, "x", {"scope_distractor": 1, "source_arithmetic_error": 2, "cap_across_tiers": 3})
    linked = items_by_pattern(draft.blueprint)
    results = {item.id: 1.0 for item in draft.blueprint.rubric.items}
    for item_id in linked["source_arithmetic_error"]:
        results[item_id] = 0.0
    following = kit.harden(draft, results)
    assert following["scope_distractor"] == 2
    assert following["source_arithmetic_error"] == 2
    assert following["cap_across_tiers"] == 3
    added = set(following) - {"scope_distractor", "source_arithmetic_error", "cap_across_tiers"}
    assert len(added) == 1
    assert following[added.pop()] == 1


def test_missing_results_count_as_failed_and_blueprints_work_too() -> None:
    kit = KITS["incident"]
    draft = kit.build(1, SKILL, "x", {"implicit_timezone": 1, "scope_distractor": 1})
    following = harden(kit, draft.blueprint, {})
    assert following["implicit_timezone"] == 1
    assert following["scope_distractor"] == 1
    assert len(following) == 3


def test_added_patterns_come_from_the_kit_and_do_not_conflict() -> None:
    pool = seed_pool()
    for kit in KITS.values():
        used = dict.fromkeys(kit.patterns[:3], 1)
        added = next_pattern(kit, "task-s1-i0", used)
        assert added in kit.patterns and added not in used
        assert not any(added in pool.conflicts(p) for p in used)
        assert next_pattern(kit, "task-s1-i0", dict.fromkeys(kit.patterns, 3)) is None


def test_hardened_tasks_record_their_revision_and_iteration() -> None:
    kit = KITS["cleanroom"]
    draft = kit.build(2, SKILL, "x", {"scope_distractor": 1, "corrupted_input_repair": 1})
    following = kit.harden(draft, {item.id: 1.0 for item in draft.blueprint.rubric.items})
    hardened = kit.build(2, SKILL, "x", following, iteration=1, parent=draft.blueprint)
    assert hardened.blueprint.iteration == 1
    assert hardened.blueprint.task_name.endswith("-i1")
    revision = hardened.blueprint.revision
    assert revision is not None
    changed = {entry["pattern_id"]: (entry["from"], entry["to"]) for entry in revision.diff}
    assert changed["scope_distractor"] == (1, 2)
    assert any(before is None for before, _ in changed.values())
