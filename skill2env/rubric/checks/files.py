"""Whether deliverables exist (or must not): a path or a glob under the workspace."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import CheckResult, CheckSpecError, check, inside, param, relative_path

KINDS = ("file", "dir", "any")
GLOB_CHARS = frozenset("*?[")


def matches(workspace: Path, pattern: str) -> list[Path]:
    """Workspace paths matching `pattern` (a plain path or a glob), sorted; links leaving the
    workspace are left out."""
    relative = relative_path(workspace, pattern)
    if not GLOB_CHARS.intersection(str(relative)):
        candidate = workspace / relative
        found = [candidate] if candidate.exists() or candidate.is_symlink() else []
    else:
        found = sorted(workspace.glob(str(relative)))
    return [p for p in found if inside(workspace, p)]


def _kind_ok(path: Path, kind: str) -> bool:
    if kind == "file":
        return path.is_file()
    if kind == "dir":
        return path.is_dir()
    return path.exists()


def _describe(workspace: Path, path: Path) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path.relative_to(workspace).as_posix()}
    if path.is_symlink():
        entry["link"] = True
    if path.is_file():
        entry["bytes"] = path.stat().st_size
    elif path.is_dir():
        entry["dir"] = True
    else:
        entry["special"] = True
    return entry


@check(
    "file_exists",
    "A path (or at least `min_count` matches of a glob) exists in the workspace, of the given kind and size.",
    required=("path",),
    optional=("kind", "min_bytes", "min_count"),
)
def file_exists(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    pattern = param(params, "path", str)
    kind = param(params, "kind", str, "file")
    if kind not in KINDS:
        raise CheckSpecError(f"kind must be one of {KINDS}, not {kind!r}")
    min_bytes = param(params, "min_bytes", int, 0)
    min_count = param(params, "min_count", int, 1)
    found = matches(workspace, pattern)
    good = [p for p in found if _kind_ok(p, kind) and (not p.is_file() or p.stat().st_size >= min_bytes)]
    passed = len(good) >= min_count
    wanted = f"{min_count} {kind}{'s' if min_count != 1 else ''}" + (f" of ≥ {min_bytes} bytes" if min_bytes else "")
    return CheckResult(
        passed,
        {
            "summary": f"{len(good)} of {len(found)} match(es) of {pattern} qualify; wanted {wanted}",
            "compared": {"pattern": pattern, "kind": kind, "min_bytes": min_bytes, "min_count": min_count},
            "found": [_describe(workspace, p) for p in found],
        },
    )


@check(
    "file_absent",
    "Nothing in the workspace matches a path or glob (e.g. scratch files that must be cleaned up).",
    required=("path",),
)
def file_absent(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    pattern = param(params, "path", str)
    relative = relative_path(workspace, pattern)
    if GLOB_CHARS.intersection(str(relative)):
        found = sorted(workspace.glob(str(relative)))
    else:
        candidate = workspace / relative
        found = [candidate] if candidate.exists() or candidate.is_symlink() else []
    return CheckResult(
        not found,
        {
            "summary": f"{len(found)} match(es) of {pattern}" + ("" if found else ": absent as required"),
            "compared": {"pattern": pattern},
            "found": [_describe(workspace, p) for p in found],
        },
    )
