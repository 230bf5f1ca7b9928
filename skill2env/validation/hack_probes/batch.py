"""Verify many host-built workspaces in one started sandbox: one verifier process, one copy-in each way.

The standard path verifies a workspace with `verify_workspace`: a fresh sandbox, `load_workspace`
(clear the workspace, copy in regular files and folders only, links and special files refused),
then `verify_in_sandbox` (clear /logs/verifier and /tests, install the verifier and rubric, run
`python3 -I /tests/verify.py` as root, read its results). A `Batch` does the same work for N
candidates at about the cost of one:

1. the verifier and rubric are installed in a fresh sandbox (or /logs/verifier and /tests cleared
   first, as `verify_in_sandbox` does, in one that was used);
2. one verifier process in batch mode (`verify.py --batch`, see `skill2env.rubric.verify_main`)
   imports the checks once, then for each candidate in turn forks a child that empties the real
   workspace path, copies the candidate in as the backend's copy-in would (same contents, modes,
   times, extended attributes and owner), and runs the same `verify` as the single mode at the
   same stack depth — a process that has verified nothing before, as a fresh
   `python3 -I /tests/verify.py` is; past the verifier's time limit the child is killed;
3. the candidates are staged on the host as `load_workspace` stages them (what it refuses — links
   and special files — is removed) and copied in under /logs, outside the workspace, where no check
   looks (checks only open paths under the workspace): all at once, or "late", while the verifier
   already runs (it waits for each one's `.ready` marker), so its start-up overlaps the copy and a
   workspace that is still being produced (the tamper run's) can join;
4. the per-candidate results are read back with one `copy_out` and turned into results exactly as
   `verify_in_sandbox` turns a single run's.

Why this is not weaker. Verification reads nothing but the workspace as data: the verifier and
rubric come from the host, run with isolated Python from /tests, and no check executes workspace
content or opens a path outside the workspace (the other candidates wait under /logs). A check's
verdict is therefore a function of the workspace's files (contents, types, modes as root sees them)
and of the verifier's process, which starts each candidate in the state a fresh verifier has after
its imports (so even state the rubric's own Python leaves behind dies with the child) — the same in
both paths. What a fresh sandbox would add is covered by falling back: a candidate the batch did
not verify (its child died or ran past the limit, it never arrived, the sandbox broke, the loader
could not give files the workspace's owner — root without capabilities in a docker container) or
whose verdict depends on resources rather than content (an item that ran past its time limit or ran
out of memory, a verification longer than the verifier's limit) is verified again the standard way
by the caller. `tests/integration/validation/test_hack_probes_batch.py` checks the equivalence item
by item, evidence included, against `verify_workspace` in fresh sandboxes for every content
strategy and the shared tamper run's workspace on every kit and a fixture.

Three savings rest on the same argument. A candidate whose loaded workspace would equal an earlier
one's (`workspace_digest`: links and special files are never loaded) is not verified again but
takes that one's verdict (the runner's twins; the integration test checks that equal digests give
equal verdicts on every kit). Before forking, the batch's parent imports what the rubric's inline
checks import and compiles their source (`warm_up`), so a child starts as a fresh verifier would be
after those imports, without repeating them. And checks may keep an expensive result for the next
candidates, keyed by every byte it was computed from (`rubric.checks.memo`, set up by batch mode
only): the code-repair kit's hidden suite runs once per package copy, the SQL kit's query once per
database.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.rubric import Method, Rubric, VerificationResult
from skill2env.rubric.bundle import TESTS_MOUNT, VERIFIER_LOGS, verify_command
from skill2env.rubric.evaluate import (
    VerifierInfraError,
    default_mode,
    from_verifier,
    install_tests,
    judged_item,
    log_tail,
    refused_note,
    refused_paths,
    reset_verifier_dirs,
)
from skill2env.rubric.judge import DEFAULT_SEED
from skill2env.sandbox import Sandbox, SandboxError, TaskDir
from skill2env.sandbox.base import ROOT_USER

BATCH_ROOT = "/logs/hack-probes"
"""Where the candidates go in the verification sandbox: outside the workspace, cleared with it."""
BATCH_MANIFEST = "batch.json"
EXIT_BATCH_UNSUPPORTED = 3
RESOURCE_ERRORS = ("ran past", "MemoryError")
"""An item error naming one of these depends on the process's resources, not on the workspace."""


def batch_applies(rubric: Rubric) -> bool:
    """Batch mode runs the rubric's checks; a task scored by its own test.sh is verified one by one."""
    return default_mode(rubric) == "checks"


@dataclass(frozen=True)
class BatchRun:
    results: dict[str, VerificationResult]
    """Per candidate name, the candidates the batch verified; the others must be verified the standard way."""
    what: str
    log: str = ""
    """The verifier process's output, which every result's log holds (after its own note)."""

    def twin(self, name: str, original: str, refused: Sequence[str]) -> VerificationResult | None:
        """`original`'s result for `name`, a candidate whose workspace digest (`workspace_digest`) is
        the same, with `name`'s own note on what was not copied in; None when `original` was not verified."""
        result = self.results.get(original)
        if result is None:
            return None
        notes = [refused_note(refused)] if refused else []
        notes.append(f"[verified as {original}: the same workspace once links and special files are left out]")
        return result.model_copy(deep=True, update={"verifier_log": "\n".join([*notes, self.log])})


def _strip(workspace: Path) -> tuple[bool, list[str]]:
    """Remove from `workspace` what `load_workspace` refuses (links, special files): (whether anything
    was there to copy, the refused paths)."""
    copy = any(workspace.iterdir())
    refused = refused_paths(workspace)
    for path in refused:
        (workspace / path).unlink()
    return copy, refused


def workspace_digest(workspace: Path) -> str:
    """What a verifier's checks can see of `workspace` once loaded, as one digest: the path, type and
    mode of every folder and regular file (not a folder's times, which adding and removing a link
    changes and no check reads), each file's modification time, contents (a hard link's by its
    inode, which equal contents in other inodes do not match) and extended attributes (links and
    special files are never loaded, so they count for nothing). Two candidates with equal
    digests are loaded as equal workspaces, so one verdict serves both. Raises OSError when any part
    cannot be read: such a workspace is never taken for another."""
    digest = hashlib.sha256()
    for current, dirs, names, folder in os.fwalk(workspace, onerror=_unreadable):
        dirs.sort()
        relative = os.path.relpath(current, workspace)
        for name in sorted(names + dirs):
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            kind = "d" if stat.S_ISDIR(info.st_mode) else "f" if stat.S_ISREG(info.st_mode) else None
            if kind is None:
                continue
            digest.update(f"{kind}\0{relative}/{name}\0{info.st_mode:o}\0".encode("utf-8", "surrogateescape"))
            if kind == "f" and info.st_nlink > 1:  # a hard link (to the shared initial copy): its inode is its contents
                digest.update(f"{info.st_mtime_ns}\0{info.st_size}\0{info.st_dev}:{info.st_ino}\0".encode())
            elif kind == "f":
                digest.update(f"{info.st_mtime_ns}\0{info.st_size}\0".encode())
                reader = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
                with os.fdopen(reader, "rb") as data:
                    digest.update(hashlib.file_digest(data, "sha256").digest())
            path = f"{current}/{name}"
            for attribute in sorted(os.listxattr(path, follow_symlinks=False)):
                digest.update(attribute.encode() + b"\0" + os.getxattr(path, attribute, follow_symlinks=False))
    return digest.hexdigest()


def _unreadable(error: OSError) -> None:
    raise error


def stage(root: Path, names: Sequence[str], late: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Make `root`'s candidate folders what `load_workspace` would copy in and write the manifest (the
    `late` candidates last, to come while the batch runs); returns its entries."""
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for name in names:
        copy, refused = _strip(root / name)
        entries.append({"name": name, "copy": copy, "refused": refused})
    entries += [{"name": name, "late": True, "refused": []} for name in late]
    (root / BATCH_MANIFEST).write_text(json.dumps({"candidates": entries}))
    return entries


class Batch:
    """One verifier process in a started sandbox. `run` (blocking) verifies the candidates
    `root/<name>` there from the start, then the `late` ones, each once `deliver` (from another
    thread meanwhile) has copied it in or said it will not come. Names are plain folder names
    without dots; the folders are consumed: what `load_workspace` refuses is removed from them.
    `fresh`: the sandbox was just started and ran nothing, so /logs/verifier and /tests hold
    nothing to clear. See the module docstring."""

    def __init__(self, sandbox: Sandbox, task: TaskDir, rubric: Rubric, root: Path, names: Sequence[str], *,
                 late: Sequence[str] = (), fresh: bool = False, timeout_s: float | None = None,
                 wait_s: float = 0.0, drop_capabilities: bool = False) -> None:  # fmt: skip
        self.sandbox, self.task, self.rubric, self.root = sandbox, task, rubric, root
        self.drop_capabilities = drop_capabilities
        """The sandbox granted its root the loader's capabilities: each candidate's process drops them."""
        self.names, self.late, self.fresh, self.wait_s = list(names), list(late), fresh, wait_s
        self.limit = timeout_s or task.verifier_timeout_sec
        self.remote = f"{BATCH_ROOT}/{uuid.uuid4().hex[:12]}"
        self.refused: dict[str, list[str]] = {}
        self._prepared = threading.Event()
        self._ready = False

    def run(self) -> BatchRun:
        try:
            entries = stage(self.root, self.names, self.late)
            self.refused.update((entry["name"], entry["refused"]) for entry in entries)
            if not self.fresh:
                reset_verifier_dirs(self.sandbox)
            install_tests(self.sandbox, self.task, self.rubric)
            self.sandbox.copy_in(self.root, self.remote)
            self._ready = True
        except (SandboxError, VerifierInfraError, OSError) as exc:
            return BatchRun({}, f"preparing the batch failed: {type(exc).__name__}: {exc}")
        finally:
            self._prepared.set()
        command = [*verify_command(self.sandbox.workspace), "--batch", self.remote,
                   "--candidate-timeout", f"{self.limit:g}", "--wait-timeout", f"{self.wait_s:g}",
                   *(["--drop-capabilities"] if self.drop_capabilities else [])]  # fmt: skip
        timeout = self.limit * len(entries) + self.wait_s + 60
        try:
            run = self.sandbox.exec(command, user=ROOT_USER, cwd=TESTS_MOUNT, timeout=timeout)
        except SandboxError as exc:  # a timeout or a broken sandbox: keep whatever was written
            log, code = f"{type(exc).__name__}: {exc}", None
        else:
            log, code = log_tail(run.stdout, run.stderr), run.exit_code
        if code == EXIT_BATCH_UNSUPPORTED:
            return BatchRun({}, f"batch mode unsupported here: {log[-500:]}")
        return self._read(entries, log, code)

    def deliver(self, root: Path, names: Sequence[str], absent: Sequence[str] = ()) -> None:
        """Copy the late candidates `root/<name>` in with one copy-in (the folders are consumed like the
        others; `root` holds nothing else), and say the `absent` ones will not come. Never raises: a
        candidate that does not arrive is left to the standard path."""
        self._prepared.wait()
        if not self._ready:
            return
        markers = {name: ("absent", "") for name in absent}
        try:
            for name in names:
                copy, self.refused[name] = _strip(root / name)
                markers[name] = ("ready", "copy" if copy else "empty")
            if names:
                self.sandbox.copy_in(root, self.remote)
        except (SandboxError, OSError):
            markers.update((name, ("absent", "")) for name in names)
        for name, (kind, text) in markers.items():
            with contextlib.suppress(SandboxError, OSError):
                self.sandbox.write_file(f"{self.remote}/{name}.{kind}", text)

    def _read(self, entries: list[dict[str, Any]], log: str, code: int | None) -> BatchRun:
        results = {}
        with tempfile.TemporaryDirectory(prefix="skill2env-batch-") as scratch:
            out = Path(scratch) / "out"
            try:
                self.sandbox.copy_out(VERIFIER_LOGS, out)
            except (SandboxError, OSError) as exc:
                return BatchRun({}, f"reading the batch's results failed: {type(exc).__name__}: {exc}; {log[-500:]}")
            for entry in entries:
                result = _result(self.rubric, out / entry["name"], self.limit, log, self.sandbox)
                if result is None:
                    continue
                refused = self.refused.get(entry["name"])
                if refused:
                    result.verifier_log = f"{refused_note(refused)}\n{log}"
                results[entry["name"]] = result
        return BatchRun(results, f"batch of {len(entries)} exited {code}: {len(results)} verified", log)


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
        deterministic = {item.id: from_verifier(item, by_id.get(item.id)) for item in rubric.items
                         if item.method == Method.deterministic}  # fmt: skip
    except VerifierInfraError:
        return None
    if any(r.error and any(marker in r.error for marker in RESOURCE_ERRORS) for r in deterministic.values()):
        return None
    inputs = inputs if isinstance(inputs, dict) else {}
    items = [deterministic[item.id] if item.method == Method.deterministic
             else judged_item(item, inputs, None, 1, DEFAULT_SEED) for item in rubric.items]  # fmt: skip
    return VerificationResult.scored_from(rubric, items, verifier_log=log, duration_s=float(duration),
                                          backend=sandbox.backend, sandbox_mode=sandbox.mode,
                                          rollout_id=sandbox.rollout_id, mode="checks")  # fmt: skip
