"""Stored task directories out of the lake: `out/<task_id>/`, byte for byte what the store holds."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.tasks.harbor import task_digest
from skill2env.tasks.store import TaskStore


@dataclass(frozen=True)
class Exported:
    task_id: str
    path: Path
    digest: str
    written: bool
    """False when `path` already held the same directory."""


class ExportError(RuntimeError):
    """A stored task directory is missing or no longer matches its digest."""


def export_tasks(rows: Sequence[Mapping[str, Any]], store: TaskStore, out: Path) -> list[Exported]:
    """Copy each row's stored directory to `out/<task_id>/` (rows: task_id, task_digest, store_path).

    Raises:
        ExportError: a stored directory is missing or its bytes no longer match its digest.
    """
    out.mkdir(parents=True, exist_ok=True)
    exported = []
    for row in rows:
        task_id, digest = str(row["task_id"]), str(row["task_digest"])
        source = store.resolve(str(row["store_path"]))
        if not source.is_dir() or task_digest(source) != digest:
            raise ExportError(f"task {task_id}: the store no longer holds {digest} at {source}")
        target = out / task_id
        if target.is_dir() and task_digest(target) == digest:
            exported.append(Exported(task_id, target, digest, written=False))
            continue
        with tempfile.TemporaryDirectory(prefix=".export-", dir=out) as scratch:
            staged = Path(scratch) / task_id
            shutil.copytree(source, staged, copy_function=shutil.copy)
            if target.exists():
                shutil.rmtree(target)
            staged.rename(target)
        exported.append(Exported(task_id, target, digest, written=True))
    return exported
