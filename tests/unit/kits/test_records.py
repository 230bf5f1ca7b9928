"""The personal-records kit: its solver earns full credit at every intensity, the naive baseline does not
once the traps are harmful, no expected result shows in the workspace, the expected results follow the
world (not the list's notes, the other person's rows or the log's clocks), deliverables almost right lose
credit, and only skills that keep a person's own records are served."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.records import FOCUS, KIT, TASKS, UPCOMING
from skill2env.kits.records.patterns import BIRTHDAYS, DATABASE
from skill2env.kits.records.world import (
    expected_completed,
    expected_minutes,
    expected_overdue,
    expected_upcoming,
    next_birthday,
)
from skill2env.kits.spec import KitError
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-records", name="personal-records", path="personal-records")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "productivity", patterns)


def solved(draft: TaskDraft, root: Path) -> Path:
    materialize(draft, root)
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)
    return root


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    patterns = {"units_hidden_in_header": 1, "scope_distractor": 1, "implicit_timezone": 1}
    seed = next(s for s in range(40) if not KIT.world(s, patterns)[0].harmful)
    reward, items, log = rollout(build(seed, patterns), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_the_database_is_sqlite_built_from_its_script() -> None:
    draft = build(2, {"scope_distractor": 3, "sentinel_missing_values": 3})
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        connection = sqlite3.connect(root / DATABASE)
        columns = [row[1] for row in connection.execute("PRAGMA table_info(tasks)")]
        count = connection.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        connection.close()
    world, _ = KIT.world(2, {"scope_distractor": 3, "sentinel_missing_values": 3})
    assert {"status", "priority", "due_date", "completed_at", "owner", "deleted_at"} <= set(columns)
    assert count == len(world.tasks)


def test_the_expected_results_follow_the_world_not_the_notes_rows_or_clocks() -> None:
    patterns = {"stale_derived_artifact": 3, "duplicate_claim_across_periods": 3, "conditional_branch_on_data": 3,
                "scope_distractor": 3, "implicit_timezone": 1}  # fmt: skip
    world, _ = KIT.world(4, patterns)
    upcoming = expected_upcoming(world)
    names = [p["name"] for p in upcoming]
    assert len(names) == len(set(names))
    noted = {world.people[e.person].name: e.note for e in world.entries if e.note is not None}
    assert any(noted.get(p["name"]) not in (None, p["turns"]) for p in upcoming)
    leap = [p for p in world.people if (p.month, p.day) == (2, 29)]
    assert leap and all(next_birthday(p, world.today, world.leap_rule).day in (28, 1) for p in leap)
    other = {t.id for t in world.tasks if t.owner != world.owner[1] or t.deleted}
    assert other and not other & set(expected_overdue(world))
    assert expected_completed(world) >= 1
    plain, _ = KIT.world(4, {k: v for k, v in patterns.items() if k != "implicit_timezone"})
    assert expected_minutes(world) == expected_minutes(plain)


def test_deliverables_almost_right_lose_credit() -> None:
    draft = build(6, dict.fromkeys(KIT.patterns, 2))
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        assert score(draft.blueprint.rubric, root)[0] >= FULL_CREDIT
        upcoming = json.loads((root / UPCOMING).read_text())
        aged = next(p for p in upcoming["upcoming"] if p["turns"] is not None)
        aged["turns"] += 1
        (root / UPCOMING).write_text(json.dumps(upcoming))
        items = score(draft.blueprint.rubric, root)[1]
        assert items["upcoming.details"] == 0.0 and items["upcoming.names"] == 1.0
        tasks = json.loads((root / TASKS).read_text())
        tasks["overdue"] = tasks["overdue"][::-1]
        tasks["completed_this_week"] += 1
        (root / TASKS).write_text(json.dumps(tasks))
        items = score(draft.blueprint.rubric, root)[1]
        assert items["tasks.overdue"] == 0.0 and items["tasks.completed"] == 0.0
        focus = json.loads((root / FOCUS).read_text())
        goal = next(iter(focus["minutes"]))
        focus["minutes"][goal] += 60
        (root / FOCUS).write_text(json.dumps(focus))
        assert score(draft.blueprint.rubric, root)[1]["focus.minutes"] == 0.0


def test_the_list_writes_each_section_in_its_own_form() -> None:
    text = build(3, {"units_hidden_in_header": 3, "conditional_branch_on_data": 3}).workspace[BIRTHDAYS].decode()
    assert "(dates as MM/DD/YYYY" in text and "29.02." in text
    assert text.rstrip().endswith("years without a 29 February.")


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "productivity",
                              "name": name, "description": text, "skill_md_text": text, "languages": [],
                              "programs": [], "cli_tools": [], "dependency_names": [], "extensions": [],
                              "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_personal_records_skill_is_served_by_the_kit() -> None:
    for skill in (
        _skill(
            "birthdays",
            "Store each birthday in a Markdown list, show the upcoming birthdays with the age "
            "each person turns, and send reminders before each birthday or anniversary.",
        ),
        _skill(
            "todo",
            "A to-do list and task tracker for personal tasks in SQLite: list overdue to-dos by priority and due date.",
        ),
    ):
        assert kit_matches(SkillProfile.from_row(skill), KITS)[0].kit == "records"


def test_a_skill_that_only_mentions_a_reminder_is_not_served() -> None:
    skill = _skill("deploy", "Deploy the service with a rolling update; set a reminder to rotate the keys.")
    match = next(m for m in kit_matches(SkillProfile.from_row(skill), KITS) if m.kit == "records")
    assert match.score == 0.0 and "the kit needs" in match.reason


def test_a_skill_about_one_record_gets_a_task_weighted_toward_it() -> None:
    birthdays = SkillProfile.from_row(_skill("birthdays", "Keep each birthday and anniversary; list the birthdays."))
    todo = SkillProfile.from_row(_skill("todo", "A to-do list: add tasks, list overdue tasks, finish tasks."))
    focus = SkillProfile.from_row(_skill("focus", "Pomodoro focus sessions: start a focus session, log habits."))
    mixed = SkillProfile.from_row(_skill("mixed", "Birthday reminders and tasks: a birthday, a task."))
    assert [KIT.focus_of(p) for p in (birthdays, todo, focus, mixed)] == [UPCOMING, TASKS, FOCUS, None]

    patterns = {"scope_distractor": 1, "conditional_branch_on_data": 1}
    draft = KIT.build(3, SKILL, "productivity", patterns, focus=TASKS)
    weights = {i.id: i.weight for i in draft.blueprint.rubric.items}
    assert weights == {"upcoming.names": 0.1, "upcoming.details": 0.1, "tasks.overdue": 0.3, "tasks.completed": 0.3,
                       "focus.minutes": 0.2}  # fmt: skip
    assert f"`{TASKS}`" in draft.instruction and "counts most" in draft.instruction
    assert draft.instruction.splitlines()[0].endswith("'s tasks up to date, with the rest of the records")


def test_a_rebuilt_task_keeps_its_parents_focus_and_an_unknown_focus_is_an_error() -> None:
    patterns = {"scope_distractor": 1, "conditional_branch_on_data": 1}
    parent = KIT.build(3, SKILL, "productivity", patterns, focus=FOCUS).blueprint
    child = KIT.build(3, SKILL, "productivity", patterns | {"implicit_timezone": 1}, iteration=1, parent=parent)
    assert {i.id: i.weight for i in child.blueprint.rubric.items}["focus.minutes"] == 0.6
    try:
        KIT.build(3, SKILL, "productivity", patterns, focus="output/diary.json")
    except KitError as exc:
        assert "no record 'output/diary.json'" in str(exc)
    else:
        raise AssertionError("an unknown focus was built")


def test_the_focused_task_still_passes_its_own_checks() -> None:
    for focus in (UPCOMING, TASKS, FOCUS):
        draft = KIT.build(11, SKILL, "productivity", {"conditional_branch_on_data": 2, "scope_distractor": 1},
                          focus=focus)  # fmt: skip
        reward, items, log = rollout(draft, draft.solve_sh)
        assert reward >= FULL_CREDIT, (focus, items, log)
        partial, _, _ = rollout(draft, KIT.partial_policy())
        assert partial < 0.7, (focus, partial)
        assert check_draft(draft).passed, check_draft(draft).reasons
