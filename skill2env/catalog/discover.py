"""Find skill folders under a skills root without ever leaving it.

A skill folder is any directory holding a `SKILL.md` (any letter case, `SKILLS.md` too).
Symlinks are listed but never followed, so nothing outside the root is read. Skills inside
other skills (skill packs) are their own skills; their files are not counted twice.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SKILL_MD_NAME = re.compile(r"^skills?\.md$", re.IGNORECASE)
MAX_FILES_PER_SKILL = 5_000
"""Inventory cap: a folder with more files is still cataloged, its inventory marked truncated."""
IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", ".mypy_cache"})
"""Tool and VCS folders: never skill content, sometimes huge."""


@dataclass(frozen=True)
class ListedFile:
    relpath: str
    """Relative to the skill folder, POSIX separators."""
    size: int
    is_symlink: bool
    symlink_target: str | None = None
    is_regular: bool = True


@dataclass
class SkillFolder:
    """A skill folder found under the root, with its file listing (nested skills excluded)."""

    root: Path
    relpath: str
    """Relative to the skills root; `.` when the root itself is a skill."""
    skill_md_file: str
    nested_in: str | None = None
    files: list[ListedFile] = field(default_factory=list)
    n_files: int = 0
    total_bytes: int = 0

    @property
    def abspath(self) -> Path:
        return self.root / self.relpath


def preferred_skill_md(names: list[str]) -> str | None:
    """The SKILL.md among a folder's file names, preferring the exact spelling `SKILL.md`."""
    candidates = [n for n in names if SKILL_MD_NAME.match(n)]
    if not candidates:
        return None
    return "SKILL.md" if "SKILL.md" in candidates else sorted(candidates)[0]


def discover_skills(root: Path) -> Iterator[SkillFolder]:
    """Yield every skill folder under `root`, in a stable (sorted) order."""
    root = root.resolve()
    yield from _walk(root, ".", enclosing=None)


def _scan(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _walk(root: Path, relpath: str, enclosing: SkillFolder | None) -> Iterator[SkillFolder]:
    directory = root / relpath
    entries = _scan(directory)
    # A symlinked SKILL.md still marks a skill (listed, never followed), so it gets a row saying so.
    file_names = [e.name for e in entries if e.is_file(follow_symlinks=False) or e.is_symlink()]
    skill_md = preferred_skill_md(file_names)
    current = enclosing
    if skill_md is not None:
        current = SkillFolder(
            root=root,
            relpath=relpath,
            skill_md_file=skill_md,
            nested_in=enclosing.relpath if enclosing else None,
        )
    yield from _list_entries(root, relpath, entries, current)
    if current is not None and current is not enclosing:
        yield current


def _list_entries(
    root: Path, relpath: str, entries: list[os.DirEntry[str]], owner: SkillFolder | None
) -> Iterator[SkillFolder]:
    for entry in entries:
        child_rel = entry.name if relpath == "." else f"{relpath}/{entry.name}"
        if entry.is_symlink():
            if owner is not None:
                _add_file(owner, child_rel, _symlink_listing(entry))
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in IGNORED_DIRS:
                yield from _walk(root, child_rel, owner)
            continue
        if owner is not None:
            _add_file(owner, child_rel, _file_listing(entry))


def _add_file(owner: SkillFolder, child_rel: str, listing: tuple[int, bool, str | None, bool]) -> None:
    size, is_symlink, target, is_regular = listing
    owner.n_files += 1
    owner.total_bytes += size
    if len(owner.files) >= MAX_FILES_PER_SKILL:
        return
    inner = child_rel if owner.relpath == "." else child_rel[len(owner.relpath) + 1 :]
    owner.files.append(ListedFile(inner, size, is_symlink, target, is_regular))


def _file_listing(entry: os.DirEntry[str]) -> tuple[int, bool, str | None, bool]:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return (0, False, None, False)
    return (st.st_size, False, None, entry.is_file(follow_symlinks=False))


def _symlink_listing(entry: os.DirEntry[str]) -> tuple[int, bool, str | None, bool]:
    try:
        target = str(Path(entry.path).readlink())
    except OSError:
        target = None
    return (0, True, target, False)


def points_outside(root: Path, link_path: Path, target: str | None) -> bool:
    """Whether a symlink's target resolves outside `root` (lexically; the link is never followed)."""
    if target is None:
        return True
    resolved = Path(os.path.normpath(link_path.parent / target))
    return not resolved.is_relative_to(root)
