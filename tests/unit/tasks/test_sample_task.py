"""The hand-written sample is a sound task: its reference solution, run on its workspace, derives the
author-only values and passes every deterministic item; doing nothing passes none of the output checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from task_samples import TOTALS, billing_draft

from skill2env.rubric.checks import run_check
from skill2env.rubric.models import Method
from skill2env.tasks.harbor import write_task_dir


def _scores(task: Path, workspace: Path) -> dict[str, bool]:
    results = {}
    for item in billing_draft().blueprint.rubric.items:
        if item.method == Method.deterministic and item.check is not None:
            result = run_check(item.check.check, workspace, item.check.params, tests_dir=task / "tests")
            assert result.error is None, (item.id, result.error)
            results[item.id] = result.passed
    return results


@pytest.fixture
def task(tmp_path: Path) -> Path:
    return write_task_dir(billing_draft(), tmp_path / "task", skill_dir=None).root


def test_the_reference_solution_passes_every_deterministic_item(task: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(task / "environment" / "workspace", workspace)
    environment = {**os.environ, "SKILL2ENV_WORKSPACE": str(workspace),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    done = subprocess.run(["bash", str(task / "solution" / "solve.sh")], env=environment, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr

    summary = json.loads((workspace / "reconciliation" / "summary.json").read_text())
    assert {key: summary[key] for key in TOTALS} == pytest.approx(TOTALS)
    assert _scores(task, workspace) == dict.fromkeys(
        ["detail_lines", "summary_totals", "anomalies_flagged", "sources_untouched"], True
    )


def test_doing_nothing_passes_only_the_untouched_sources(task: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(task / "environment" / "workspace", workspace)
    assert _scores(task, workspace) == {"detail_lines": False, "summary_totals": False, "anomalies_flagged": False,
                                        "sources_untouched": True}  # fmt: skip
