"""One row of `tasks` / `task_files` / `blueprints`, as plain records (the frames live in `tables`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from skill2env.rubric import Rubric
from skill2env.tasks.documents import file_format
from skill2env.tasks.harbor import iter_files

PIPELINE_SOURCE = "pipeline"


class TaskStatus(StrEnum):
    built = "built"
    """Written and stored; the author-side checks passed."""
    rejected = "rejected"
    """Written and stored, but an author-side check failed (reasons say which)."""
    error = "error"
    """Nothing usable: the author failed, the skill folder is gone, an imported directory is broken."""
    skipped = "skipped"
    """No task was attempted (no author available, or the author declined)."""
    accepted = "accepted"
    """Validated by rollouts (oracle passes, no-op fails); set by the validation stage."""


def rubric_column(rubric: Rubric) -> str:
    """The rubric as the `rubric` column holds it: canonical JSON (sorted keys), so equal rubrics compare equal."""
    return json.dumps(rubric.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def task_id_of(task_name: str, iteration: int) -> str:
    """A task version's id: the blueprint's task name and its hardening iteration."""
    return f"{task_name}-i{iteration}"


@dataclass(frozen=True)
class TaskFile:
    path: str
    """Relative to the task directory."""
    area: str
    """task | instruction | environment | workspace | skill | tests | solution."""
    size: int
    sha256: str
    format: str


@dataclass(frozen=True)
class TaskRecord:
    """One task version (or one attempt at one) and what became of it."""

    status: TaskStatus
    task_id: str | None = None
    task_name: str | None = None
    iteration: int = 0
    reasons: tuple[str, ...] = ()
    skill_id: str | None = None
    skill_path: str | None = None
    domain: str | None = None
    patterns: tuple[str, ...] = ()
    blueprint_digest: str | None = None
    task_digest: str | None = None
    store_path: str | None = None
    author: str | None = None
    source: str = PIPELINE_SOURCE
    """`pipeline`, or `import:<folder>` for directories read by `skill2env import harbor`."""
    environment: str | None = None
    """dockerfile | setup_script | docker_image."""
    rubric: str | None = None
    """The rubric as canonical JSON (`rubric_column`; imported tasks have no blueprint to hold it)."""
    leak_checked: int | None = None
    leak_leaked: int | None = None
    findings: str = "[]"
    """Every author-side finding, as JSON."""
    files: tuple[TaskFile, ...] = ()

    @property
    def workspace_files(self) -> int:
        return sum(1 for f in self.files if f.area == "workspace")

    @property
    def formats(self) -> list[str]:
        return sorted({f.format for f in self.files if f.area == "workspace"})


def task_files_of(root: Path) -> tuple[TaskFile, ...]:
    """The inventory of a task directory (what `task_files` records)."""
    return tuple(_task_file(relative, path.read_bytes()) for relative, path in iter_files(root))


def _task_file(relative: str, data: bytes) -> TaskFile:
    return TaskFile(relative, area_of(relative), len(data), hashlib.sha256(data).hexdigest(), file_format(relative))


def area_of(relative: str) -> str:
    if relative.startswith("environment/workspace/"):
        return "workspace"
    if relative.startswith("environment/skill/"):
        return "skill"
    head = relative.split("/", 1)[0]
    return {"task.toml": "task", "instruction.md": "instruction"}.get(head, head)
