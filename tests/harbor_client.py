"""The real Harbor package, in its own venv (`make harbor`: Python >= 3.12, harbor from PyPI).

Tests reach it through subprocesses: `harbor_cli(...)` runs the `harbor` command, `harbor_python(code)`
runs a snippet with Harbor importable and returns what it printed as JSON. A missing venv is a failure,
not a skip: `make test` creates it, so its absence means the set-up is broken.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARBOR_VENV = Path(os.environ.get("HARBOR_VENV", ROOT / ".harbor-venv"))
HARBOR_BIN = HARBOR_VENV / "bin" / "harbor"
HARBOR_PYTHON = HARBOR_VENV / "bin" / "python"


def require_harbor() -> None:
    if not HARBOR_BIN.is_file():
        pytest.fail(f"Harbor is not installed at {HARBOR_VENV}: run `make harbor` (part of `make test`)")


def harbor_cli(*args: str | Path, cwd: Path | None = None, timeout: float = 600,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`harbor ARGS` as a user runs it; never raises on a non-zero exit."""
    require_harbor()
    return subprocess.run([str(HARBOR_BIN), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, check=False)  # fmt: skip


def harbor_python(code: str, *args: str | Path, timeout: float = 300) -> Any:
    """Run `code` (reads `sys.argv[1:]`, prints one JSON document) with Harbor importable."""
    require_harbor()
    done = subprocess.run([str(HARBOR_PYTHON), "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    if done.returncode != 0:
        raise AssertionError(f"the Harbor snippet failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)
