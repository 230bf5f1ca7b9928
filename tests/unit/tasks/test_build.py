"""From drafts to stored tasks and rows: statuses, reasons, lineage; authors found by reference."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from task_samples import AUTHOR, DOMAIN, SampleAuthor, billing_draft, make_skill_dir

from skill2env.tasks.authoring import NO_AUTHOR_REASON, AuthorLoadError, load_author
from skill2env.tasks.build import author_tasks, build_task
from skill2env.tasks.harbor import task_digest
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame


@pytest.fixture
def store(tmp_path: Path) -> TaskStore:
    return TaskStore(tmp_path / "home")


def test_a_clean_draft_is_built_and_stored(tmp_path: Path, store: TaskStore) -> None:
    draft = billing_draft()
    record = build_task(draft, store, skill_dir=make_skill_dir(tmp_path / "skills"))

    assert record.status == TaskStatus.built and record.reasons == ()
    assert record.task_id == "vendor-billing-reconciliation-i0"
    assert record.blueprint_digest == draft.blueprint.digest()
    assert record.store_path and task_digest(store.resolve(record.store_path)) == record.task_digest
    assert (record.workspace_files, record.formats) == (9, ["csv", "docx", "html", "json", "md", "pdf", "xlsx"])
    assert (record.leak_checked, record.leak_leaked, json.loads(record.findings)) == (6, 0, [])
    assert {f.area for f in record.files} == {"task", "instruction", "environment", "workspace", "skill", "tests",
                                              "solution"}  # fmt: skip
    assert task_files_frame([record]).height == len(record.files)
    row = tasks_frame([record]).row(0, named=True)
    assert row["patterns"] == draft.blueprint.pattern_ids and row["author"] == AUTHOR


def test_a_failing_draft_is_rejected_with_reasons_but_kept(store: TaskStore) -> None:
    draft = billing_draft()
    leaky = replace(draft, instruction=draft.instruction + "\nWe expect to pay EUR 8,887.15 in total.\n")
    record = build_task(leaky, store, skill_dir=None)

    assert record.status == TaskStatus.rejected
    assert [reason.split(":")[0] for reason in record.reasons] == ["leaks.leaked", "evaluator.reveals_expected"]
    assert "total_expected ('8887.15') appears in instruction.md" in record.reasons[0]
    assert record.store_path is not None and (record.leak_checked, record.leak_leaked) == (6, 1)


def test_a_draft_that_cannot_be_written_is_an_error(store: TaskStore) -> None:
    draft = billing_draft()
    record = build_task(replace(draft, workspace={"../x": b"1"}), store, skill_dir=None)
    assert record.status == TaskStatus.error and record.reasons[0].startswith("write: workspace path")
    assert record.store_path is None


def skill_rows() -> list[dict[str, Any]]:
    return [
        {"skill_id": "sk-1", "path": "office/docling", "name": "docling", "domain": DOMAIN},
        {"skill_id": "sk-2", "path": "office/no-patterns", "name": "no-patterns", "domain": DOMAIN},
    ]


def selection_rows() -> list[dict[str, Any]]:
    return [
        {"skill_id": "sk-1", "path": "office/docling", "pattern_id": "distributed_evidence", "rank": 2},
        {"skill_id": "sk-1", "path": "office/docling", "pattern_id": "source_arithmetic_error", "rank": 1},
        {"skill_id": "sk-2", "path": "office/no-patterns", "pattern_id": None, "rank": None},
    ]


def test_without_an_author_every_selected_skill_is_skipped(tmp_path: Path, store: TaskStore) -> None:
    authored = author_tasks(skill_rows(), selection_rows(), None, skills_root=tmp_path, store=store)
    assert authored.blueprints == []
    [record] = authored.tasks
    assert (record.status, record.reasons, record.skill_id) == (TaskStatus.skipped, (NO_AUTHOR_REASON,), "sk-1")
    assert record.patterns == ("source_arithmetic_error", "distributed_evidence")
    assert record.task_id is None and tasks_frame(authored.tasks).height == 1


def test_an_author_drafts_checks_and_stores(tmp_path: Path, store: TaskStore) -> None:
    make_skill_dir(tmp_path / "skills")
    seen: list[int] = []
    started: list[tuple[int, int, str]] = []
    authored = author_tasks(skill_rows(), selection_rows(), SampleAuthor(), skills_root=tmp_path / "skills",
                            store=store, progress=seen.append,
                            starting=lambda *told: started.append(told))  # fmt: skip
    [record] = authored.tasks
    assert record.status == TaskStatus.built, record.reasons
    assert (record.task_id, record.skill_id, record.author) == ("billing-docling-i0", "sk-1", AUTHOR)
    assert seen == [1] and started == [(1, 1, "office/docling")], "the skill without patterns is not counted"
    frame = blueprints_frame(authored.blueprints)
    assert frame.select("task_name", "skill_id", "domain").rows() == [("billing-docling", "sk-1", DOMAIN)]


def test_without_a_configured_root_the_skill_comes_from_the_root_its_catalog_row_recorded(
    tmp_path: Path, store: TaskStore
) -> None:
    make_skill_dir(tmp_path / "walked")
    rows = [row | {"root": str(tmp_path / "walked")} for row in skill_rows()]

    [record] = author_tasks(rows, selection_rows(), SampleAuthor(), store=store).tasks
    assert record.status == TaskStatus.built, record.reasons
    [moved] = author_tasks(rows, selection_rows(), SampleAuthor(), skills_root=tmp_path / "elsewhere",
                           store=store).tasks  # fmt: skip
    assert moved.status == TaskStatus.error and str(tmp_path / "elsewhere") in moved.reasons[0]


@pytest.mark.parametrize(
    ("reference", "status", "reason"),
    [
        ("task_samples:DecliningAuthor", TaskStatus.skipped, "author offline:declines declined: no world kit fits"),
        ("task_samples:BrokenAuthor", TaskStatus.error, "author offline:broken failed: RuntimeError: the kit crashed"),
    ],
)
def test_authors_that_decline_or_fail_leave_a_row(
    tmp_path: Path, store: TaskStore, reference: str, status: TaskStatus, reason: str
) -> None:
    author = load_author(reference)
    [record] = author_tasks(skill_rows(), selection_rows(), author, skills_root=tmp_path, store=store).tasks
    assert record.status == status and record.reasons[0].startswith(reason)


def test_a_missing_skill_folder_is_an_error(tmp_path: Path, store: TaskStore) -> None:
    authored = author_tasks(skill_rows(), selection_rows(), SampleAuthor(), skills_root=tmp_path, store=store)
    [record] = authored.tasks
    assert record.status == TaskStatus.error and "skill folder" in record.reasons[0]
    assert len(authored.blueprints) == 1  # the blueprint was drafted; it is recorded


def test_a_draft_for_another_skill_is_rejected(tmp_path: Path, store: TaskStore) -> None:
    make_skill_dir(tmp_path / "skills")
    author = SampleAuthor()
    other = {**skill_rows()[0], "skill_id": "sk-other"}
    draft = author.draft(other, [])
    record = build_task(draft, store, skill_dir=tmp_path / "skills" / "office" / "docling", skill_row=skill_rows()[0])
    assert record.status == TaskStatus.rejected
    assert record.reasons[-1].startswith("lineage.wrong_skill: the blueprint names skill sk-other")


def test_load_author() -> None:
    assert load_author("") is None
    assert isinstance(load_author("task_samples:SampleAuthor"), SampleAuthor)
    with pytest.raises(AuthorLoadError, match=r"form package\.module:attribute"):
        load_author("task_samples")
    with pytest.raises(AuthorLoadError, match="could not be loaded"):
        load_author("no_such_module_xyz:Author")
    with pytest.raises(AuthorLoadError, match="is not an author"):
        load_author("task_samples:DOMAIN")
