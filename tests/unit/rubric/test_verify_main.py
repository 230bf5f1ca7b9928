"""The in-environment verifier: run as a standalone script (standard library only, no site-packages)
from the bundle, and in-process for its time limits."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from skill2env.rubric.bundle import verifier_bundle, verify_command, write_bundle
from skill2env.rubric.models import Rubric
from skill2env.rubric.verify_main import verify

RUBRIC = Rubric.model_validate(
    {
        "items": [
            {
                "id": "report",
                "description": "the report exists",
                "weight": 0.4,
                "method": "deterministic",
                "check": {"check": "text_contains", "params": {"path": "report.md", "contains": "Total: 81"}},
            },
            {
                "id": "table",
                "description": "the table has 3 rows",
                "weight": 0.3,
                "method": "deterministic",
                "check": {"check": "row_count", "params": {"path": "table.csv", "expected": 3}},
            },
            {
                "id": "tone",
                "description": "the report is clear",
                "weight": 0.3,
                "method": "llm_judge",
                "judge_instruction": "Is it clear?",
                "target_files": ["report.md", "notes/*.txt"],
            },
        ]
    }
)


def _run_bundle(
    tmp_path: Path, workspace: Path, rubric: Rubric = RUBRIC
) -> tuple[subprocess.CompletedProcess[str], Path]:
    tests = tmp_path / "tests"
    write_bundle(tests, rubric, workdir=str(workspace))
    out = tmp_path / "logs" / "verifier"
    command = verify_command(str(workspace), tests=str(tests), out=str(out))
    # -S: no site-packages at all, so the verifier provably needs nothing but the standard library.
    completed = subprocess.run([sys.executable, "-S", *command[1:]], capture_output=True, text=True, cwd=workspace)
    return completed, out


def test_the_bundle_scores_deterministic_items_and_leaves_judge_items_unscored(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "report.md").write_text("# Report\nTotal: 81\n")
    (workspace / "table.csv").write_text("a\n1\n2\n")

    completed, out = _run_bundle(tmp_path, workspace)

    assert completed.returncode == 0, completed.stderr
    assert json.loads((out / "reward.json").read_text()) == {"reward": pytest.approx(0.4)}  # Harbor's: reward only
    results = json.loads((out / "results.json").read_text())
    assert [(i["id"], i["status"], i["scored_by"]) for i in results["items"]] == [
        ("report", "passed", "verifier"),
        ("table", "failed", "verifier"),
        ("tone", "unscored", None),
    ]
    assert results["items"][2]["evidence"]["reason"] == "judge items are scored by the host's judge role"
    assert results["complete"] is False and results["full_credit"] is False
    assert results["raw_reward"] == pytest.approx(0.4) and results["scored_weight"] == pytest.approx(0.7)
    assert results["items"][1]["evidence"]["summary"] == "2 record(s), wanted = 3"
    inputs = json.loads((out / "judge_inputs.json").read_text())
    assert inputs["tone"]["files"][0]["text"] == "# Report\nTotal: 81\n"
    assert inputs["tone"]["missing"] == ["notes/*.txt"]


def test_nothing_in_the_workspace_can_shadow_the_verifiers_modules(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "rubric_checks").mkdir(parents=True)
    (workspace / "report.md").write_text("Total: 81")
    (workspace / "table.csv").write_text("a\n1\n2\n3\n")
    for name in ("json.py", "csv.py", "re.py", "pathlib.py", "sitecustomize.py", "rubric_checks/__init__.py"):
        (workspace / name).write_text("raise SystemExit('shadowed')\n")

    completed, out = _run_bundle(tmp_path, workspace)

    assert completed.returncode == 0, completed.stderr
    assert json.loads((out / "reward.json").read_text())["reward"] == pytest.approx(0.7)  # the judge item counts 0 here


def test_an_unreadable_rubric_exits_2_without_a_reward_file(tmp_path: Path) -> None:
    files = verifier_bundle(RUBRIC)
    tests = tmp_path / "tests"
    for relative, data in files.items():
        (tests / relative).parent.mkdir(parents=True, exist_ok=True)
        (tests / relative).write_bytes(data)
    (tests / "rubric.json").write_text("{not json")
    out = tmp_path / "out"

    completed = subprocess.run(
        [sys.executable, "-I", "-S", str(tests / "verify.py"), "--workspace", str(tmp_path), "--out", str(out)],
        capture_output=True,
        text=True,
    )

    assert completed.returncode == 2
    assert not (out / "reward.json").exists()
    assert json.loads((out / "results.json").read_text())["status"] == "error"


def test_a_check_past_its_time_limit_fails(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    rubric = {
        "items": [
            {
                "id": "slow",
                "weight": 1.0,
                "method": "deterministic",
                "check": {
                    "check": "python",
                    "timeout_s": 0.2,
                    "params": {
                        "source": "import time\ndef check(ws, args):\n    try:\n        time.sleep(5)\n"
                        "    except Exception:\n        return True\n"
                    },
                },
            },
        ]
    }

    results, _ = verify(rubric, tmp_path, tmp_path / "tests")

    item = results["items"][0]
    assert item["status"] == "failed" and item["q"] == 0.0
    assert item["evidence"]["summary"] == "the check ran past its 0.2 s limit"


def _sleeping_item(name: str, seconds: float) -> dict[str, object]:
    source = f"import time\ndef check(ws, args):\n    time.sleep({seconds})\n    return True\n"
    return {"id": name, "weight": 1.0, "method": "deterministic",
            "check": {"check": "python", "timeout_s": 30, "params": {"source": source}}}  # fmt: skip


def test_checks_share_the_time_budget_and_those_it_leaves_no_time_fail(tmp_path: Path) -> None:
    """A workspace that makes checks slow cannot make the verifier outlive its own timeout (an
    infrastructure error, never scored): the checks it leaves no time fail instead."""
    (tmp_path / "tests").mkdir()
    rubric = {"items": [_sleeping_item("quick", 0.1), _sleeping_item("slow", 5), _sleeping_item("last", 0.1)]}

    results, _ = verify(rubric, tmp_path, tmp_path / "tests", budget_s=1.0)

    quick, slow, last = results["items"]
    assert quick["status"] == "passed"
    assert slow["status"] == "failed" and "the checks' time budget ran out" in slow["evidence"]["summary"]
    assert last["status"] == "failed" and "(0 s were left for this one)" in last["evidence"]["summary"]
    assert results["reward"] == pytest.approx(1 / 3)


def test_without_a_budget_each_check_has_its_own_limit_only(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    rubric = {"items": [_sleeping_item("a", 0.3), _sleeping_item("b", 0.3)]}

    results, _ = verify(rubric, tmp_path, tmp_path / "tests")

    assert [item["status"] for item in results["items"]] == ["passed", "passed"]


def test_the_hosts_command_gives_the_checks_a_budget_inside_the_verifiers_limit() -> None:
    from skill2env.rubric.bundle import checks_budget

    command = verify_command("/workspace", budget_s=checks_budget(600))
    assert command[command.index("--time-budget") + 1] == "570"
    assert checks_budget(8) == 6
    assert "--time-budget" not in verify_command("/workspace")


def test_an_unknown_method_or_check_fails_with_its_cause(tmp_path: Path) -> None:
    rubric = {
        "items": [
            {"id": "a", "weight": 0.5, "method": "vibes"},
            {"id": "b", "weight": 0.5, "method": "deterministic", "check": {"check": "nope", "params": {}}},
        ]
    }

    results, _ = verify(rubric, tmp_path, tmp_path)

    assert [(i["status"], i["q"]) for i in results["items"]] == [("failed", 0.0), ("failed", 0.0)]
    assert all(i["error"] for i in results["items"])
    assert results["reward"] == 0 and results["scored_weight"] == 1.0 and results["complete"]


STDLIB = set(sys.stdlib_module_names) | {"rubric_checks", "checks", "judge_prompt", "openpyxl", "duckdb"}


@pytest.mark.parametrize("relative", sorted(p for p in verifier_bundle() if p.endswith(".py")))
def test_the_bundle_imports_only_the_standard_library(relative: str) -> None:
    tree = ast.parse(verifier_bundle()[relative])
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= STDLIB, imported - STDLIB


def test_the_bundle_holds_the_verifier_the_checks_the_rubric_and_test_sh() -> None:
    files = verifier_bundle(RUBRIC, with_test_sh=True, workdir="/app")

    assert {
        "verify.py",
        "judge_prompt.py",
        "test.sh",
        "rubric.json",
        "rubric_checks/__init__.py",
        "rubric_checks/csv_equals.py",
    } <= set(files)
    assert b"python3 -I /tests/verify.py" in files["test.sh"] and b"--workspace /app" in files["test.sh"]
    assert b"--no-judge" not in files["test.sh"]  # Harbor's entry point may score judge items itself
    assert Rubric.model_validate_json(files["rubric.json"]) == RUBRIC
    assert "rubric.json" not in verifier_bundle() and "test.sh" not in verifier_bundle()
    assert b"--time-budget" not in files["test.sh"]
    budgeted = verifier_bundle(RUBRIC, with_test_sh=True, budget_s=90)["test.sh"]
    assert budgeted.decode().splitlines()[-1].endswith("--workspace /workspace --out /logs/verifier --time-budget 90")


def test_the_stdlib_side_agrees_with_the_model_on_reserved_names() -> None:
    from skill2env.rubric import verify_main
    from skill2env.rubric.models import RESERVED_ITEM_IDS, TASK_SCRIPT_CHECK

    assert set(verify_main.RESERVED_KEYS) == RESERVED_ITEM_IDS
    assert verify_main.TASK_SCRIPT_CHECK == TASK_SCRIPT_CHECK


def test_the_stdlib_side_agrees_with_the_host_on_scoring_constants() -> None:
    from skill2env.rubric import bundle, judge_prompt, verify_main
    from skill2env.rubric.results import FULL_CREDIT_AT, JUDGE_PASS_Q

    assert verify_main.FULL_CREDIT_AT == FULL_CREDIT_AT
    assert judge_prompt.JUDGE_PASS_Q == JUDGE_PASS_Q
    assert verify_main.NO_JUDGE_FLAG == bundle.NO_JUDGE_FLAG
    # The stdlib-only copies (shipped alone into sandboxes) hold the thresholds module's values.
    from skill2env import thresholds

    assert verify_main.FULL_CREDIT_AT == thresholds.FULL_CREDIT_AT
    assert judge_prompt.JUDGE_PASS_Q == thresholds.JUDGE_PASS_Q


def test_the_hosts_command_never_lets_the_verifier_ask_a_judge() -> None:
    from skill2env.rubric.bundle import NO_JUDGE_FLAG

    assert verify_command("/w")[-1] == NO_JUDGE_FLAG
    assert NO_JUDGE_FLAG not in verify_command("/w", judge=True)


def test_a_written_bundle_gives_the_checks_a_budget_inside_the_tasks_verifier_timeout(tmp_path: Path) -> None:
    write_bundle(tmp_path, RUBRIC, verifier_timeout_s=120)

    assert (tmp_path / "test.sh").read_text().splitlines()[-1].endswith("--time-budget 90")
