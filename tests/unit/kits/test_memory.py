"""The memory kit: its solver earns full credit at every intensity, the naive baseline (which trusts
the memory store) does not once the traps are harmful, no expected answer shows in the workspace,
and a memory file that still asserts a superseded value or cites the wrong session loses credit."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.memory import ANSWERS, KIT, UPDATED
from skill2env.kits.memory.world import entries
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-memory", name="agent-memory", path="agent-memory")
ASSIGNED = {"pending_item_closure", "goal_buried_in_thread", "stale_search_index", "skill_template_as_is",
            "skill_output_convention", "scattered_edit_checklist", "idempotent_resume"}  # fmt: skip


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "memory", patterns)


def solved(draft: TaskDraft, root: Path) -> None:
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)


def test_the_kit_is_registered() -> None:
    assert KITS["memory"] is KIT
    assert len(KIT.patterns) >= 8
    assert set(KIT.patterns) >= ASSIGNED


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    rewards = []
    for seed in range(6):
        reward, _, log = rollout(build(seed, {"skill_template_as_is": 1}), KIT.naive_policy())
        assert "Traceback" not in log, log
        rewards.append(reward)
    assert max(rewards) >= FULL_CREDIT and min(rewards) < FULL_CREDIT


def test_no_expected_answer_is_readable_in_the_workspace() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0


def test_the_same_seed_gives_the_same_files() -> None:
    patterns = dict.fromkeys(KIT.patterns, 2)
    assert build(7, patterns).workspace == build(7, patterns).workspace


def test_a_superseded_value_a_wrong_source_or_a_wrong_answer_loses_credit() -> None:
    patterns = {"retroactive_correction": 3, "pending_item_closure": 3}
    draft = build(4, patterns)
    world, _ = KIT.world(4, patterns)
    owners = entries(world, "owners")
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        solved(draft, root)
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward >= FULL_CREDIT
        memory = (root / UPDATED).read_text()
        subject, want = next(iter(owners.items()))
        line = next(ln for ln in memory.splitlines() if ln.startswith(f"- {subject}: "))
        (root / UPDATED).write_text(memory.replace(line, line.replace(want["value"], "@nobody")))
        _, items = score(draft.blueprint.rubric, root)
        assert items["memory.owners"] == 0.0 and items["memory.deadlines"] == 1.0
        (root / UPDATED).write_text(memory.replace(line, line.replace(want["source"], "journal/elsewhere.md")))
        _, items = score(draft.blueprint.rubric, root)
        assert items["memory.owners"] == 0.0
        (root / UPDATED).write_text(memory.replace(line, f"{line}\n{line}"))
        _, items = score(draft.blueprint.rubric, root)
        assert items["memory.owners"] == 0.0
        (root / UPDATED).write_text(memory.replace(world.days[world.last].isoformat(), "2020-01-01", 1))
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward <= 0.4
        (root / UPDATED).write_text(memory)
        answers = json.loads((root / ANSWERS).read_text())
        answers["q4"] = [*answers["q4"], "A-99"]
        (root / ANSWERS).write_text(json.dumps(answers))
        _, items = score(draft.blueprint.rubric, root)
        assert items["answers.q4"] == 0.0 and items["answers.q1"] == 1.0


def _skill(name: str, text: str) -> dict[str, object]:
    return {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "productivity", "name": name,
            "description": text, "skill_md_text": text, "languages": [], "programs": [], "cli_tools": [],
            "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip


def test_a_memory_keeping_skill_is_served_by_the_kit() -> None:
    keeper = _skill(
        "agent-memory",
        "Keep long-term memory across sessions: after each session write daily notes to the journal, "
        "consolidate them into MEMORY.md, update the decision log, and recall what you remember at the start "
        "of the next session so nothing from the context window is lost.",
    )
    assert kit_matches(SkillProfile.from_row(keeper), KITS)[0].kit == "memory"


def test_a_skill_that_only_mentions_notes_is_not_served() -> None:
    writer = _skill(
        "release-notes",
        "Write release notes from merged pull requests: group changes by type, link each pull request and "
        "keep the wording short.",
    )
    match = next(m for m in kit_matches(SkillProfile.from_row(writer), KITS) if m.kit == "memory")
    assert match.score == 0.0
