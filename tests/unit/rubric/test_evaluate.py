"""The host-side sequence against a scripted sandbox: every infrastructure failure is `infra_error`
(never reward 0), and what the verifier reports is read defensively."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from rubric_helpers import rubric_task, task_rubric

from skill2env.rubric.evaluate import verify_in_sandbox, verify_workspace
from skill2env.rubric.judge import FunctionJudge, JudgeVerdict
from skill2env.rubric.results import ItemStatus
from skill2env.sandbox.base import ExecResult, Sandbox
from skill2env.sandbox.errors import (
    SandboxBroken,
    SandboxCrashed,
    SandboxPathError,
    SandboxTimeout,
    SandboxUnavailable,
)
from skill2env.sandbox.task import TaskDir

TASK = rubric_task()
RUBRIC = task_rubric(TASK)
Handler = Callable[[list[str], str], ExecResult]


def ok(stdout: str = "") -> ExecResult:
    return ExecResult(exit_code=0, stdout=stdout, duration_s=0.01)


class ScriptedSandbox(Sandbox):
    """A sandbox whose commands answer from `handler` and whose files live in a dict."""

    backend = "scripted"

    def __init__(self, handler: Handler, files: dict[str, bytes] | None = None) -> None:
        super().__init__()
        self.handler = handler
        self.files = files or {}
        self.commands: list[list[str]] = []
        self.copied: list[tuple[set[str], str]] = []
        self.stopped = False

    def start(self, task: TaskDir) -> None:
        self._task = task

    def exec(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = 120,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        user: str = "agent",
    ) -> ExecResult:
        argv = ["bash", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        self.commands.append(argv)
        return self.handler(argv, user)

    def read_file(self, path: str) -> bytes:
        if path not in self.files:
            raise SandboxPathError(f"{path} is not a regular file in the sandbox")
        return self.files[path]

    def write_file(self, path: str, data: bytes | str) -> None:
        self.files[path] = data.encode() if isinstance(data, str) else data

    def copy_in(self, source: Path, destination: str) -> None:
        self.copied.append(({p.name for p in source.iterdir()}, destination))

    def copy_out(self, source: str, destination: Path) -> None:
        destination.mkdir(parents=True)

    def stop(self) -> None:
        self.stopped = True


def verifier_results(items: list[dict[str, Any]]) -> dict[str, bytes]:
    results = {"status": "scored", "items": items}
    return {
        "/logs/verifier/results.json": json.dumps(results).encode(),
        "/logs/verifier/judge_inputs.json": json.dumps({"report_quality": {"files": [], "listing": []}}).encode(),
    }


def passing_items() -> list[dict[str, Any]]:
    return [
        {"id": item.id, "status": "passed", "q": 1.0, "evidence": {"summary": "ok"}}
        for item in RUBRIC.items
        if item.method == "deterministic"
    ]


def started(handler: Handler, files: dict[str, bytes] | None = None) -> ScriptedSandbox:
    sandbox = ScriptedSandbox(handler, files)
    sandbox.start(TASK)
    return sandbox


def test_a_clean_run_reads_the_verifiers_results() -> None:
    sandbox = started(lambda argv, user: ok("verify: reward 1.0"), verifier_results(passing_items()))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC)

    assert (
        result.status == "scored" and result.reward == pytest.approx(0.8) and result.scored_weight == pytest.approx(0.8)
    )
    assert result.item("report_quality").status == ItemStatus.unscored and not result.complete
    assert result.verifier_log == "verify: reward 1.0"
    # the reset ran first and as root; the verifier ran as root with isolated Python
    assert sandbox.commands[0][:2] == ["bash", "-c"] and "rm -rf /logs/verifier" in sandbox.commands[0][2]
    assert sandbox.commands[1][:3] == ["python3", "-I", "/tests/verify.py"]
    assert sandbox.copied[0][1] == "/tests"
    assert sandbox.copied[0][0] >= {"verify.py", "rubric_checks", "rubric.json", "test.sh"}
    written = json.loads(sandbox.files["/logs/verifier/reward.json"])
    assert written["reward"] == pytest.approx(0.8) and "report_quality" not in written


def test_the_judge_fills_judge_items() -> None:
    sandbox = started(lambda argv, user: ok(), verifier_results(passing_items()))
    judge = FunctionJudge(lambda request, seed: JudgeVerdict(score=0.5, quotes=[], reasoning="ok"))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC, judge=judge)

    assert result.complete and result.flags == []
    assert result.reward == pytest.approx(0.8 + 0.2 * 0.5)
    assert json.loads(sandbox.files["/logs/verifier/reward.json"]) == {"reward": pytest.approx(0.9)}
    written = json.loads(sandbox.files["/logs/verifier/verification.json"])
    assert {i["item_id"]: i["q"] for i in written["items"]}["report_quality"] == 0.5


def crash_on(word: str, error: Exception) -> Handler:
    def handler(argv: list[str], user: str) -> ExecResult:
        if any(word in part for part in argv):
            raise error
        return ok()

    return handler


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (crash_on("rm -rf", SandboxCrashed("container gone")), "SandboxCrashed: container gone"),
        (crash_on("verify.py", SandboxTimeout("too slow", ok())), "the verifier ran past its timeout"),
        (
            lambda argv, user: ExecResult(exit_code=1 if "-I" in argv else 0, stderr="Traceback", duration_s=0.1),
            "the verifier exited 1: Traceback",
        ),
    ],
)
def test_infrastructure_failures_are_infra_errors_never_zero(handler: Handler, message: str) -> None:
    result = verify_in_sandbox(started(handler, verifier_results(passing_items())), TASK, RUBRIC)

    assert result.status == "infra_error" and result.reward is None and result.items == []
    assert message in (result.error or "")


def test_a_verification_sandbox_broken_by_the_deliverables_fails_every_item_instead_of_excusing_them() -> None:
    handler = crash_on("verify.py", SandboxBroken("the command server was OOM-killed"))

    result = verify_in_sandbox(started(handler, verifier_results(passing_items())), TASK, RUBRIC)

    assert result.status == "scored" and result.reward == 0.0 and not result.full_credit
    assert all(r.status == ItemStatus.failed and "OOM-killed" in (r.error or "") for r in result.items)


def test_a_task_script_kept_past_its_limit_by_the_workspace_fails_the_items_instead_of_excusing_them() -> None:
    # The sandbox killed the task's own script on time and answered: what the script ran on the
    # final workspace (the agent's program) took the time, so the attempt is scored, not excused.
    sandbox = started(crash_on("test.sh", SandboxTimeout("ran past its 5 s timeout", ok("checking output/"))))
    judge = FunctionJudge(lambda request, seed: JudgeVerdict(score=1.0, quotes=[], reasoning="fine"))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC, mode="task_script", timeout_s=5, judge=judge)

    assert result.status == "scored" and result.mode == "task_script" and not result.passed
    deterministic = [r for r in result.items if r.method == "deterministic"]
    assert deterministic and all(r.status == ItemStatus.failed and r.q == 0.0 for r in deterministic)
    assert all("ran past the verifier's 5 s limit on the final workspace" in (r.error or "") for r in deterministic)
    assert result.item("report_quality").q == 1.0  # the judge still reads the deliverables
    assert result.reward == pytest.approx(0.2) and "checking output/" in result.verifier_log


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"/logs/verifier/results.json": b"{half", "/logs/verifier/judge_inputs.json": b"{}"},
        {"/logs/verifier/results.json": b'{"status": "error"}', "/logs/verifier/judge_inputs.json": b"{}"},
    ],
)
def test_missing_or_unreadable_results_are_infra_errors(files: dict[str, bytes]) -> None:
    result = verify_in_sandbox(started(lambda argv, user: ok(), files), TASK, RUBRIC)

    assert result.status == "infra_error" and result.reward is None


def test_a_verifier_that_reported_no_result_for_an_item_broke_so_the_attempt_is_unscored() -> None:
    items = passing_items()
    del items[1]
    sandbox = started(lambda argv, user: ok(), verifier_results(items))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC)

    assert result.status == "infra_error" and "reported no result for item summary_values" in (result.error or "")


def test_a_verifier_status_other_than_passed_or_failed_is_an_infra_error() -> None:
    items = passing_items()
    items[0]["status"] = "error"
    sandbox = started(lambda argv, user: ok(), verifier_results(items))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC)

    assert result.status == "infra_error" and "status 'error'" in (result.error or "")


def test_a_failed_item_keeps_its_cause_and_q_comes_from_the_status() -> None:
    items = passing_items()
    items[0].update(status="failed", q=7, error="the check raised RecursionError")
    sandbox = started(lambda argv, user: ok(), verifier_results(items))

    result = verify_in_sandbox(sandbox, TASK, RUBRIC)

    failed = result.item("revenue_table")
    assert failed.status == ItemStatus.failed and failed.q == 0.0 and failed.error == "the check raised RecursionError"


def test_a_sandbox_that_cannot_start_is_an_infra_error_and_is_stopped(tmp_path: Path) -> None:
    class Unavailable(ScriptedSandbox):
        def start(self, task: TaskDir) -> None:
            raise SandboxUnavailable("no engine")

    sandbox = Unavailable(lambda argv, user: ok())

    result = verify_workspace(tmp_path, TASK, RUBRIC, sandbox)

    assert result.status == "infra_error" and "no engine" in (result.error or "") and sandbox.stopped


def test_a_workspace_that_cannot_be_cleared_is_an_infra_error(tmp_path: Path) -> None:
    sandbox = ScriptedSandbox(lambda argv, user: ExecResult(exit_code=1, stderr="denied", duration_s=0.1))

    result = verify_workspace(tmp_path, TASK, RUBRIC, sandbox)

    assert result.status == "infra_error" and "clearing the workspace failed: denied" in (result.error or "")


def test_a_judge_item_whose_files_were_not_collected_is_an_error_not_a_guess() -> None:
    files = verifier_results(passing_items())
    files["/logs/verifier/judge_inputs.json"] = json.dumps({"report_quality": {"error": "PermissionError"}}).encode()
    judge = FunctionJudge(lambda request, seed: JudgeVerdict(score=1.0))

    result = verify_in_sandbox(started(lambda argv, user: ok(), files), TASK, RUBRIC, judge=judge)

    judged = result.item("report_quality")
    assert judged.status == ItemStatus.error and "could not be collected: PermissionError" in (judged.error or "")
