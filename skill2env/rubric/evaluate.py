"""Host-side verification of one rollout: isolated, after the agent finished, on its final workspace.

The sequence (`verify_in_sandbox`), on a sandbox the agent no longer acts in:

1. discard whatever the agent left in /logs/verifier (a forged reward.json included) and in /tests;
2. copy the task's tests/ — and the rubric verifier with its expected values — in only now;
3. run the verifier as root, with isolated Python, from /tests (where the agent could not write);
4. read its results, fill the judge items through the judge role (or leave them `unscored`);
5. score: r = Σ w·q over the scored items, flagged when partial; write Harbor's reward.json back.

`verify_workspace` does it in a *fresh* sandbox the agent never touched, holding a copy of the
final workspace: nothing the agent did outside its workspace (files in /tmp or /logs, processes
left running) can reach the verifier. `verify_rollout` copies the workspace out of the agent's
sandbox and does that. An infrastructure failure anywhere is `infra_error`, never reward 0.
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from skill2env.rubric.bundle import TESTS_MOUNT, VERIFIER_LOGS, verifier_bundle, verify_command
from skill2env.rubric.checks import judge_inputs
from skill2env.rubric.eval_spec import script_item_values
from skill2env.rubric.judge import DEFAULT_SEED, Judge, judge_item
from skill2env.rubric.models import TASK_SCRIPT_CHECK, Method, Rubric, RubricItem
from skill2env.rubric.results import ItemResult, ItemStatus, VerificationResult
from skill2env.sandbox.base import AGENT_USER, ROOT_USER, Sandbox
from skill2env.sandbox.errors import SandboxError, SandboxTimeout
from skill2env.sandbox.task import TaskDir

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

    `mode` `checks` runs the rubric's checks; `task_script` runs the task's own tests/test.sh and
    reads per-item values from its reward file (the Skill2Env authors' tasks); by default it is
    `task_script` when the rubric's deterministic items are all `task_script` checks. Never raises
    for an infrastructure failure: that is the result's `infra_error`.
    """
    task = task_dir if isinstance(task_dir, TaskDir) else TaskDir(task_dir)
    chosen: Mode = mode or _default_mode(rubric)
    started = time.perf_counter()
    context: dict[str, Any] = {"backend": sandbox.backend, "rollout_id": sandbox.rollout_id, "mode": chosen}
    try:
        limit = timeout_s or task.config.verifier.timeout_sec
        if chosen == "checks":
            deterministic, inputs, log = _run_checks(sandbox, task, rubric, limit)
        else:
            deterministic, inputs, log = _run_task_script(sandbox, task, rubric, limit)
    except SandboxTimeout as exc:
        return VerificationResult.infra_error(
            f"the verifier ran past its timeout: {exc}", duration_s=time.perf_counter() - started, **context
        )
    except (SandboxError, VerifierInfraError, OSError) as exc:
        return VerificationResult.infra_error(
            f"{type(exc).__name__}: {exc}", duration_s=time.perf_counter() - started, **context
        )
    items = [
        deterministic[item.id]
        if item.method == Method.deterministic
        else _judged(item, inputs, judge, judge_repeats, judge_seed)
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
        load_workspace(sandbox, workspace)
    except (SandboxError, VerifierInfraError, OSError) as exc:
        _stop(sandbox)
        return VerificationResult.infra_error(
            f"{PREPARE_FAILED}: {type(exc).__name__}: {exc}",
            backend=sandbox.backend,
            rollout_id=sandbox.rollout_id,
            duration_s=time.perf_counter() - started,
        )
    try:
        result = verify_in_sandbox(sandbox, task, rubric, **options)
    finally:
        stopped = _stop(sandbox)
    if stopped:
        result.verifier_log = f"{result.verifier_log}\n[{stopped}]".strip()
    result.isolation = "fresh"
    result.duration_s = time.perf_counter() - started
    return result


def verify_rollout(
    agent_sandbox: Sandbox, task_dir: TaskDir | Path, rubric: Rubric, fresh: Sandbox, **options: Any
) -> VerificationResult:
    """Copy the final workspace out of the agent's (started) sandbox and verify it in `fresh`.

    When the workspace cannot be copied (the backend refuses something the agent left in it), it is
    verified in the agent's own sandbox instead, and the result says so (`isolation` `in_place`).
    """
    with tempfile.TemporaryDirectory(prefix="skill2env-verify-") as scratch:
        copied = Path(scratch) / "workspace"
        try:
            agent_sandbox.copy_out(agent_sandbox.workspace, copied)
            copied.mkdir(exist_ok=True)
        except Exception as exc:  # the backend's copy failed: an archive it refused, a special file
            fallback = f"copying the final workspace out failed ({type(exc).__name__}: {exc}); verified in place"
        else:
            result = verify_workspace(copied, task_dir, rubric, fresh, **options)
            if result.status == "scored" or not result.error or not result.error.startswith(PREPARE_FAILED):
                return result
            fallback = f"{result.error}; verified in place"
    result = verify_in_sandbox(agent_sandbox, task_dir, rubric, **options)
    result.verifier_log = f"[{fallback}]\n{result.verifier_log}".strip()
    return result


def _stop(sandbox: Sandbox) -> str:
    """Stop a verification sandbox; a failure to tear it down is reported, not raised (the verdict stands)."""
    try:
        sandbox.stop()
    except SandboxError as exc:
        return f"stopping the verification sandbox failed: {exc}"
    return ""


def load_workspace(sandbox: Sandbox, workspace: Path) -> None:
    """Replace the sandbox's workspace (as built from the task) with the files of `workspace`.

    Links are kept as links. A relative link that leads out of the workspace is re-pointed at the
    same place by an absolute path (an archive may not hold escaping relative links), and special
    files (pipes, sockets, devices) are left out: neither is a deliverable, and checks refuse both.
    """
    cleared = sandbox.exec(["find", sandbox.workspace, "-mindepth", "1", "-delete"], user=AGENT_USER, timeout=120)
    if not cleared.ok:
        raise VerifierInfraError(f"clearing the workspace failed: {cleared.stderr.strip()[-500:]}")
    if not any(workspace.iterdir()):
        return
    if not _needs_staging(workspace, sandbox.workspace):
        sandbox.copy_in(workspace, sandbox.workspace)
        return
    with tempfile.TemporaryDirectory(prefix="skill2env-stage-") as scratch:
        staged = Path(scratch) / "workspace"
        shutil.copytree(workspace, staged, symlinks=True, ignore=_special_files)
        for link in [p for p in staged.rglob("*") if p.is_symlink()]:
            target = _escaping_target(link, staged, sandbox.workspace)
            if target is not None:
                link.unlink()
                link.symlink_to(target)
        sandbox.copy_in(staged, sandbox.workspace)


def _special_files(directory: str, names: list[str]) -> set[str]:
    return {name for name in names if _is_special(Path(directory, name))}


def _is_special(path: Path) -> bool:
    return not path.is_symlink() and path.exists() and not path.is_file() and not path.is_dir()


def _escaping_target(link: Path, root: Path, workdir: str) -> str | None:
    """The absolute in-sandbox target of a relative `link` that leads out of the workspace, else None."""
    target = str(link.readlink())
    if posixpath.isabs(target):
        return None
    inside = posixpath.join(workdir, link.parent.relative_to(root).as_posix())
    resolved = posixpath.normpath(posixpath.join(inside, target))
    if resolved == workdir or resolved.startswith(workdir.rstrip("/") + "/"):
        return None
    return resolved


def _needs_staging(workspace: Path, workdir: str) -> bool:
    for current, dirs, names in os.walk(workspace):
        for name in dirs + names:
            path = Path(current, name)
            if _is_special(path) or (path.is_symlink() and _escaping_target(path, workspace, workdir) is not None):
                return True
    return False


# -- the two ways deterministic items are scored -------------------------------------------------------


def _default_mode(rubric: Rubric) -> Mode:
    checks = [item.check.check for item in rubric.items if item.check is not None]
    return "task_script" if checks and all(c == TASK_SCRIPT_CHECK for c in checks) else "checks"


def _reset(sandbox: Sandbox) -> None:
    reset = sandbox.exec(["bash", "-c", RESET_SCRIPT], user=ROOT_USER, cwd="/", timeout=60)
    if not reset.ok:
        raise VerifierInfraError(f"clearing {VERIFIER_LOGS} failed: {reset.stderr.strip()[-500:]}")


def _install_tests(sandbox: Sandbox, task: TaskDir, rubric: Rubric | None) -> None:
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


def _log(stdout: str, stderr: str) -> str:
    text = (stdout + ("\n" + stderr if stderr else "")).strip()
    return text[-LOG_TAIL_CHARS:]


def _run_checks(
    sandbox: Sandbox, task: TaskDir, rubric: Rubric, limit: float
) -> tuple[dict[str, ItemResult], dict[str, Any], str]:
    _reset(sandbox)
    _install_tests(sandbox, task, rubric)
    run = sandbox.exec(verify_command(sandbox.workspace), user=ROOT_USER, cwd=TESTS_MOUNT, timeout=limit)
    log = _log(run.stdout, run.stderr)
    if run.exit_code != 0:
        raise VerifierInfraError(f"the verifier exited {run.exit_code}: {log[-800:]}")
    results = _read_json(sandbox, "results.json")
    inputs = _read_json(sandbox, "judge_inputs.json")
    if not isinstance(results, dict) or results.get("status") != "scored" or not isinstance(results.get("items"), list):
        raise VerifierInfraError(f"the verifier's results are not a scored result set: {str(results)[:300]}")
    by_id = {entry.get("id"): entry for entry in results["items"] if isinstance(entry, dict)}
    deterministic = {
        item.id: _from_verifier(item, by_id.get(item.id))
        for item in rubric.items
        if item.method == Method.deterministic
    }
    return deterministic, inputs if isinstance(inputs, dict) else {}, log


def _from_verifier(item: RubricItem, entry: dict[str, Any] | None) -> ItemResult:
    if entry is None:
        return ItemResult.errored(item, "the verifier reported no result for this item")
    evidence: dict[str, Any] = entry["evidence"] if isinstance(entry.get("evidence"), dict) else {}
    duration = float(entry.get("duration_s") or 0.0)
    status = entry.get("status")
    if status in (ItemStatus.passed, ItemStatus.failed):
        try:
            return ItemResult(
                item_id=item.id,
                method=item.method,
                weight=item.weight,
                status=ItemStatus(status),
                q=entry.get("q"),
                evidence=evidence,
                duration_s=duration,
            )
        except ValidationError as exc:
            return ItemResult.errored(item, f"the verifier's result is malformed: {exc.errors()[0]['msg']}")
    error = entry.get("error") or f"the verifier reported status {status!r}"
    result = ItemResult.errored(item, str(error), evidence)
    result.duration_s = duration
    return result


def _run_task_script(
    sandbox: Sandbox, task: TaskDir, rubric: Rubric, limit: float
) -> tuple[dict[str, ItemResult], dict[str, Any], str]:
    """The task's own verifier scores the deterministic items; judge inputs are read on the host
    from a copy of the workspace (the task's tests/ stays exactly the authors')."""
    inputs = _host_judge_inputs(sandbox, rubric)
    _reset(sandbox)
    _install_tests(sandbox, task, None)
    run = sandbox.exec(["bash", f"{TESTS_MOUNT}/test.sh"], user=ROOT_USER, cwd=sandbox.workspace, timeout=limit)
    log = _log(run.stdout, run.stderr)
    document = _script_rewards(sandbox)
    ids = [item.id for item in rubric.items if item.method == Method.deterministic]
    values = script_item_values(document, ids)
    script_reward = document.get("reward") if isinstance(document, dict) else None
    deterministic = {}
    for item in rubric.items:
        if item.method != Method.deterministic:
            continue
        value = values.get(item.id)
        evidence = {"source": "the task's verification script", "exit_code": run.exit_code, "value": value}
        if value is None or not math.isfinite(value):
            deterministic[item.id] = ItemResult.errored(
                item, "the task's verification script reported no value for this item", {"script_reward": script_reward}
            )
        else:
            deterministic[item.id] = ItemResult.scored(item, min(1.0, max(0.0, value)), evidence=evidence)
    return deterministic, inputs, log


def _script_rewards(sandbox: Sandbox) -> Any:
    try:
        return json.loads(sandbox.read_file(f"{VERIFIER_LOGS}/reward.json"))
    except SandboxError:
        pass
    except ValueError as exc:
        raise VerifierInfraError(f"the task's reward.json is not JSON: {exc}") from exc
    try:
        return {"reward": float(sandbox.read_file(f"{VERIFIER_LOGS}/reward.txt").decode().strip())}
    except (SandboxError, ValueError) as exc:
        raise VerifierInfraError(f"the task's verification script wrote no reward file: {exc}") from exc


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


def _judged(item: RubricItem, inputs: dict[str, Any], judge: Judge | None, repeats: int, seed: int) -> ItemResult:
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
