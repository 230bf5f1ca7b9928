"""The git-forensics kit: a real git repository written without git, a solver that earns full credit at
every intensity from the history alone, a naive baseline (commit messages, first-parent log, HEAD) that
does not once the traps are harmful, and no answer readable in the workspace."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from kit_runs import materialize, oracle_and_partial, rollout

from skill2env.kits import KITS, author_offline, kit_matches
from skill2env.kits.base import FULL_CREDIT, haystack
from skill2env.kits.gitforensics import KIT
from skill2env.kits.gitforensics.patterns import benign
from skill2env.kits.gitforensics.world import (
    INVENTORY,
    NEW_TAG,
    OLD_TAG,
    changelog,
    last_author,
    regression,
    repository_files,
)
from skill2env.kits.spec import seeded
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.normalize import find, needle

SKILL = SkillRef(skill_id="s-git", name="git-history", path="git-history")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "software-engineering", patterns)


def test_the_kit_is_registered() -> None:
    assert KITS["gitforensics"] is KIT
    assert len(KIT.patterns) >= 4


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_solver_earns_full_credit_with_every_pattern(seed: int, level: int) -> None:
    draft = build(seed, dict.fromkeys(KIT.patterns, level))
    (reward, items), partial, log = oracle_and_partial(draft)
    assert reward >= FULL_CREDIT, ([i for i, v in items.items() if v < 1.0], log)
    assert partial < 0.7
    assert check_draft(draft).passed


@pytest.mark.parametrize("pattern", KIT.patterns)
def test_each_pattern_alone_is_solved_and_at_intensity_3_beats_the_naive_baseline(pattern: str) -> None:
    for level in (1, 2, 3):
        (reward, _), _, log = oracle_and_partial(build(5, {pattern: level}))
        assert reward >= FULL_CREDIT, (pattern, level, log)
    naive, items, log = rollout(build(5, {pattern: 3}), KIT.naive_policy())
    assert "Traceback" not in log, log
    assert naive < FULL_CREDIT, (pattern, items)


def test_the_naive_baseline_is_right_when_every_trap_is_benign() -> None:
    patterns = dict.fromkeys(KIT.patterns, 1)
    seed = next(
        s for s in range(200) if all(benign(seeded("gitforensics", s, 0, p), 1) for p in patterns)
    )  # the base world alone has no trap; each benign draw keeps the obvious reading right
    reward, items, log = rollout(build(seed, patterns), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (seed, items, log)


def test_no_answer_is_readable_in_the_workspace() -> None:
    for seed in (0, 1):
        patterns = dict.fromkeys(KIT.patterns, 3)
        draft = build(seed, patterns)
        assert check_draft(draft).leak.leaked == 0
        hay = haystack(KIT.compose(seed, patterns, 0))
        world, _ = KIT.world(seed, patterns)
        repository_files(world)
        assert not find(needle(f"introduced_by = {regression(world)[0]}"), hay)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_reads_the_repository_as_the_kit_planned_it() -> None:
    patterns = dict.fromkeys(KIT.patterns, 3)
    world, _ = KIT.world(4, patterns)
    files = repository_files(world)  # realizes the plan
    with tempfile.TemporaryDirectory() as tmp:
        for rel, data in files.items():
            path = Path(tmp) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        repo = Path(tmp) / "repo"

        def git(*args: str) -> str:
            done = subprocess.run(
                ["git", "-c", "safe.directory=*", *args], cwd=repo, capture_output=True, text=True, check=True
            )
            return done.stdout

        git("fsck", "--strict", "--no-dangling")
        assert git("status", "--porcelain") == ""
        span = git("rev-list", "--no-merges", f"{OLD_TAG}..{NEW_TAG}").split()
        assert set(changelog(world)) <= set(span)
        assert git("log", "--use-mailmap", "-1", "--format=%aN", "--", INVENTORY).strip() == last_author(
            world, INVENTORY
        )
        introduced, _ = regression(world)
        run = subprocess.run(
            ["python3", "scripts/check_totals.py"], cwd=repo, capture_output=True, text=True, check=False
        )
        assert run.returncode == 1
        assert introduced in git("rev-list", "HEAD").split()


def test_the_workspace_draft_matches_the_world() -> None:
    draft = build(2, {"changelog_reflects_every_change": 2})
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        assert (root / "repo/.git/HEAD").read_text() == "ref: refs/heads/main\n"
        assert (root / "repo/scripts/check_totals.py").exists()


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "software-engineering",
                              "name": name, "description": text, "skill_md_text": text, "languages": ["bash"],
                              "programs": [], "cli_tools": [], "dependency_names": [], "extensions": [],
                              "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_git_history_skill_is_served_by_the_kit_and_a_debugging_skill_is_not() -> None:
    history = _skill(
        "git-release-notes",
        "Write release notes and a changelog from git history: read commits between tags, skip merge commits "
        "and reverted changes, use git bisect to find the commit that broke a build, git blame for authors.",
        programs=["git"],
    )
    debugging = _skill(
        "fix-failing-tests",
        "Debug failing tests: read the traceback, find the root cause of the bug, write a failing test first "
        "with pytest, then fix the code.",
        programs=["pytest"],
        dependency_names=["pytest"],
        languages=["python"],
    )
    assert kit_matches(SkillProfile.from_row(history), KITS)[0].kit == "gitforensics"
    assert kit_matches(SkillProfile.from_row(debugging), KITS)[0].kit == "coderepair"
    draft = author_offline(history, [])
    assert isinstance(draft, TaskDraft) and draft.author == "offline:gitforensics"
