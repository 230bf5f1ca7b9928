"""Files that must stay as the task built them (read-only sources), by sha256 digest."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import CheckFailed, CheckResult, CheckSpecError, WorkspaceFile, check, open_workspace_file, param

CHUNK = 1 << 20
DIGEST_MAX_BYTES = 1 << 30
"""A file bigger than this (param `max_bytes` may only lower it) counts as changed, unread: a
sparse file can claim terabytes that would take hours to hash."""


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes (what `file_unchanged` expects)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _expected(params: Mapping[str, Any]) -> dict[str, str]:
    files = param(params, "files", dict, {})
    if "path" in params or "sha256" in params:
        files = {**files, param(params, "path", str): param(params, "sha256", str)}
    if not files:
        raise CheckSpecError("file_unchanged needs `path` + `sha256`, or `files` {path: sha256}")
    for path, digest in files.items():
        if not isinstance(digest, str) or len(digest) != 64:
            raise CheckSpecError(f"the expected sha256 of {path} must be 64 hex digits")
    return {path: digest.lower() for path, digest in files.items()}


def _workspace_digest(workspace: Path, path: str, max_bytes: int) -> str:
    with open_workspace_file(workspace, path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise CheckFailed(f"{handle.shown} is {size} bytes, more than this check reads ({max_bytes})")
        return _digest_of(handle, max_bytes)


def _digest_of(handle: WorkspaceFile, max_bytes: int) -> str:
    digest = hashlib.sha256()
    read = 0
    try:
        for block in iter(lambda: handle.read(CHUNK), b""):
            read += len(block)
            if read > max_bytes:
                raise CheckFailed(f"{handle.shown} grew past what this check reads ({max_bytes} bytes)")
            digest.update(block)
    except OSError as exc:
        raise CheckFailed(f"{handle.shown} cannot be read: {exc.strerror or exc}") from exc
    return digest.hexdigest()


@check(
    "file_unchanged",
    "Files still have the sha256 they were built with (e.g. read-only inputs the agent must not edit).",
    optional=("path", "sha256", "files", "max_bytes"),
)
def file_unchanged(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    expected = _expected(params)
    max_bytes = min(max(0, param(params, "max_bytes", int, DIGEST_MAX_BYTES)), DIGEST_MAX_BYTES)
    compared = []
    changed = []
    for path, digest in sorted(expected.items()):
        try:
            actual = _workspace_digest(workspace, path, max_bytes)
        except CheckFailed as exc:
            actual = None
            compared.append({"path": path, "expected": digest, "actual": None, "problem": exc.summary})
        else:
            compared.append({"path": path, "expected": digest, "actual": actual})
        if actual != digest:
            changed.append(path)
    summary = f"{len(changed)} of {len(expected)} file(s) changed or missing" if changed else "all unchanged"
    return CheckResult(
        not changed, {"summary": summary, "changed": changed, "compared": compared, "max_bytes": max_bytes}
    )
