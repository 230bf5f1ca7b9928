"""Files that must stay as the task built them (read-only sources), by sha256 digest."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .base import CheckFailed, CheckResult, CheckSpecError, check, param, workspace_file

CHUNK = 1 << 20


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


@check(
    "file_unchanged",
    "Files still have the sha256 they were built with (e.g. read-only inputs the agent must not edit).",
    optional=("path", "sha256", "files"),
)
def file_unchanged(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    expected = _expected(params)
    compared = []
    changed = []
    for path, digest in sorted(expected.items()):
        try:
            actual = sha256_file(workspace_file(workspace, path))
        except CheckFailed as exc:
            actual = None
            compared.append({"path": path, "expected": digest, "actual": None, "problem": exc.summary})
        except OSError as exc:
            actual = None
            compared.append({"path": path, "expected": digest, "actual": None, "problem": str(exc)})
        else:
            compared.append({"path": path, "expected": digest, "actual": actual})
        if actual != digest:
            changed.append(path)
    summary = f"{len(changed)} of {len(expected)} file(s) changed or missing" if changed else "all unchanged"
    return CheckResult(not changed, {"summary": summary, "changed": changed, "compared": compared})
