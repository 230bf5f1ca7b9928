"""Run world-kit scripts without a sandbox: the reference solver, the naive and partial policies run as
subprocesses on a temp copy of a task's workspace ($WORKSPACE points there), then the project's check
library scores the result. `needs_tools` says which external programs the scripts need."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from skill2env.rubric.checks import clear_cache, run_check
from skill2env.rubric.models import CheckSpec, Rubric
from skill2env.tasks.draft import TaskDraft

SCRIPT_TIMEOUT = 300
TOOLS = ("pdftotext", "pdfimages", "pdftoppm", "tesseract")


def missing_tools() -> list[str]:
    """External programs the kit scripts call that this machine lacks (poppler-utils, tesseract-ocr)."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def materialize(draft: TaskDraft, root: Path) -> Path:
    for rel, data in draft.workspace.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def python_shim(root: Path) -> Path:
    """A bin dir whose `python3` is this interpreter (it has openpyxl and pypdf; the host's may not)."""
    bin_dir = root / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "python3"
    if not shim.exists():
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        shim.chmod(0o755)
    return bin_dir


def run_script(script: str, workspace: Path, shim_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WORKSPACE": str(workspace), "PATH": f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT, check=False
    )


def run_item(spec: CheckSpec, root: Path) -> float:
    """1.0 when the check passes; an `error` (a defective spec) fails the test run outright."""
    result = run_check(spec.check, root, spec.params)
    if result.error is not None:
        raise AssertionError(f"check {spec.check} errored: {result.error} ({spec.params})")
    return 1.0 if result.passed else 0.0


def score(rubric: Rubric, root: Path) -> tuple[float, dict[str, float]]:
    clear_cache()
    results = {item.id: run_item(item.check, root) for item in rubric.items if item.check is not None}
    return math.fsum(item.weight * results[item.id] for item in rubric.items), results


def rollout(draft: TaskDraft, script: str | None) -> tuple[float, dict[str, float], str]:
    """Copy the workspace to a temp dir, run `script` there (None: nop), score the result."""
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp) / "workspace")
        log = ""
        if script is not None:
            done = run_script(script, root, python_shim(Path(tmp)))
            log = done.stdout[-2000:] + done.stderr[-4000:]
        reward, items = score(draft.blueprint.rubric, root)
    return reward, items, log


def oracle_and_partial(draft: TaskDraft) -> tuple[tuple[float, dict[str, float]], float, str]:
    """One oracle run scored twice: complete, and with only its first deliverable kept."""
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp) / "workspace")
        done = run_script(draft.solve_sh, root, python_shim(Path(tmp)))
        log = done.stdout[-2000:] + done.stderr[-4000:]
        full = score(draft.blueprint.rubric, root)
        for deliverable in draft.blueprint.deliverables[1:]:
            (root / deliverable.path).unlink(missing_ok=True)
        partial, _ = score(draft.blueprint.rubric, root)
    return full, partial, log
