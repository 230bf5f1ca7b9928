"""The codebase-repair kit: its hidden test suite is ground truth the workspace never shows, the
reference solver earns full credit at every intensity, the naive policy does not once the patterns
bite, and editing the visible tests (or planting a conftest.py / sitecustomize.py) earns nothing."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from kit_runs import materialize, oracle_and_partial, python_shim, rollout, run_script, score

from skill2env.kits import KITS
from skill2env.kits.authoring import kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.coderepair import HIDDEN_SOURCE, KIT
from skill2env.kits.coderepair.world import EXTRA, expand, generate
from skill2env.patterns.traits import SkillProfile
from skill2env.rubric.checks import MEMO_ENV, run_check
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-debugging", name="systematic-debugging", path="systematic-debugging")
CODE_ITEMS = "tests."


@cache
def draft(seed: int, level: int) -> TaskDraft:
    return KIT.build(seed, SKILL, "software-engineering", dict.fromkeys(KIT.patterns, level))


def test_the_kit_is_registered_with_ten_pool_patterns() -> None:
    assert KITS["coderepair"] is KIT
    assert len(KIT.patterns) >= 10
    for required in ("error_cascade_root_cause", "misleading_tool_error", "implicit_constraint", "scope_distractor"):
        assert required in KIT.patterns


@pytest.mark.parametrize(("seed", "level"), [(0, 1), (1, 2), (2, 3), (5, 1), (8, 3)])
def test_the_reference_solver_earns_full_credit_with_every_pattern(seed: int, level: int) -> None:
    task = draft(seed, level)
    report = check_draft(task)
    assert report.passed, report.reasons
    assert report.leak.leaked == 0
    (reward, items), partial, log = oracle_and_partial(task)
    assert reward >= FULL_CREDIT, ([i for i, v in items.items() if v < 1.0], log)
    assert partial < 0.7


@pytest.mark.parametrize("pattern", sorted(KIT.patterns))
def test_each_pattern_alone_at_intensity_three_is_solved_by_the_solver_and_not_by_the_naive_policy(
    pattern: str,
) -> None:
    task = KIT.build(4, SKILL, "x", {pattern: 3})
    (reward, items), _, log = oracle_and_partial(task)
    assert reward >= FULL_CREDIT, ([i for i, v in items.items() if v < 1.0], log)
    naive, _, naive_log = rollout(task, KIT.naive_policy())
    assert "Traceback" not in naive_log, naive_log
    assert naive < FULL_CREDIT


def test_the_naive_policy_falls_short_when_every_pattern_bites() -> None:
    for seed in (0, 3):
        naive, _, log = rollout(draft(seed, 3), KIT.naive_policy())
        assert "Traceback" not in log, log
        assert naive < 0.5


def test_the_hidden_suite_is_in_the_rubric_and_nowhere_in_the_workspace() -> None:
    task = draft(1, 2)
    text = "\n".join(data.decode("utf-8", "replace") for data in task.workspace.values())
    hidden = [item for item in task.blueprint.rubric.items if item.id.startswith(CODE_ITEMS)]
    assert hidden and all(item.check and item.check.check == "python" for item in hidden)
    assert all(item.check and item.check.params["source"] == HIDDEN_SOURCE for item in hidden)
    assert "def check(" not in text and "hidden" not in text.lower()
    world = generate(1, 0)
    unseen = [expand(world, call) for calls in EXTRA.values() for call in calls]
    assert not [call for call in unseen if call in text], "a hidden case's call is written in the workspace"
    assert not [path for path in task.workspace if "hidden" in path]


def _solved(task: TaskDraft, root: Path) -> Path:
    workspace = materialize(task, root / "workspace")
    run_script(task.solve_sh, workspace, python_shim(root))
    return workspace


def test_editing_the_visible_tests_or_planting_a_conftest_earns_nothing() -> None:
    task = draft(2, 1)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = materialize(task, Path(tmp) / "workspace")
        pkg = next(p.parent.name for p in workspace.glob("*/__init__.py") if p.parent.name not in ("tests",))
        for test in (workspace / "tests").glob("test_*.py"):
            test.write_text("import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n")
        hook = "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        (workspace / "conftest.py").write_text(
            hook + "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
        )
        (workspace / "tests" / "conftest.py").write_text("collect_ignore_glob = ['*']\n")
        patch = "import unittest\nunittest.TestCase.run = lambda self, result=None: None\n"
        (workspace / "sitecustomize.py").write_text(patch)
        (workspace / pkg / "sitecustomize.py").write_text(patch)
        (workspace / "usercustomize.py").write_text(patch)
        reward, items = score(task.blueprint.rubric, workspace)
    assert reward <= 0.1
    assert not [i for i, v in items.items() if i.startswith(CODE_ITEMS) and v > 0]


def test_modules_planted_beside_the_package_do_not_reach_the_hidden_suite() -> None:
    """The suite runs a copy of the package folder alone in `python -I -S`: a `json.py` or `inspect.py`
    that would break its runner, planted at the repository root, changes nothing."""
    task = draft(0, 1)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = _solved(task, Path(tmp))
        for name in ("json.py", "inspect.py", "importlib.py", "sitecustomize.py"):
            (workspace / name).write_text("raise SystemExit(3)\n")
        reward, items = score(task.blueprint.rubric, workspace)
    assert reward >= FULL_CREDIT, items


def test_editing_the_vendored_dependency_fails_its_item_even_with_the_bugs_fixed() -> None:
    task = KIT.build(6, SKILL, "x", {"scope_distractor": 2})
    with tempfile.TemporaryDirectory() as tmp:
        workspace = _solved(task, Path(tmp))
        vendored = next(workspace.glob("*/compat/decimalish.py"))
        vendored.write_text(vendored.read_text() + "\n# patched locally\n")
        _, items = score(task.blueprint.rubric, workspace)
    assert items["tests.scope_distractor"] == 0.0
    assert items["tests.hidden"] == 0.0
    assert items["report.root_causes"] == 1.0


def test_renaming_a_public_parameter_fails_the_api_item() -> None:
    task = KIT.build(6, SKILL, "x", {"implicit_constraint": 1})
    with tempfile.TemporaryDirectory() as tmp:
        workspace = _solved(task, Path(tmp))
        batching = next(workspace.glob("*/batching.py"))
        batching.write_text(batching.read_text().replace("per_page", "size"))
        _, items = score(task.blueprint.rubric, workspace)
    assert items["tests.implicit_constraint"] == 0.0


def test_debugging_and_testing_skills_match_the_kit() -> None:
    row = {
        "skill_id": "sk-tdd",
        "path": "skills/tdd",
        "domain": "software-engineering",
        "name": "test-driven-development",
        "description": "Write a failing test first, watch the unit tests fail, fix the bug at its root cause.",
        "skill_md_text": "Debugging a failing test: read the traceback, find the root cause, never patch a flaky test.",
        "languages": ["python"],
        "programs": ["pytest", "git"],
        "cli_tools": [],
        "dependency_names": ["pytest"],
        "extensions": ["py"],
        "file_kinds": [],
    }
    best = kit_matches(SkillProfile.from_row(row), KITS)[0]
    assert best.kit == "coderepair" and best.score > 0.5


def test_a_batch_memo_runs_the_hidden_suite_once_per_package_and_never_changes_a_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the verifier's batch mode (a memo folder named in the environment) the suite's run on one
    package is kept for the next candidate whose package copy, calls and API are the same; a changed
    package runs again. Verdicts and evidence are those of a run without the memo."""
    task = draft(0, 1)
    solved, unsolved = _solved(task, tmp_path / "solved"), materialize(task, tmp_path / "unsolved" / "workspace")
    items = [item for item in task.blueprint.rubric.items if item.id.startswith(CODE_ITEMS)][:3]
    plain = [[run_check("python", workspace, item.check.params) for item in items if item.check]
             for workspace in (solved, unsolved)]  # fmt: skip
    memo = tmp_path / "memo"
    memo.mkdir()
    monkeypatch.setenv(MEMO_ENV, str(memo))
    for _ in range(2):
        kept = [[run_check("python", workspace, item.check.params) for item in items if item.check]
                for workspace in (solved, unsolved)]  # fmt: skip
        assert [[(r.passed, _without_durations(r.evidence)) for r in row] for row in kept] == [
            [(r.passed, _without_durations(r.evidence)) for r in row] for row in plain
        ]
        assert len(list(memo.glob("hidden-tests-*.json"))) == 2 * len(items)  # one per item and package
    assert [r.passed for r in plain[0]] == [True] * len(items) and not any(r.passed for r in plain[1])


def _without_durations(evidence: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in evidence.items() if key != "duration_ms"}
