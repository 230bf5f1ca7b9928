"""Rule-based hardening: one targeted step per round — raise the easiest solved pattern, keep what
still discriminates, add a new pattern only when nothing solved can go higher."""

from __future__ import annotations

from skill2env.kits import KITS
from skill2env.kits.hardening import harden, items_by_pattern, next_pattern, task_order
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.blueprint import SkillRef

SKILL = SkillRef(skill_id="s-1", name="docling", path="docling")


def test_only_the_lowest_solved_pattern_goes_up_and_failed_ones_stay() -> None:
    kit = KITS["billing"]
    draft = kit.build(5, SKILL, "x", {"scope_distractor": 2, "source_arithmetic_error": 1, "cap_across_tiers": 3})
    linked = items_by_pattern(draft.blueprint)
    results = {item.id: 1.0 for item in draft.blueprint.rubric.items}
    for item_id in linked["source_arithmetic_error"]:
        results[item_id] = 0.0
    following = kit.harden(draft, results)
    assert following == {"scope_distractor": 3, "source_arithmetic_error": 1, "cap_across_tiers": 3}


def test_ties_between_equally_easy_patterns_follow_the_task_order() -> None:
    kit = KITS["cleanroom"]
    patterns = {"scope_distractor": 1, "corrupted_input_repair": 1}
    draft = kit.build(2, SKILL, "x", patterns)
    following = kit.harden(draft, {item.id: 1.0 for item in draft.blueprint.rubric.items})
    easiest = min(patterns, key=lambda p: task_order(draft.blueprint.task_name, p))
    assert following == {**patterns, easiest: 2}
    assert task_order(draft.blueprint.task_name, easiest) == task_order(
        draft.blueprint.task_name.replace("-i0", "-i1"), easiest
    )


def test_a_pattern_is_added_only_when_nothing_solved_can_go_higher() -> None:
    kit = KITS["billing"]
    patterns = {"scope_distractor": 3, "source_arithmetic_error": 1}
    draft = kit.build(5, SKILL, "x", patterns)
    results = {item.id: 1.0 for item in draft.blueprint.rubric.items}
    for item_id in items_by_pattern(draft.blueprint)["source_arithmetic_error"]:
        results[item_id] = 0.0
    following = kit.harden(draft, results)
    added = set(following) - set(patterns)
    assert len(added) == 1 and following[added.pop()] == 1
    assert {p: following[p] for p in patterns} == patterns


def test_missing_results_count_as_failed_and_blueprints_work_too() -> None:
    kit = KITS["incident"]
    draft = kit.build(1, SKILL, "x", {"implicit_timezone": 1, "scope_distractor": 1})
    following = harden(kit, draft.blueprint, {})
    assert following["implicit_timezone"] == 1
    assert following["scope_distractor"] == 1
    assert len(following) == 3


def test_a_task_with_no_move_left_keeps_its_patterns() -> None:
    kit = KITS["configaudit"]
    everything = dict.fromkeys(kit.patterns, 3)
    draft = kit.build(0, SKILL, "x", everything)
    assert kit.harden(draft, {item.id: 1.0 for item in draft.blueprint.rubric.items}) == everything


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
    assert list(changed.values()) == [(1, 2)]
