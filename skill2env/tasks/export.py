"""Stored task directories out of the lake, as tasks Harbor itself runs (`harbor_export`).

Each row names a stored task version; `out/<folder>/` receives its Harbor-native rewrite (a task that
is not skill2env's, byte for byte). A folder that already holds the same bytes is left alone; any
other is replaced whole (staged beside it, then renamed), so a reader never sees half a task.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.sandbox.task import workdir_of
from skill2env.tasks.harbor import task_digest
from skill2env.tasks.harbor_export import (
    ExportIdentity,
    HarborExportError,
    export_folder,
    harbor_task_files,
    read_files,
)
from skill2env.tasks.store import TaskStore

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Exported:
    task_id: str
    path: Path
    digest: str
    """The stored task version's digest (the lake's `task_digest`)."""
    written: bool
    """False when `path` already held the same directory."""


class ExportError(RuntimeError):
    """A stored task directory is missing, no longer matches its digest, or cannot be rewritten."""


def by_task_id(row: Row, files: Mapping[str, bytes]) -> str:
    return str(row["task_id"])


def by_task_version(row: Row, files: Mapping[str, bytes]) -> str:
    """One folder per distinct task version, named as the export names the task."""
    return export_folder(dict(files), identity_of(row))


def export_tasks(rows: Sequence[Row], store: TaskStore, out: Path, *, base_image: str | None = None,
                 folder: Callable[[Row, Mapping[str, bytes]], str] = by_task_id) -> list[Exported]:  # fmt: skip
    """Write each row's stored directory (rows: task_id, task_digest, store_path; optionally task_name,
    iteration, task_ids, iterations) as a Harbor task at `out/<folder(row, files)>/`.

    Raises:
        ExportError: a stored directory is missing, its bytes no longer match its digest, or its
            task.toml does not parse.
    """
    out.mkdir(parents=True, exist_ok=True)
    exported = []
    for row in rows:
        task_id, digest = str(row["task_id"]), str(row["task_digest"])
        source = store.resolve(str(row["store_path"]))
        if not source.is_dir() or task_digest(source) != digest:
            raise ExportError(f"task {task_id}: the store no longer holds {digest} at {source}")
        stored = read_files(source)
        dockerfile = stored.get("environment/Dockerfile", b"").decode(errors="replace")
        try:
            files = harbor_task_files(stored, identity_of(row), base_image=base_image, workdir=workdir_of(dockerfile))
        except HarborExportError as exc:
            raise ExportError(f"task {task_id}: {exc}") from exc
        target = out / folder(row, files)
        written = _replace_dir(target, files, modes={name: (source / name).stat().st_mode for name in stored})
        exported.append(Exported(task_id, target, digest, written=written))
    return exported


def identity_of(row: Row) -> ExportIdentity:
    task_id = str(row["task_id"])
    iterations = row.get("iterations") or ([row["iteration"]] if row.get("iteration") is not None else [])
    return ExportIdentity(
        task_name=str(row.get("task_name") or task_id),
        task_digest=str(row["task_digest"]),
        task_ids=tuple(str(t) for t in (row.get("task_ids") or [task_id])),
        iterations=tuple(int(i) for i in iterations),
    )


def files_digest(files: Mapping[str, bytes]) -> str:
    """`task_digest`'s value for a directory holding exactly `files`."""
    digest = hashlib.sha256()
    for relative in sorted(files):
        digest.update(f"{relative}\0{len(files[relative])}\0".encode())
        digest.update(files[relative])
    return digest.hexdigest()


def _replace_dir(target: Path, files: Mapping[str, bytes], *, modes: Mapping[str, int]) -> bool:
    """Make `target` hold exactly `files` (scripts executable); False when it already did."""
    if target.is_dir() and task_digest(target) == files_digest(files):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".export-", dir=target.parent) as scratch:
        staged = Path(scratch) / target.name
        for name, data in sorted(files.items()):
            path = staged / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            executable = name.endswith(".sh") or bool(modes.get(name, 0) & 0o111)
            path.chmod(0o755 if executable else 0o644)
        if target.exists():
            shutil.rmtree(target)
        staged.rename(target)
    return True
