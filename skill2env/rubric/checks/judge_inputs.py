"""What a judge item's model gets to read: its target files from the final workspace, size-capped,
every cut marked. Collected inside the environment (globs expanded there, links leaving the
workspace refused) so the host judges exactly what the verifier saw."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from .base import CheckFailed, WorkspaceFile, inside, open_workspace_file, relative_path
from .files import GLOB_CHARS, glob, printable

FILE_CHARS = 24_000
ITEM_CHARS = 96_000
MAX_FILES = 40
LISTING_ENTRIES = 200
BINARY_SNIFF = 8192


def cut_marker(dropped: int) -> str:
    return f"\n[… cut by the verifier: {dropped} more characters not shown …]\n"


def _targets(workspace: Path, patterns: list[str]) -> tuple[list[Path], list[str]]:
    found: list[Path] = []
    missing: list[str] = []
    for pattern in patterns:
        relative = relative_path(workspace, pattern)
        try:
            if GLOB_CHARS.intersection(str(relative)):
                hits = [p for p in glob(workspace, str(relative)) if p.is_file()]
            else:
                candidate = workspace / relative
                hits = [candidate] if candidate.is_file() else []
                if candidate.is_dir():
                    hits = [p for p in glob(workspace, f"{relative.as_posix()}/**/*") if p.is_file()]
        except CheckFailed:  # a tree too deep to walk: what it hides is reported missing
            hits = []
        hits = [p for p in hits if inside(workspace, p)]
        if not hits:
            missing.append(pattern)
        found += [p for p in hits if p not in found]
    return found, missing


def read_capped(handle: WorkspaceFile, limit: int) -> dict[str, Any]:
    """One opened file for the judge: its text up to `limit` characters (cut marked), or why not."""
    size = os.fstat(handle.fileno()).st_size
    head = handle.read(max(0, min(size, limit * 4 + 4)))
    if b"\x00" in head[:BINARY_SNIFF]:
        return {"bytes": size, "binary": True, "text": "", "truncated": False}
    text = head.decode("utf-8", errors="replace")
    truncated = len(text) > limit or len(head) < size
    shown = text[:limit]
    if truncated:
        dropped = max(len(text) - limit, 0) + max(size - len(head), 0)
        shown += cut_marker(dropped)
    return {"bytes": size, "binary": False, "text": shown, "truncated": truncated}


def judge_inputs(
    workspace: Path, patterns: list[str], *, file_chars: int = FILE_CHARS, item_chars: int = ITEM_CHARS
) -> dict[str, Any]:
    """The target files of one judge item, and a listing of the workspace for context."""
    files, missing = _targets(workspace, patterns)
    budget = item_chars
    entries = []
    for path in files[:MAX_FILES]:
        relative = path.relative_to(workspace).as_posix()
        shown = printable(relative)
        if budget <= 0:
            entries.append({"path": shown, "text": "", "omitted": True})
            continue
        try:
            with open_workspace_file(workspace, relative) as handle:
                entry = read_capped(handle, min(file_chars, budget))
        except CheckFailed as exc:  # not a regular file any more, a link leading out: the judge is told
            entries.append({"path": shown, "text": "", "unreadable": printable(exc.summary)})
            continue
        except OSError as exc:  # unreadable (permissions, vanished): the judge is told, nothing breaks
            entries.append({"path": shown, "text": "", "unreadable": exc.strerror or str(exc)})
            continue
        budget -= len(entry["text"])
        entries.append({"path": shown, **entry})
    return {
        "files": entries,
        "missing": missing,
        "files_not_shown": max(0, len(files) - MAX_FILES),
        "listing": listing(workspace),
        "caps": {"file_chars": file_chars, "item_chars": item_chars},
    }


def listing(workspace: Path) -> list[str]:
    """The workspace's files with sizes, capped (what exists, for a judge without target files)."""
    shown: list[str] = []
    try:
        for current, dirs, names in os.walk(workspace):
            dirs.sort()
            for name in sorted(names):
                path = Path(current, name)
                if len(shown) >= LISTING_ENTRIES:
                    return [*shown, "… (listing cut)"]
                try:
                    info = path.lstat()
                except OSError:
                    shown.append(f"{printable(path.relative_to(workspace).as_posix())} (unreadable)")
                    continue
                if stat.S_ISREG(info.st_mode):
                    shown.append(f"{printable(path.relative_to(workspace).as_posix())} ({info.st_size} bytes)")
    except RecursionError:
        shown.append("… (listing cut: the tree nests too deeply)")
    return shown
