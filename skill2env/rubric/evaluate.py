"""Host-side verification of one rollout: isolated, after the agent finished, on its final workspace.

The sequence (`verify_in_sandbox`), on a sandbox the agent no longer acts in:

1. discard whatever the agent left in /logs/verifier (a forged reward.json included) and in /tests;
2. copy the task's tests/ — and the rubric verifier with its expected values — in only now;
3. run the verifier as root, with isolated Python, from /tests (where the agent could not write);
4. read its results, fill the judge items through the judge role (or leave them `unscored`);
5. score: r = Σ w·q over the scored items, flagged when partial; write Harbor's reward.json back.

`verify_workspace` does it in a *fresh* sandbox the agent never touched, from the task's clean
image, holding a copy of the final workspace as data (regular files and directories only; links
and special files are refused at the copy): nothing the agent did outside its workspace (files in
/tmp, /tests or /logs, processes left running, tools on a writable PATH) can reach the verifier.
`verify_rollout` copies the workspace out of the agent's sandbox and does that. A failure of the
verification machinery (sandbox, engine, the verifier itself) is `infra_error`, never reward 0; a
check that fails on what the agent wrote is a failed item, never an excused one.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from skill2env.rubric.bundle import TESTS_MOUNT, VERIFIER_LOGS, checks_budget, verifier_bundle, verify_command
from skill2env.rubric.checks import judge_inputs
from skill2env.rubric.eval_spec import (
    last_json_line,
    missing_test_references,
    script_item_details,
    script_item_values,
)
from skill2env.rubric.judge import DEFAULT_SEED, Judge, judge_item
from skill2env.rubric.models import TASK_SCRIPT_CHECK, Method, Rubric, RubricItem
from skill2env.rubric.results import ItemResult, ItemStatus, VerificationResult
from skill2env.sandbox import ExecResult, Sandbox, SandboxError, SandboxTimeout, TaskDir
from skill2env.sandbox.base import AGENT_USER, ROOT_USER
from skill2env.sandbox.errors import SandboxBroken

Mode = Literal["checks", "task_script"]
RESET_SCRIPT = (
    f"rm -rf {VERIFIER_LOGS} && mkdir -p {VERIFIER_LOGS} && "
    f'test -z "$(ls -A {VERIFIER_LOGS})"; status=$?; '
    f"find {TESTS_MOUNT} -mindepth 1 -delete 2>/dev/null; exit $status"
)
"""Clears /logs/verifier (must succeed) and /tests (where writable: a bwrap sandbox mounts it
read-only, and nobody but the host can have written it)."""
PREPARE_FAILED = "preparing the verification sandbox failed"
NO_JUDGE = "no judge endpoint is configured; the item is left unscored"
LOG_TAIL_CHARS = 4000
VERIFY_PY = "verify.py"
"""The Skill2Env authors' verification script in tests/ (run directly when test.sh cannot be)."""


class VerifierInfraError(RuntimeError):
    """The verification machinery failed (not the agent): becomes `infra_error`."""


def verify_in_sandbox(
    sandbox: Sandbox,
    task_dir: TaskDir | Path,
    rubric: Rubric,
    *,
    judge: Judge | None = None,
    judge_repeats: int = 1,
    judge_seed: int = DEFAULT_SEED,
    mode: Mode | None = None,
    timeout_s: float | None = None,
    write_back: bool = True,
) -> VerificationResult:
    """Verify the started `sandbox`'s workspace against `rubric` (see the module's sequence).

    `mode` `checks` runs the rubric's checks; `task_script` runs the task's own verification
    (tests/test.sh, or the Skill2Env authors' tests/verify.py from the final workspace: see
    `task_script_command`) and reads per-item values from what it reports; by default it is
    `task_script` when the rubric's deterministic items are all `task_script` checks. Never raises
    for an infrastructure failure: that is the result's `infra_error`.
    """
    task = task_dir if isinstance(task_dir, TaskDir) else TaskDir(task_dir)
    chosen: Mode = mode or default_mode(rubric)
    started = time.perf_counter()
    context: dict[str, Any] = {"backend": sandbox.backend, "sandbox_mode": sandbox.mode,
                               "rollout_id": sandbox.rollout_id, "mode": chosen}  # fmt: skip
    try:
        limit = timeout_s or task.verifier_timeout_sec
        if chosen == "checks":
            deterministic, inputs, log = _run_checks(sandbox, task, rubric, limit)
        else:
            deterministic, inputs, log = _run_task_script(sandbox, task, rubric, limit)
    except SandboxTimeout as exc:
        return VerificationResult.infra_error(
            f"the verifier ran past its timeout: {exc}", duration_s=time.perf_counter() - started, **context
        )
    except SandboxBroken as exc:
        # What broke the sandbox ran on the agent's deliverables (e.g. a file that made the verifier
        # exhaust the sandbox's memory): every item fails with the cause; the attempt is not excused.
        why = f"the verification sandbox broke on the final workspace: {exc}"
        failed = [ItemResult.failed(item, why) for item in rubric.items]
        return VerificationResult.scored_from(rubric, failed, duration_s=time.perf_counter() - started, **context)
    except (SandboxError, VerifierInfraError, OSError) as exc:
        return VerificationResult.infra_error(
            f"{type(exc).__name__}: {exc}", duration_s=time.perf_counter() - started, **context
        )
    items = [
        deterministic[item.id]
        if item.method == Method.deterministic
        else judged_item(item, inputs, judge, judge_repeats, judge_seed)
        for item in rubric.items
    ]
    result = VerificationResult.scored_from(
        rubric, items, verifier_log=log, duration_s=time.perf_counter() - started, **context
    )
    if write_back:
        _write_back(sandbox, result)
    return result


def verify_workspace(
    workspace: Path, task_dir: TaskDir | Path, rubric: Rubric, sandbox: Sandbox, **options: Any
) -> VerificationResult:
    """Start `sandbox` (fresh, never used) on the task, replace its workspace with a copy of
    `workspace` (a host directory: the agent's final workspace), verify, stop."""
    task = task_dir if isinstance(task_dir, TaskDir) else TaskDir(task_dir)
    started = time.perf_counter()
    try:
        sandbox.start(task)
        refused = load_workspace(sandbox, workspace)
    except (SandboxError, VerifierInfraError, OSError) as exc:
        _stop(sandbox)
        return VerificationResult.infra_error(
            f"{PREPARE_FAILED}: {type(exc).__name__}: {exc}",
            backend=sandbox.backend,
            sandbox_mode=sandbox.mode,
            rollout_id=sandbox.rollout_id,
            duration_s=time.perf_counter() - started,
        )
    try:
        result = verify_in_sandbox(sandbox, task, rubric, **options)
    finally:
        stopped = _stop(sandbox)
    if refused:
        result.verifier_log = f"{refused_note(refused)}\n{result.verifier_log}"
    if stopped:
        result.verifier_log = f"{result.verifier_log}\n[{stopped}]".strip()
    result.isolation = "fresh"
    result.duration_s = time.perf_counter() - started
    return result


def verify_rollout(
    agent_sandbox: Sandbox, task_dir: TaskDir | Path, rubric: Rubric, fresh: Sandbox, **options: Any
) -> VerificationResult:
    """Copy the final workspace out of the agent's (started) sandbox and verify it in `fresh`.

    Never in the agent's own sandbox: when the copy fails part-way (the agent left something the
    backend refuses to archive), what was copied is verified, and the result says so — the agent's
    workspace is its own doing, so a broken copy fails items instead of excusing the attempt.
    """
    with tempfile.TemporaryDirectory(prefix="skill2env-verify-") as scratch:
        copied = Path(scratch) / "workspace"
        problem = ""
        try:
            agent_sandbox.copy_out(agent_sandbox.workspace, copied)
        except Exception as exc:  # the backend's copy failed: an archive it refused, a special file
            problem = f"copying the final workspace out failed ({type(exc).__name__}: {exc}); verified what was copied"
        copied.mkdir(exist_ok=True)
        result = verify_workspace(copied, task_dir, rubric, fresh, **options)
    if problem:
        result.verifier_log = f"[{problem}]\n{result.verifier_log}".strip()
    return result


def _stop(sandbox: Sandbox) -> str:
    """Stop a verification sandbox; a failure to tear it down is reported, not raised (the verdict stands)."""
    try:
        sandbox.stop()
    except SandboxError as exc:
        return f"stopping the verification sandbox failed: {exc}"
    return ""


def load_workspace(sandbox: Sandbox, workspace: Path) -> list[str]:
    """Replace the sandbox's workspace (as built from the task) with the files of `workspace`, as data.

    Only regular files and directories are copied. Links (wherever they point) and special files
    (pipes, sockets, devices) are refused: none is a deliverable, a link could make a check read
    what the agent chose outside its workspace, and a pipe could stall the verifier. Returns the
    refused paths (the caller records them); a deliverable that was a link is then simply missing.
    """
    cleared = sandbox.exec(["find", sandbox.workspace, "-mindepth", "1", "-delete"], user=AGENT_USER, timeout=120)
    if not cleared.ok:
        raise VerifierInfraError(f"clearing the workspace failed: {cleared.stderr.strip()[-500:]}")
    refused = refused_paths(workspace)
    if not any(workspace.iterdir()):
        return refused
    if not refused:
        sandbox.copy_in(workspace, sandbox.workspace)
        return refused
    with tempfile.TemporaryDirectory(prefix="skill2env-stage-") as scratch:
        staged = Path(scratch) / "workspace"
        shutil.copytree(workspace, staged, symlinks=True, ignore=_refused_names)
        sandbox.copy_in(staged, sandbox.workspace)
    return refused


def refused_note(refused: Sequence[str]) -> str:
    """The line a result's verifier log starts with when a workspace held links or special files."""
    shown = ", ".join(refused[:20]) + (f" and {len(refused) - 20} more" if len(refused) > 20 else "")
    return f"[not copied in (links and special files are never data): {shown}]"


def _refused_names(directory: str, names: list[str]) -> set[str]:
    return {name for name in names if not _is_data(Path(directory, name))}


def _is_data(path: Path) -> bool:
    """A regular file or a directory, not through a link."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


def _listed_as_data(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False)


def not_data(workspace: Path) -> list[Path]:
    """Every link and special file under `workspace`, folder by folder, in name order; linked
    folders are never entered."""
    refused, folders = [], [str(workspace)]
    while folders:
        try:
            with os.scandir(folders.pop()) as listed:  # the entries' types come with the listing: no stat each
                entries = sorted(listed, key=lambda entry: entry.name)
        except OSError:  # as os.walk: a folder that cannot be listed is not entered
            continue
        inner = [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        refused += [Path(entry.path) for entry in entries if not _listed_as_data(entry)]
        folders += reversed(inner)
    return refused


def refused_paths(workspace: Path) -> list[str]:
    """What `load_workspace` refuses in `workspace` (links and special files), relative to it."""
    return [path.relative_to(workspace).as_posix() for path in not_data(workspace)]


# -- the two ways deterministic items are scored -------------------------------------------------------


def default_mode(rubric: Rubric) -> Mode:
    checks = [item.check.check for item in rubric.items if item.check is not None]
    return "task_script" if checks and all(c == TASK_SCRIPT_CHECK for c in checks) else "checks"


def reset_verifier_dirs(sandbox: Sandbox) -> None:
    reset = sandbox.exec(["bash", "-c", RESET_SCRIPT], user=ROOT_USER, cwd="/", timeout=60)
    if not reset.ok:
        raise VerifierInfraError(f"clearing {VERIFIER_LOGS} failed: {reset.stderr.strip()[-500:]}")


def install_tests(sandbox: Sandbox, task: TaskDir, rubric: Rubric | None) -> None:
    """Copy tests/ in (with the rubric verifier over it, given a rubric) in one transfer."""
    with tempfile.TemporaryDirectory(prefix="skill2env-tests-") as scratch:
        staged = Path(scratch) / "tests"
        if task.tests_dir.is_dir():
            shutil.copytree(task.tests_dir, staged, symlinks=True)
        staged.mkdir(exist_ok=True)
        if rubric is not None:  # the current verifier and the rubric given, over whatever the task ships
            for relative, data in verifier_bundle(rubric).items():
                (staged / relative).parent.mkdir(parents=True, exist_ok=True)
                (staged / relative).write_bytes(data)
        sandbox.copy_in(staged, TESTS_MOUNT)


def _read_json(sandbox: Sandbox, name: str) -> Any:
    path = f"{VERIFIER_LOGS}/{name}"
    try:
        return json.loads(sandbox.read_file(path))
    except SandboxError as exc:
        raise VerifierInfraError(f"the verifier left no readable {path}: {exc}") from exc
    except ValueError as exc:
        raise VerifierInfraError(f"{path} is not JSON: {exc}") from exc


def log_tail(stdout: str, stderr: str) -> str:
    text = (stdout + ("\n" + stderr if stderr else "")).strip()
    return text[-LOG_TAIL_CHARS:]


def _run_checks(
    sandbox: Sandbox, task: TaskDir, rubric: Rubric, limit: float
) -> tuple[dict[str, ItemResult], dict[str, Any], str]:
    reset_verifier_dirs(sandbox)
    install_tests(sandbox, task, rubric)
    budget = checks_budget(limit)
    run = sandbox.exec(verify_command(sandbox.workspace, budget_s=budget), user=ROOT_USER, cwd=TESTS_MOUNT,
                       timeout=limit)  # fmt: skip
    log = log_tail(run.stdout, run.stderr)
    if run.exit_code != 0:
        raise VerifierInfraError(f"the verifier exited {run.exit_code}: {log[-800:]}")
    results = _read_json(sandbox, "results.json")
    inputs = _read_json(sandbox, "judge_inputs.json")
    if not isinstance(results, dict) or results.get("status") != "scored" or not isinstance(results.get("items"), list):
        raise VerifierInfraError(f"the verifier's results are not a scored result set: {str(results)[:300]}")
    by_id = {entry.get("id"): entry for entry in results["items"] if isinstance(entry, dict)}
    deterministic = {
        item.id: from_verifier(item, by_id.get(item.id)) for item in rubric.items if item.method == Method.deterministic
    }
    return deterministic, inputs if isinstance(inputs, dict) else {}, log


def from_verifier(item: RubricItem, entry: dict[str, Any] | None) -> ItemResult:
    """A deterministic item's result as the in-environment verifier reported it: `passed` or
    `failed`. Anything else means the verifier itself broke, so the whole attempt is unscored."""
    if entry is None:
        raise VerifierInfraError(f"the verifier reported no result for item {item.id}")
    evidence: dict[str, Any] = entry["evidence"] if isinstance(entry.get("evidence"), dict) else {}
    status = entry.get("status")
    if status not in (ItemStatus.passed, ItemStatus.failed):
        raise VerifierInfraError(f"the verifier reported status {status!r} for deterministic item {item.id}")
    try:
        return ItemResult(
            item_id=item.id,
            method=item.method,
            weight=item.weight,
            status=ItemStatus(status),
            q=1.0 if status == ItemStatus.passed else 0.0,
            evidence=evidence,
            error=str(entry["error"]) if entry.get("error") else None,
            duration_s=float(entry.get("duration_s") or 0.0),
        )
    except (ValidationError, TypeError, ValueError) as exc:
        raise VerifierInfraError(f"the verifier's result for item {item.id} is malformed: {exc}") from exc


def task_script_command(task: TaskDir) -> tuple[list[str], str]:
    """How the task's own verification runs, and a note on the choice ("" when plain).

    `tests/test.sh` when it exists and every file of tests/ it calls is there; else the authors'
    `tests/verify.py` directly (their published tasks usually ship no test.sh, or one that calls a
    file the task does not contain). Isolated from the environment's PYTHON* variables and user
    site; the script's own folder stays importable.

    Raises:
        VerifierInfraError: the task has neither (nothing can score its deterministic items).
    """
    test_sh, verify_py = task.test_script, task.tests_dir / VERIFY_PY
    python = ["python3", "-E", "-s", f"{TESTS_MOUNT}/{VERIFY_PY}"]
    if test_sh.is_file():
        try:
            missing = missing_test_references(test_sh.read_text(encoding="utf-8", errors="replace"), task.tests_dir)
        except OSError as exc:
            raise VerifierInfraError(f"tests/test.sh cannot be read: {exc}") from exc
        if not missing:
            return ["bash", f"{TESTS_MOUNT}/test.sh"], ""
        lacking = f"tests/test.sh calls {', '.join(missing)}, which the task does not contain"
        if verify_py.is_file():
            return python, f"{lacking}: ran tests/{VERIFY_PY} directly"
        return ["bash", f"{TESTS_MOUNT}/test.sh"], lacking
    if verify_py.is_file():
        return python, f"no tests/test.sh: ran tests/{VERIFY_PY} directly, from the final workspace"
    raise VerifierInfraError(f"the task has neither tests/test.sh nor tests/{VERIFY_PY} to score its items")


def _run_task_script(
    sandbox: Sandbox, task: TaskDir, rubric: Rubric, limit: float
) -> tuple[dict[str, ItemResult], dict[str, Any], str]:
    """The task's own verification scores the deterministic items, run the way its authors run it:
    from the final workspace, its report read from stdout's last JSON line (`per_item`, `checks`),
    else from the reward file it wrote. A script that crashes or reports nothing fails the items
    with the reason (the agent's deliverables may well have broken it); judge inputs are read on
    the host from a copy of the workspace (the task's tests/ stays exactly the authors')."""
    command, note = task_script_command(task)
    inputs = _host_judge_inputs(sandbox, rubric)
    reset_verifier_dirs(sandbox)
    install_tests(sandbox, task, None)
    try:
        run = sandbox.exec(command, user=ROOT_USER, cwd=sandbox.workspace, timeout=limit)
    except SandboxTimeout as exc:
        # The sandbox killed the script on time and answered, so the machinery works: the time went
        # into what the script ran on the final workspace (the agent's program, its files). Excusing it
        # as infra_error would let an attempt that hangs its own verification escape its 0.
        why = f"the task's verification script ran past the verifier's {limit:g} s limit on the final workspace"
        evidence = {"source": "the task's verification script", "command": " ".join(command), "timed_out": True}
        failed = {item.id: ItemResult.failed(item, why, evidence) for item in rubric.items
                  if item.method == Method.deterministic}  # fmt: skip
        return failed, inputs, _script_log(exc.result, note)
    log = _script_log(run, note)
    report = last_json_line(run.stdout)
    document: Any = report if report is not None else _script_rewards(sandbox)
    ids = [item.id for item in rubric.items if item.method == Method.deterministic]
    values = script_item_values(document, ids)
    details = script_item_details(document)
    source = {"source": "the task's verification script", "command": " ".join(command), "exit_code": run.exit_code}
    if note:
        source["note"] = note
    if isinstance(document, dict):
        source["script_score"] = document.get("score", document.get("reward"))
    deterministic = {}
    for item in rubric.items:
        if item.method != Method.deterministic:
            continue
        value = values.get(item.id)
        evidence = {**source, "value": value}
        if item.id in details:
            evidence["detail"] = details[item.id]
        if value is None or not math.isfinite(value):
            # The script ran but gave this item nothing (the agent's deliverables may well have broken
            # it): a failure, never an item that leaves the reward.
            deterministic[item.id] = ItemResult.failed(item, _no_value_reason(run, report, document, values), evidence)
        else:
            deterministic[item.id] = ItemResult.scored(item, min(1.0, max(0.0, value)), evidence=evidence)
    return deterministic, inputs, log


def _script_log(run: ExecResult, note: str) -> str:
    log = log_tail(run.stdout, run.stderr)
    return f"[{note}]\n{log}".strip() if note else log


def _no_value_reason(run: ExecResult, report: Any, document: Any, values: dict[str, float]) -> str:
    """Why the task's script gave an item no value: it left the item out, or crashed or reported nothing."""
    if values:
        return f"the task's verification script reported no score for this item (it scored {sorted(values)})"
    if report is not None:
        return f"the task's verification script (exit {run.exit_code}) printed a JSON line without this item's score"
    problem = document.get("error") if isinstance(document, dict) else None
    tail = (run.stderr.strip() or run.stdout.strip())[-300:]
    return (
        f"the task's verification script exited {run.exit_code} and reported no scores"
        + (f" ({problem})" if problem else "")
        + (f": {tail}" if tail else "")
    )


def _script_rewards(sandbox: Sandbox) -> Any:
    """The task script's reward file; one that is missing or unreadable scores nothing (every item
    then fails: the script ran, and only the agent's workspace differs from the oracle's)."""
    try:
        return json.loads(sandbox.read_file(f"{VERIFIER_LOGS}/reward.json"))
    except SandboxError:
        pass
    except ValueError as exc:
        return {"error": f"the task's reward.json is not JSON: {exc}"}
    try:
        return {"reward": float(sandbox.read_file(f"{VERIFIER_LOGS}/reward.txt").decode().strip())}
    except (SandboxError, ValueError, UnicodeDecodeError) as exc:
        return {"error": f"the task's verification script wrote no usable reward file: {exc}"}


def _host_judge_inputs(sandbox: Sandbox, rubric: Rubric) -> dict[str, Any]:
    judged = [item for item in rubric.items if item.method == Method.llm_judge]
    if not judged:
        return {}
    with tempfile.TemporaryDirectory(prefix="skill2env-judge-") as scratch:
        copied = Path(scratch) / "workspace"
        try:
            sandbox.copy_out(sandbox.workspace, copied)
            copied.mkdir(exist_ok=True)
            return {item.id: judge_inputs(copied, list(item.target_files)) for item in judged}
        except Exception as exc:  # the judge items cannot be judged; the deterministic ones still can
            return {item.id: {"error": f"{type(exc).__name__}: {exc}"} for item in judged}


# -- judge items and the write-back -----------------------------------------------------------------


def judged_item(item: RubricItem, inputs: dict[str, Any], judge: Judge | None, repeats: int, seed: int) -> ItemResult:
    item_inputs: dict[str, Any] = inputs[item.id] if isinstance(inputs.get(item.id), dict) else {}
    if judge is None:
        files = [f.get("path") for f in item_inputs.get("files", [])]
        return ItemResult.unscored(item, NO_JUDGE, {"target_files": files})
    if item_inputs.get("error") or "files" not in item_inputs:
        problem = item_inputs.get("error") or "the verifier collected nothing for it"
        return ItemResult.errored(item, f"the judge's files could not be collected: {problem}")
    return judge_item(judge, item, item_inputs, repeats=repeats, seed=seed)


def _write_back(sandbox: Sandbox, result: VerificationResult) -> None:
    """Harbor's reward.json with the judge items filled in, and the whole result beside it."""
    try:
        sandbox.write_file(f"{VERIFIER_LOGS}/reward.json", json.dumps(result.reward_json(), indent=1) + "\n")
        sandbox.write_file(f"{VERIFIER_LOGS}/verification.json", result.model_dump_json(indent=1) + "\n")
    except SandboxError as exc:
        result.verifier_log = f"{result.verifier_log}\n[write-back of reward.json failed: {exc}]".strip()
