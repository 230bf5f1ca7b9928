"""Helpers for the check library's tests: a workspace directory and a way to run one check on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rubric_helpers import Run

from skill2env.rubric.checks import CheckResult, run_check


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace


@pytest.fixture
def put(ws: Path) -> Callable[[str, str | bytes], Path]:
    """Write a workspace file (parents created)."""

    def write(relative: str, content: str | bytes) -> Path:
        path = ws / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    return write


@pytest.fixture
def run(ws: Path, tmp_path: Path) -> Run:
    """`run(check_name, **params)` on the workspace, with `tmp_path/tests` as the verifier's directory."""
    tests_dir = tmp_path / "tests"
    tests_dir.mkdir(exist_ok=True)

    def run_one(name: str, **params: Any) -> CheckResult:
        return run_check(name, ws, params, tests_dir=tests_dir)

    return run_one
