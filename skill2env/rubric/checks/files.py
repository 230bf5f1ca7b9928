"""Whether deliverables exist (or must not): a path or a glob under the workspace."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import CheckFailed, CheckResult, CheckSpecError, check, inside, param, relative_path

KINDS = ("file", "dir", "any")
GLOB_CHARS = frozenset("*?[")
DESCRIBED = 50
"""Matches described in the evidence (all are counted)."""


def printable(name: str) -> str:
    """A workspace path as text any UTF-8 writer takes: bytes of a name that are not UTF-8 (which
    Python carries as lone surrogates) shown as backslash escapes."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def glob(workspace: Path, relative: str) -> list[Path]:
    """Workspace paths matching a glob, sorted; a tree too deep to walk fails the check."""
    try:
        return sorted(workspace.glob(relative))
    except RecursionError as exc:
        raise CheckFailed(f"the workspace nests too deeply to search for {relative}", pattern=relative) from exc
    except OSError as exc:
        raise CheckFailed(f"the workspace cannot be searched for {relative}: {exc.strerror or exc}") from exc


def present(path: Path) -> bool:
    """Whether anything is at `path` (a link counts, whatever it points to)."""
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def matches(workspace: Path, pattern: str) -> list[Path]:
    """Workspace paths matching `pattern` (a plain path or a glob), sorted; links leaving the
    workspace are left out."""
    relative = relative_path(workspace, pattern)
    if not GLOB_CHARS.intersection(str(relative)):
        candidate = workspace / relative
        found = [candidate] if present(candidate) else []
    else:
        found = glob(workspace, str(relative))
    return [p for p in found if inside(workspace, p)]


def _stat(path: Path) -> os.stat_result | None:
    """The stat of what `path` leads to (links followed), None when nothing readable is there."""
    try:
        return path.stat()
    except (OSError, ValueError, RuntimeError):
        return None


def _kind_ok(info: os.stat_result | None, kind: str, min_bytes: int) -> bool:
    if info is None:
        return False
    if kind == "file":
        return stat.S_ISREG(info.st_mode) and info.st_size >= min_bytes
    if kind == "dir":
        return stat.S_ISDIR(info.st_mode)
    return not stat.S_ISREG(info.st_mode) or info.st_size >= min_bytes


def _describe(workspace: Path, path: Path, info: os.stat_result | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": printable(path.relative_to(workspace).as_posix())}
    if path.is_symlink():
        entry["link"] = True
    if info is None:
        entry["broken"] = True
    elif stat.S_ISREG(info.st_mode):
        entry["bytes"] = info.st_size
    elif stat.S_ISDIR(info.st_mode):
        entry["dir"] = True
    else:
        entry["special"] = True
    return entry


def _described(workspace: Path, found: list[Path], infos: list[os.stat_result | None]) -> list[dict[str, Any]]:
    shown = [_describe(workspace, p, i) for p, i in zip(found[:DESCRIBED], infos, strict=False)]
    if len(found) > DESCRIBED:
        shown.append({"more": len(found) - DESCRIBED})
    return shown


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
    infos = [_stat(p) for p in found]
    good = [p for p, info in zip(found, infos, strict=True) if _kind_ok(info, kind, min_bytes)]
    passed = len(good) >= min_count
    wanted = f"{min_count} {kind}{'s' if min_count != 1 else ''}" + (f" of ≥ {min_bytes} bytes" if min_bytes else "")
    return CheckResult(
        passed,
        {
            "summary": f"{len(good)} of {len(found)} match(es) of {pattern} qualify; wanted {wanted}",
            "compared": {"pattern": pattern, "kind": kind, "min_bytes": min_bytes, "min_count": min_count},
            "found": _described(workspace, found, infos),
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
        found = glob(workspace, str(relative))
    else:
        candidate = workspace / relative
        found = [candidate] if present(candidate) else []
    return CheckResult(
        not found,
        {
            "summary": f"{len(found)} match(es) of {pattern}" + ("" if found else ": absent as required"),
            "compared": {"pattern": pattern},
            "found": _described(workspace, found, [_stat(p) for p in found[:DESCRIBED]]),
        },
    )
