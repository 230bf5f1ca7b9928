"""The content-addressed store of task directories: `<data root>/objects/sha256/<aa>/<digest>/` (the
home, or the cluster's shared storage: `Home.data_root`).

A directory is written to a temporary folder beside its final place, its digest taken, and the
folder renamed into place, so a reader never sees half a task; the same content lands at the
same path, so writing it again is free.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skill2env.home import Home
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import iter_files, task_digest, write_task_dir

OBJECTS_DIR = "objects"
ALGORITHM = "sha256"


@dataclass(frozen=True)
class StoredTask:
    digest: str
    path: Path
    relative_path: str
    """Relative to the skill2env home (what the lake records, so a home can move)."""


class TaskStore:
    """Task directories by digest under one skill2env home."""

    def __init__(self, home_root: Path) -> None:
        self.home_root = home_root
        self.root = home_root / OBJECTS_DIR / ALGORITHM

    @classmethod
    def of(cls, home: Home) -> TaskStore:
        return cls(home.data_root)

    def path_for(self, digest: str) -> Path:
        return self.root / digest[:2] / digest

    def resolve(self, relative_path: str) -> Path:
        """The directory a lake row's `store_path` names."""
        return self.home_root / relative_path

    def put_draft(self, draft: TaskDraft, *, skill_dir: Path | None) -> StoredTask:
        """Write `draft` as a task directory into the store (see `write_task_dir` for what it raises)."""
        with self._scratch() as scratch:
            write_task_dir(draft, Path(scratch) / "task", skill_dir=skill_dir)
            return self._commit(Path(scratch) / "task")

    def put_dir(self, source: Path) -> StoredTask:
        """Copy the regular files of a task directory into the store (links to files are copied as files)."""
        with self._scratch() as scratch:
            target = Path(scratch) / "task"
            for relative, path in iter_files(source):
                destination = target / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination)
                destination.chmod(0o755 if path.stat().st_mode & 0o111 else 0o644)
            target.mkdir(exist_ok=True)
            return self._commit(target)

    def _commit(self, built: Path) -> StoredTask:
        digest = task_digest(built)
        final = self.path_for(digest)
        if not final.is_dir():
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                built.rename(final)
            except OSError:
                if not final.is_dir():  # not a concurrent writer of the same content: a real failure
                    raise
        return StoredTask(digest, final, final.relative_to(self.home_root).as_posix())

    def _scratch(self) -> tempfile.TemporaryDirectory[str]:
        """A temporary folder inside the store: the same filesystem, so the final rename is atomic."""
        self.root.mkdir(parents=True, exist_ok=True)
        return tempfile.TemporaryDirectory(prefix=".tmp-", dir=self.root, ignore_cleanup_errors=True)
