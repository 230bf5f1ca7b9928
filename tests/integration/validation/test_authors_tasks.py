"""The Skill2Env authors' published tasks in real (bwrap) sandboxes: their own verify.py scores the
deterministic items from the final workspace, the judge role the judged ones, under the project's
scoring rule; and the gates run on them, the oracle gate saying why it cannot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harbor_tasks import require_backend

from skill2env.rubric.evaluate import verify_workspace
from skill2env.rubric.judge import FunctionJudge, Judge, JudgeRequest, JudgeVerdict
from skill2env.rubric.models import Rubric
from skill2env.rubric.results import ItemStatus, VerificationResult
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.exchange import load_task
from skill2env.validation.gates import Acceptance, Gate, GateStatus, validate_task

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]
BACKEND: BackendName = "bwrap"
AUTHORS = Path(__file__).resolve().parents[2] / "fixtures" / "skill2env_authors"

RIGHT_TOTALS = '{"paid": 178.0, "unpaid": 380.5, "by_client": {"Acme": 200.5, "Birch": 342.25, "Cedar": 15.75}}'
WRONG_TOTALS = '{"paid": 178.0, "unpaid": 300.0, "by_client": {"Acme": 200.5, "Birch": 342.25, "Cedar": 0}}'


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    require_backend(BACKEND)


def _note_judge(request: JudgeRequest, seed: int) -> JudgeVerdict:
    """1 when the note names Birch with its amount, 0.5 for Birch alone, else 0 (the item's own instruction)."""
    text = " ".join(f.text for f in request.files)
    return JudgeVerdict(score=(1.0 if "300" in text else 0.5) if "Birch" in text else 0.0)


def _rubric(name: str) -> Rubric:
    rubric = load_task(AUTHORS / name).rubric
    assert rubric is not None
    return rubric


def _verify(name: str, files: dict[str, str], tmp_path: Path, judge: Judge | None = None) -> VerificationResult:
    """The task's initial workspace with `files` written over it, verified in a fresh sandbox."""
    task = TaskDir(AUTHORS / name)
    workspace = tmp_path / "workspace"
    shutil.copytree(task.workspace_dir, workspace)
    for relative, text in files.items():
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(text)
    sandbox = make_sandbox(BACKEND, SandboxLimits.for_task(task))
    return verify_workspace(workspace, task, _rubric(name), sandbox, judge=judge)


def _q(result: VerificationResult) -> dict[str, float | None]:
    return {r.item_id: r.q for r in result.items}


def test_a_correct_workspace_scores_through_the_tasks_own_verify_py(tmp_path: Path) -> None:
    note = "Dear account manager: Birch has the largest unpaid balance, 300.00.\n"
    result = _verify("invoice-totals", {"output/totals.json": RIGHT_TOTALS, "output/notes.md": note}, tmp_path,
                     FunctionJudge(_note_judge))  # fmt: skip

    assert result.status == "scored" and result.mode == "task_script", result.error
    assert _q(result) == {"status_totals": 1.0, "client_totals": 1.0, "manager_note": 1.0}
    assert result.reward == pytest.approx(1.0) and result.complete and result.passed
    assert result.item("client_totals").evidence["detail"] == "3/3 client totals right"
    assert result.item("status_totals").evidence["script_score"] == 1.0
    assert "no tests/test.sh: ran tests/verify.py directly" in result.verifier_log


def test_a_wrong_workspace_gets_its_per_item_scores_and_the_weighted_reward(tmp_path: Path) -> None:
    note = "Birch owes the most.\n"
    result = _verify("invoice-totals", {"output/totals.json": WRONG_TOTALS, "output/notes.md": note}, tmp_path,
                     FunctionJudge(_note_judge))  # fmt: skip

    assert result.status == "scored", result.error
    assert _q(result) == {"status_totals": 0.0, "client_totals": pytest.approx(2 / 3), "manager_note": 0.5}
    assert result.item("status_totals").status == ItemStatus.failed
    assert result.item("status_totals").evidence["detail"] == "paid=178.0 unpaid=300.0"
    # Σ w·q / Σ w over every item: 0.4·0 + 0.3·2/3 + 0.3·0.5
    assert result.reward == pytest.approx(0.35) and result.complete and not result.passed


def test_without_a_judge_the_judged_item_is_unscored_and_counts_zero(tmp_path: Path) -> None:
    result = _verify("invoice-totals", {"output/totals.json": RIGHT_TOTALS}, tmp_path)

    assert _q(result) == {"status_totals": 1.0, "client_totals": 1.0, "manager_note": None}
    assert result.item("manager_note").status == ItemStatus.unscored
    assert result.reward == pytest.approx(0.7) and not result.complete and not result.passed


def test_a_verify_py_that_crashes_fails_the_deterministic_items_with_the_reason(tmp_path: Path) -> None:
    # Its verify.py guards the read but not the shape: a JSON list makes it raise AttributeError.
    result = _verify("invoice-totals", {"output/totals.json": "[1, 2]", "output/notes.md": "Birch, 300.\n"}, tmp_path,
                     FunctionJudge(_note_judge))  # fmt: skip

    assert result.status == "scored", result.error  # the agent's doing, not an infrastructure error
    for item_id in ("status_totals", "client_totals"):
        failed = result.item(item_id)
        assert failed.status == ItemStatus.failed and failed.q == 0.0
        assert "exited 1 and reported no scores" in (failed.error or "") and "AttributeError" in (failed.error or "")
    assert result.item("manager_note").q == 1.0 and result.reward == pytest.approx(0.3)


def test_a_test_sh_calling_a_missing_file_is_bypassed_for_verify_py(tmp_path: Path) -> None:
    solved = _verify("log-errors", {"errors.json": '{"count": 4, "codes": ["E101", "E204", "E305"]}'},
                     tmp_path / "solved")  # fmt: skip
    partly = _verify("log-errors", {"errors.json": '{"count": 3}'}, tmp_path / "partly")

    assert solved.status == "scored" and _q(solved) == {"error_count": 1.0, "error_codes": 1.0}, solved.error
    assert solved.reward == pytest.approx(1.0) and solved.passed
    note = "tests/test.sh calls /tests/run_checks.py, which the task does not contain: ran tests/verify.py directly"
    assert note in solved.verifier_log and solved.item("error_count").evidence["note"] == note
    # verify.py reports only the checks whose key it found: the other item fails, saying so.
    assert _q(partly) == {"error_count": 0.0, "error_codes": 0.0} and partly.reward == pytest.approx(0.0)
    missing = partly.item("error_codes")
    assert missing.status == ItemStatus.failed
    assert missing.error == "the task's verification script reported no score for this item (it scored ['error_count'])"


def test_per_item_scores_are_clamped_to_one(tmp_path: Path) -> None:
    rows = "owner,task,due\n" + "Dana,send the revised budget,2024-06-07\n" * 2
    rows += "Luis,book the venue,2024-06-14\nMei,draft the press release,2024-06-21\n"
    result = _verify("meeting-actions", {"actions.csv": rows}, tmp_path)

    item = result.item("actions_csv")
    assert item.evidence["value"] == pytest.approx(4 / 3) and item.q == 1.0  # its script over-counts a duplicate
    assert item.evidence["detail"] == "4 of 3 action items found"


def test_the_gates_run_and_the_oracle_gate_says_why_it_cannot(tmp_path: Path) -> None:
    task_dir = tmp_path / "log-errors"
    shutil.copytree(AUTHORS / "log-errors", task_dir)
    validation = validate_task("log-errors", task_dir, _rubric("log-errors"), backend=BACKEND)
    outcomes = {o.gate: o for o in validation.outcomes}

    oracle, partial = outcomes[Gate.oracle], outcomes[Gate.partial]
    assert oracle.status == GateStatus.skipped and oracle.reward is None
    assert oracle.evidence.startswith("the task has no solution/solve.sh") and "cannot run" in oracle.evidence
    assert partial.status == GateStatus.skipped and "no solution/solve.sh" in partial.evidence
    nop = outcomes[Gate.nop]
    assert nop.status == GateStatus.passed and nop.reward == 0.0, nop.evidence
    assert nop.item_rewards == {"error_count": 0.0, "error_codes": 0.0}
    probe = outcomes[Gate.hack_probe]
    assert probe.status == GateStatus.passed and validation.probes, probe.evidence  # probed, not skipped
    assert outcomes[Gate.judge].status == GateStatus.skipped  # no judge items
    assert validation.accepted and validation.acceptance == Acceptance.accepted_without_oracle
