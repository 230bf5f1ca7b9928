"""From drafts to stored task directories and table rows: check, write into the store, record.

A draft that fails an author-side check is still written and stored, with status `rejected`
and its reasons, so it can be inspected and fixed; nothing an author produced is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skill2env.home import default_skills_root
from skill2env.tasks.authoring import NO_AUTHOR_REASON, Author, Rejection
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.checks import CheckReport, Finding, Severity, check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import TaskWriteError
from skill2env.tasks.records import TaskRecord, TaskStatus, rubric_column, task_files_of, task_id_of
from skill2env.tasks.store import TaskStore


@dataclass
class Authored:
    """What authoring one domain produced: blueprint rows (blueprint, author) and task rows."""

    blueprints: list[tuple[Blueprint, str]] = field(default_factory=list)
    tasks: list[TaskRecord] = field(default_factory=list)


def build_task(
    draft: TaskDraft, store: TaskStore, *, skill_dir: Path | None, skill_row: Mapping[str, Any] | None = None
) -> TaskRecord:
    """Check `draft` (and, given the skill's row, that it is about that skill), write it into the
    store, and describe the result as a `tasks` row."""
    blueprint = draft.blueprint
    report = check_draft(draft)
    mismatch = _lineage(blueprint, skill_row) if skill_row is not None else None
    if mismatch:
        report = replace(report, findings=(*report.findings, mismatch))
    base = _from_blueprint(blueprint, draft.author)
    try:
        stored = store.put_draft(draft, skill_dir=skill_dir)
    except (TaskWriteError, OSError) as exc:
        return TaskRecord(**base, status=TaskStatus.error, reasons=(f"write: {exc}",), **_leak_columns(report))
    status = TaskStatus.built if report.passed else TaskStatus.rejected
    return TaskRecord(
        **base,
        status=status,
        reasons=tuple(report.reasons),
        task_digest=stored.digest,
        store_path=stored.relative_path,
        environment="dockerfile",
        rubric=rubric_column(blueprint.rubric),
        files=task_files_of(stored.path),
        **_leak_columns(report),
    )


def author_tasks(
    skills: Sequence[Mapping[str, Any]],
    selections: Sequence[Mapping[str, Any]],
    author: Author | None,
    *,
    store: TaskStore,
    skills_root: Path | None = None,
    progress: Callable[[int], None] | None = None,
    starting: Callable[[int, int, str], None] | None = None,
) -> Authored:
    """One task attempt per skill that has selected patterns (`pattern_id` set in its selection rows).
    Each skill's folder is `skills_root / path` when a root is given, else under the root its catalog
    row recorded (`root`), else under the default skills root. `starting(i, n, path)` is told before
    each of the n skills, `progress(done)` after."""
    chosen: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in selections:
        if row.get("pattern_id"):
            chosen.setdefault((row["skill_id"], row["path"]), []).append(row)
    authored = Authored()
    selected = [s for s in skills if (s["skill_id"], s["path"]) in chosen]
    for done, skill in enumerate(selected):
        if starting:
            starting(done + 1, len(selected), str(skill["path"]))
        rows = sorted(chosen[(skill["skill_id"], skill["path"])], key=lambda r: r.get("rank") or 0)
        blueprint, record = _author_one(skill, rows, author, skills_root, store)
        if blueprint is not None:
            authored.blueprints.append(blueprint)
        authored.tasks.append(record)
        if progress:
            progress(done + 1)
    return authored


def _author_one(
    skill: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    author: Author | None,
    skills_root: Path | None,
    store: TaskStore,
) -> tuple[tuple[Blueprint, str] | None, TaskRecord]:
    about = {"skill_id": skill["skill_id"], "skill_path": skill["path"], "domain": skill.get("domain"),
             "patterns": tuple(str(r["pattern_id"]) for r in rows)}  # fmt: skip
    if author is None:
        return None, TaskRecord(status=TaskStatus.skipped, reasons=(NO_AUTHOR_REASON,), **about)
    try:
        result = author.draft(skill, rows)
    except Exception as exc:  # an author's failure is a row, not a failed run
        reason = f"author {author.name} failed: {type(exc).__name__}: {exc}"
        return None, TaskRecord(status=TaskStatus.error, reasons=(reason,), author=author.name, **about)
    if isinstance(result, Rejection):
        verb, status = ("failed", TaskStatus.rejected) if result.failed else ("declined", TaskStatus.skipped)
        reason = f"author {result.author or author.name} {verb}: {result.reason}"
        return None, TaskRecord(status=status, reasons=(reason,), author=author.name, **about)
    root = skills_root or (Path(skill["root"]) if skill.get("root") else default_skills_root())
    skill_dir = root / str(skill["path"])
    if not skill_dir.is_dir():
        reason = f"skill folder {skill_dir} not found (moved since the catalog walked {root}? set skills_root)"
        base = _from_blueprint(result.blueprint, result.author)
        return (result.blueprint, result.author), TaskRecord(**base, status=TaskStatus.error, reasons=(reason,))
    return (result.blueprint, result.author), build_task(result, store, skill_dir=skill_dir, skill_row=skill)


def _lineage(blueprint: Blueprint, skill: Mapping[str, Any]) -> Finding | None:
    if blueprint.skill.skill_id == skill["skill_id"] and blueprint.domain == skill.get("domain"):
        return None
    message = (f"the blueprint names skill {blueprint.skill.skill_id} in {blueprint.domain}, but was drafted for "
               f"{skill['skill_id']} in {skill.get('domain')}")  # fmt: skip
    return Finding(check="lineage", code="wrong_skill", severity=Severity.error, message=message)


def _from_blueprint(blueprint: Blueprint, author: str) -> dict[str, Any]:
    return {
        "task_id": task_id_of(blueprint.task_name, blueprint.iteration),
        "task_name": blueprint.task_name,
        "iteration": blueprint.iteration,
        "skill_id": blueprint.skill.skill_id,
        "skill_path": blueprint.skill.path,
        "domain": blueprint.domain,
        "patterns": tuple(blueprint.pattern_ids),
        "blueprint_digest": blueprint.digest(),
        "author": author,
    }


def _leak_columns(report: CheckReport) -> dict[str, Any]:
    findings = [f.model_dump(mode="json") for f in report.findings]
    return {"leak_checked": report.leak.checked, "leak_leaked": report.leak.leaked,
            "findings": json.dumps(findings, sort_keys=True, ensure_ascii=False)}  # fmt: skip
