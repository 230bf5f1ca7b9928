"""The leak gate's search: the blueprint's hidden values against the stored task the agent will get.

The author-side check searched the draft; this searches the directory the rollouts use — its
`instruction.md` and every file of `environment/` (the workspace, the Dockerfile, anything the
image copies in), read back from the store — so a value that reaches the agent after the draft
was checked (a rebuild, a hand edit, an import) is caught before anyone trains on the task.
"""

from __future__ import annotations

from pathlib import Path

from skill2env.sandbox import TaskDir
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.checks import check_leaks, read_workspace

MAX_FILE_BYTES = 16 << 20
"""Bigger files are searched in their first this many bytes."""


def agent_visible_files(task: TaskDir) -> dict[str, bytes]:
    """Environment files by path relative to `environment/` (regular files only, never through a link)."""
    root = task.environment_dir
    files: dict[str, bytes] = {}
    if not root.is_dir():
        return files
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        relative = path.relative_to(root)
        name = relative.relative_to("workspace").as_posix() if relative.parts[0] == "workspace" else relative.as_posix()
        with path.open("rb") as handle:
            files[name] = handle.read(MAX_FILE_BYTES)
    return files


def stored_task_leaks(task_dir: Path, blueprint: Blueprint | None) -> list[str] | None:
    """The leaks found in the stored task (empty: none), or None when there is no blueprint to search for."""
    if blueprint is None:
        return None
    task = TaskDir(task_dir)
    instruction = task.instruction.read_text(encoding="utf-8", errors="replace") if task.instruction.is_file() else ""
    report = check_leaks(blueprint, instruction, read_workspace(agent_visible_files(task)))
    return [f.message for f in report.findings if f.code == "leaked"]
