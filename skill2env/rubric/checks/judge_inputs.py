"""What a judge item's model gets to read: its target files from the final workspace, size-capped,
every cut marked. Collected inside the environment (globs expanded there, links leaving the
workspace refused) so the host judges exactly what the verifier saw."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .base import inside, relative_path
from .files import GLOB_CHARS

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
        if GLOB_CHARS.intersection(str(relative)):
            hits = sorted(p for p in workspace.glob(str(relative)) if p.is_file())
        else:
            candidate = workspace / relative
            hits = [candidate] if candidate.is_file() else []
            if candidate.is_dir():
                hits = sorted(p for p in candidate.rglob("*") if p.is_file())
        hits = [p for p in hits if inside(workspace, p)]
        if not hits:
            missing.append(pattern)
        found += [p for p in hits if p not in found]
    return found, missing


def read_capped(path: Path, limit: int) -> dict[str, Any]:
    """One file for the judge: its text up to `limit` characters (cut marked), or why not."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(min(size, limit * 4 + 4))
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
        if budget <= 0:
            entries.append({"path": relative, "text": "", "omitted": True})
            continue
        try:
            entry = read_capped(path, min(file_chars, budget))
        except OSError as exc:  # unreadable (permissions, vanished): the judge is told, nothing breaks
            entries.append({"path": relative, "text": "", "unreadable": exc.strerror or str(exc)})
            continue
        budget -= len(entry["text"])
        entries.append({"path": relative, **entry})
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
    for current, dirs, names in os.walk(workspace):
        dirs.sort()
        for name in sorted(names):
            path = Path(current, name)
            if len(shown) >= LISTING_ENTRIES:
                return [*shown, "… (listing cut)"]
            try:
                if path.is_file() and not path.is_symlink():
                    shown.append(f"{path.relative_to(workspace).as_posix()} ({path.stat().st_size} bytes)")
            except OSError:
                shown.append(f"{path.relative_to(workspace).as_posix()} (unreadable)")
    return shown
