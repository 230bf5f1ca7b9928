"""The Skill2Env authors' published task layout imports as tasks, each with what it lacks on its row."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skill2env.rubric.models import TASK_SCRIPT_CHECK, Method, Rubric
from skill2env.tasks.authors_layout import NO_SOLUTION
from skill2env.tasks.exchange import import_tree, load_task
from skill2env.tasks.records import TaskRecord, TaskStatus
from skill2env.tasks.store import TaskStore

AUTHORS = Path(__file__).resolve().parents[2] / "fixtures" / "skill2env_authors"


@pytest.fixture
def records(tmp_path: Path) -> dict[str, TaskRecord]:
    return {r.task_id or "": r for r in import_tree(AUTHORS, TaskStore(tmp_path))}


def _gap(record: TaskRecord, start: str) -> str:
    found = [reason for reason in record.reasons if reason.startswith(start)]
    assert len(found) == 1, (start, record.reasons)
    return found[0]


def test_every_published_task_imports_as_a_built_row(records: dict[str, TaskRecord], tmp_path: Path) -> None:
    assert set(records) == {"invoice-totals", "meeting-actions", "log-errors"}
    for record in records.values():
        assert record.status == TaskStatus.built, record.reasons
        assert record.store_path and (tmp_path / record.store_path / "tests" / "verify.py").is_file()
        assert record.author == "import:Skill2Env" and record.source == "import:skill2env_authors"
        assert NO_SOLUTION in record.reasons  # recorded, not fatal
    assert {r.task_id: r.environment for r in records.values()} == {
        "invoice-totals": "dockerfile",
        "meeting-actions": "setup_script",
        "log-errors": "setup_script",
    }


def test_the_rubric_key_becomes_the_rows_rubric(records: dict[str, TaskRecord]) -> None:
    raw = records["invoice-totals"].rubric
    assert raw is not None
    rubric = Rubric.model_validate_json(raw)

    assert [(i.id, i.method, i.weight) for i in rubric.items] == [
        ("status_totals", Method.deterministic, 0.4),
        ("client_totals", Method.deterministic, 0.3),
        ("manager_note", Method.llm_judge, 0.3),
    ]
    status_totals = rubric.items[0]
    assert status_totals.check is not None and status_totals.check.check == TASK_SCRIPT_CHECK
    assert status_totals.check.params == {"script": "tests/verify.py", "item": "status_totals"}
    assert rubric.items[2].judge_instruction and rubric.items[2].target_files == ["output/notes.md"]
    assert rubric.pass_threshold == 0.7 and rubric.summary.startswith("Two deterministic")


def test_the_gaps_of_each_task_are_on_its_row(records: dict[str, TaskRecord]) -> None:
    invoice, meeting, logs = records["invoice-totals"], records["meeting-actions"], records["log-errors"]

    assert "the project's base image (skill2env-base:latest) stands in for it" in _gap(
        invoice, "environment/Dockerfile is FROM python:3.12-slim"
    )
    assert _gap(invoice, "instruction.md refers to the skill folder _skill_ref/")
    assert _gap(invoice, "no tests/test.sh").endswith("running tests/verify.py from the final workspace")
    assert "JUDGE_API_KEY, JUDGE_BASE_URL, JUDGE_MODEL" in _gap(invoice, "task.toml [verifier.env]")

    assert _gap(meeting, "instruction.md names") == (
        "instruction.md names notes/attendees.md, which environment/workspace does not contain"
    )
    assert _gap(meeting, "instruction.md refers to the skill folder _skill_ref/")
    assert not any("setup.sh" in reason for reason in meeting.reasons)  # a comment only: nothing left undone

    assert _gap(logs, "tests/test.sh calls") == (
        "tests/test.sh calls /tests/run_checks.py, which the task does not contain: tests/verify.py runs directly "
        "instead"
    )
    assert not any(reason.startswith("task.toml [verifier.env]") for reason in logs.reasons)  # no judge items
    assert not any(reason.startswith("instruction.md") for reason in logs.reasons)


def test_a_shipped_skill_folder_and_setup_commands_are_no_gap_and_a_gap(tmp_path: Path) -> None:
    task = tmp_path / "meeting-actions"
    shutil.copytree(AUTHORS / "meeting-actions", task)
    (task / "environment" / "workspace" / "_skill_ref").mkdir()
    (task / "environment" / "workspace" / "_skill_ref" / "SKILL.md").write_text("# Meeting notes\n")
    (task / "environment" / "workspace" / "notes" / "attendees.md").write_text("Dana, Luis, Mei\n")
    (task / "environment" / "setup.sh").write_text("#!/bin/bash\npip install pandas\n")
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n")

    (record,) = import_tree(task, TaskStore(tmp_path / "store"))

    assert record.status == TaskStatus.built
    assert [reason.split(":")[0] for reason in record.reasons] == [
        "no tests/test.sh",
        "environment/setup.sh has commands the sandbox does not run",
        "task.toml [verifier.env] names JUDGE_API_KEY, JUDGE_BASE_URL, JUDGE_MODEL",
    ]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda spec: spec["rubric"][0].pop("method"), "item 0 ('status_totals'): `method` must be"),
        (lambda spec: spec.update(items=spec["rubric"]), "both `rubric` and `items`"),
        (lambda spec: spec["rubric"][1].update(id="status_totals"), "item 1 ('status_totals'): the id repeats"),
        (lambda spec: spec["rubric"][2].update(judge_instruction=""), "needs a `judge_instruction`"),
    ],
)
def test_a_malformed_entry_is_an_error_row_naming_it(
    edit: Callable[[dict[str, Any]], object], reason: str, tmp_path: Path
) -> None:
    task = tmp_path / "invoice-totals"
    shutil.copytree(AUTHORS / "invoice-totals", task)
    spec_path = task / "tests" / "eval_spec.json"
    spec = json.loads(spec_path.read_text())
    edit(spec)
    spec_path.write_text(json.dumps(spec))

    (record,) = import_tree(task, TaskStore(tmp_path / "store"))

    assert record.status == TaskStatus.error and record.store_path is None
    assert record.reasons[0].startswith("tests/eval_spec.json: ") and reason in record.reasons[0], record.reasons


def test_load_task_reads_the_published_layout() -> None:
    task = load_task(AUTHORS / "log-errors")
    assert task.environment == "setup_script" and task.rubric is not None
    assert [item.id for item in task.rubric.items] == ["error_count", "error_codes"]
