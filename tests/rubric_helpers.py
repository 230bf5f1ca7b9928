"""Shared by the rubric tests: the check-runner type and the hand-written rubric task fixtures."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from skill2env.rubric.checks import CheckResult
from skill2env.rubric.models import Rubric
from skill2env.sandbox.task import TaskDir

Put = Callable[[str, str | bytes], Path]
"""`put(relative_path, content)`: write a file into the test's workspace."""
Run = Callable[..., CheckResult]
"""`run(check_name, **params)`: one check on the test's workspace."""

RUBRIC_TASKS = Path(__file__).resolve().parent / "fixtures" / "rubric_tasks"
SALES_SUMMARY = "sales-summary"


def rubric_task(name: str = SALES_SUMMARY) -> TaskDir:
    return TaskDir(RUBRIC_TASKS / name)


def task_rubric(task: TaskDir) -> Rubric:
    return Rubric.model_validate(json.loads((task.tests_dir / "rubric.json").read_text()))
