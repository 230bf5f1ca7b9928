"""The hand-written Harbor task fixtures under tests/fixtures/harbor/."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from skill2env.sandbox.base import Sandbox
from skill2env.sandbox.bwrap_backend import bwrap_available
from skill2env.sandbox.engine import engine_reachable
from skill2env.sandbox.task import TaskDir

SandboxFactory = Callable[..., Sandbox]
"""`new_sandbox(limits, **options)`: a not-yet-started sandbox of the test's backend, stopped after the test."""

HARBOR_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "harbor"
CSV_AGGREGATION = "csv-aggregation"
LOG_TRIAGE = "log-triage"


def fixture_task(name: str) -> TaskDir:
    return TaskDir(HARBOR_FIXTURES / name)


def tree(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def require_backend(backend: str) -> None:
    """Fail (or, when explicitly allowed, skip) unless `backend` can run here.

    CI runs everything: a backend that is not usable FAILS its tests, with what to do. Skipping is
    only for an explicit SKILL2ENV_SKIP_DOCKER=1 / SKILL2ENV_SKIP_BWRAP=1.
    """
    skip_var = f"SKILL2ENV_SKIP_{backend.upper()}"
    usable = engine_reachable() if backend == "docker" else bwrap_available()
    if usable:
        return
    if os.environ.get(skip_var) == "1":
        pytest.skip(f"{backend} is not available and {skip_var}=1")
    pytest.fail(f"the {backend} sandbox backend is not usable here: run `make sandbox` (or set {skip_var}=1)")
