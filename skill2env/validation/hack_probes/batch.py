"""Verify many host-built candidate workspaces in one started sandbox: one copy-in, one verifier process.

The standard path verifies a workspace with `verify_workspace`: a fresh sandbox, `load_workspace`
(clear the workspace, copy in regular files and folders only, links and special files refused),
then `verify_in_sandbox` (clear /logs/verifier and /tests, install the verifier and rubric, run
`python3 -I /tests/verify.py` as root, read its results). `verify_batch` does the same work for N
candidates at the cost of one:

1. each candidate is staged on the host as `load_workspace` stages it (what it refuses — links and
   special files — is removed) and all of them are copied in with one `copy_in`, under /logs,
   outside the workspace, where no check looks (checks only open paths under the workspace);
2. /logs/verifier and /tests are cleared and the verifier installed, as `verify_in_sandbox` does;
3. one verifier process in batch mode (`verify.py --batch`, see `skill2env.rubric.verify_main`)
   imports the checks once, then for each candidate forks a child that empties the real workspace
   path, copies the candidate in as the backend's copy-in would (same contents, modes, times and
   owner), and runs the same `verify` as the single mode at the same stack depth — a process that
   has verified nothing before, as a fresh `python3 -I /tests/verify.py` is; past the verifier's
   time limit the child is killed;
4. the per-candidate results are read back with one `copy_out` and turned into results exactly as
   `verify_in_sandbox` turns a single run's.

Why this is not weaker. Verification reads nothing but the workspace as data: the verifier and
rubric come from the host, run with isolated Python from /tests, and no check executes workspace
content or opens a path outside the workspace (the candidates wait under /logs). A check's verdict
is therefore a function of the workspace's files (contents, types, modes as root sees them) and of
the verifier's process, which starts each candidate in the state a fresh verifier has after its
imports — the same in both paths. What a fresh sandbox would add is covered by falling back: a
candidate the batch did not verify (its child died or ran past the limit, the sandbox broke, the
loader could not give files the workspace's owner) or whose verdict depends on resources rather
than content (an item that ran past its time limit or ran out of memory, a verification longer
than the verifier's limit) is verified again the standard way by the caller.
`tests/integration/validation/test_hack_probes_batch.py` checks the equivalence item by item
against `verify_workspace` in fresh sandboxes for every content strategy on kit and fixture tasks.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.rubric.bundle import TESTS_MOUNT, VERIFIER_LOGS, verify_command
from skill2env.rubric.evaluate import (
    VerifierInfraError,
    _default_mode,
    _from_verifier,
    _install_tests,
    _judged,
    _log,
    _not_data,
    _reset,
)
from skill2env.rubric.judge import DEFAULT_SEED
from skill2env.rubric.models import Method, Rubric
from skill2env.rubric.results import VerificationResult
from skill2env.sandbox.base import ROOT_USER, Sandbox
from skill2env.sandbox.errors import SandboxError
from skill2env.sandbox.task import TaskDir

BATCH_ROOT = "/logs/hack-probes"
"""Where the candidates go in the verification sandbox: outside the workspace, cleared with it."""
BATCH_MANIFEST = "batch.json"
EXIT_BATCH_UNSUPPORTED = 3
RESOURCE_ERRORS = ("ran past", "MemoryError")
"""An item error naming one of these depends on the process's resources, not on the workspace."""


def batch_applies(rubric: Rubric) -> bool:
    """Batch mode runs the rubric's checks; a task scored by its own test.sh is verified one by one."""
    return _default_mode(rubric) == "checks"


@dataclass(frozen=True)
class BatchRun:
    results: dict[str, VerificationResult]
    """Per candidate name, the candidates the batch verified; the others must be verified the standard way."""
    what: str
    clean: bool
    """The verifier ran to its end (so it left the workspace empty): the sandbox may verify again."""


def stage(root: Path, names: Sequence[str]) -> list[dict[str, Any]]:
    """Make `root`'s candidate folders what `load_workspace` would copy in — links and special files
    removed — and write the manifest; returns its entries."""
    entries = []
    for name in names:
        workspace = root / name
        copy = any(workspace.iterdir())
        refused = _not_data(workspace)
        for path in refused:
            path.unlink()
        entries.append({"name": name, "copy": copy, "refused": [p.relative_to(workspace).as_posix() for p in refused]})
    (root / BATCH_MANIFEST).write_text(json.dumps({"candidates": entries}))
    return entries


def verify_batch(sandbox: Sandbox, task: TaskDir, rubric: Rubric, root: Path, names: Sequence[str], *,
                 fresh: bool = False, timeout_s: float | None = None) -> BatchRun:  # fmt: skip
    """Verify the candidate workspaces `root/<name>` (plain folder names; the folders are consumed:
    what `load_workspace` refuses is removed from them) in the started `sandbox`, with one copy-in
    and one verifier process (see the module docstring). `fresh`: the sandbox was just started and
    ran nothing, so /logs/verifier and /tests hold nothing to clear."""
    limit = timeout_s or task.config.verifier.timeout_sec
    remote = f"{BATCH_ROOT}/{uuid.uuid4().hex[:12]}"
    try:
        entries = stage(root, names)
        if not fresh:
            _reset(sandbox)
        _install_tests(sandbox, task, rubric)
        sandbox.copy_in(root, remote)
    except (SandboxError, VerifierInfraError, OSError) as exc:
        return BatchRun({}, f"preparing the batch failed: {type(exc).__name__}: {exc}", False)
    command = [*verify_command(sandbox.workspace), "--batch", remote, "--candidate-timeout", f"{limit:g}"]
    try:
        run = sandbox.exec(command, user=ROOT_USER, cwd=TESTS_MOUNT, timeout=limit * len(entries) + 60)
    except SandboxError as exc:  # a timeout or a broken sandbox: keep whatever was written
        log, code = f"{type(exc).__name__}: {exc}", None
    else:
        log, code = _log(run.stdout, run.stderr), run.exit_code
    if code == EXIT_BATCH_UNSUPPORTED:
        return BatchRun({}, f"batch mode unsupported here: {log[-500:]}", False)
    results = {}
    with tempfile.TemporaryDirectory(prefix="skill2env-batch-") as scratch:
        out = Path(scratch) / "out"
        try:
            sandbox.copy_out(VERIFIER_LOGS, out)
        except (SandboxError, OSError) as exc:
            return BatchRun({}, f"reading the batch's results failed: {type(exc).__name__}: {exc}; {log[-500:]}", False)
        for entry in entries:
            result = _result(rubric, out / entry["name"], limit, log, sandbox)
            if result is not None:
                if entry["refused"]:
                    shown = ", ".join(entry["refused"][:20])
                    result.verifier_log = f"[not copied in (links and special files are never data): {shown}]\n{log}"
                results[entry["name"]] = result
    return BatchRun(results, f"batch of {len(entries)} exited {code}: {len(results)} verified", code == 0)


def _result(rubric: Rubric, out: Path, limit: float, log: str, sandbox: Sandbox) -> VerificationResult | None:
    """One candidate's result as `verify_in_sandbox` builds it, or None when it must be verified again."""
    try:
        results = json.loads((out / "results.json").read_bytes())
        inputs = json.loads((out / "judge_inputs.json").read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(results, dict) or results.get("status") != "scored" or not isinstance(results.get("items"), list):
        return None
    duration = results.get("duration_s")
    if not isinstance(duration, int | float) or duration > limit:
        return None
    by_id = {entry.get("id"): entry for entry in results["items"] if isinstance(entry, dict)}
    try:
        deterministic = {item.id: _from_verifier(item, by_id.get(item.id)) for item in rubric.items
                         if item.method == Method.deterministic}  # fmt: skip
    except VerifierInfraError:
        return None
    if any(r.error and any(marker in r.error for marker in RESOURCE_ERRORS) for r in deterministic.values()):
        return None
    inputs = inputs if isinstance(inputs, dict) else {}
    items = [deterministic[item.id] if item.method == Method.deterministic
             else _judged(item, inputs, None, 1, DEFAULT_SEED) for item in rubric.items]  # fmt: skip
    return VerificationResult.scored_from(rubric, items, verifier_log=log, duration_s=float(duration),
                                          backend=sandbox.backend, rollout_id=sandbox.rollout_id,
                                          mode="checks")  # fmt: skip
