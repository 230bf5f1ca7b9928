"""Service self-tests: run each service's own tests in a sandbox and record the outcome.

The tests run on a copy: the `skill2env.compoworld` package (stdlib + pydantic only), pydantic
and its dependencies beside it, nothing else of the project. With bubblewrap available the copy
is a bwrap sandbox's workspace (no network, read-only host system, the system `python3`);
otherwise (or with `backend="subprocess"`) a subprocess of this interpreter in a temporary
directory — the `backend` column says which. pytest runs the tests when the interpreter has it,
else the stdlib `runner` does.

A service is `verified` when its tests ran, at least one passed and none failed; `failed` when
they ran (or could not be imported) and something failed; `error` when the infrastructure failed
(the sandbox would not start, the run timed out) — never counted against the service.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from skill2env.compoworld.services import SERVICES, own_tests

Backend = Literal["bwrap", "subprocess"]
Status = Literal["verified", "failed", "error"]
PACKAGE = Path(__file__).resolve().parent
DEPENDENCIES = ("pydantic", "pydantic_core", "typing_extensions", "annotated_types", "typing_inspection")
TESTS_DIR = "skill2env/compoworld/services/tests"
OUTPUT_TAIL = 4000
DEFAULT_TIMEOUT_S = 120.0
_COUNT = re.compile(r"(\d+) (passed|failed|errors?)\b")


class Verification(BaseModel):
    service: str
    status: Status
    backend: Backend
    runner: str
    """pytest | stdlib | '' (never started)."""
    tests_passed: int = 0
    tests_failed: int = 0
    duration_s: float = 0.0
    output: str = ""
    verified_at: datetime

    @property
    def verified(self) -> bool:
        return self.status == "verified"


def stage(root: Path, *, with_dependencies: bool) -> Path:
    """Copy what a service's tests need under `root`; returns it."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    (root / "skill2env").mkdir(parents=True, exist_ok=True)
    shutil.copy2(PACKAGE.parent / "__init__.py", root / "skill2env" / "__init__.py")
    shutil.copytree(PACKAGE, root / "skill2env" / "compoworld", ignore=ignore, dirs_exist_ok=True)
    if with_dependencies:
        deps = root / "_deps"
        deps.mkdir(exist_ok=True)
        for name in DEPENDENCIES:
            spec = importlib.util.find_spec(name)
            if spec is None:
                continue
            if spec.submodule_search_locations:
                source = Path(next(iter(spec.submodule_search_locations)))
                shutil.copytree(source, deps / source.name, ignore=ignore, dirs_exist_ok=True)
            elif spec.origin:
                shutil.copy2(spec.origin, deps / Path(spec.origin).name)
    return root


def tests_command(python: str, service: str) -> str:
    """The shell command that runs one service's tests with pytest if importable, else the stdlib runner."""
    target = f"{TESTS_DIR}/{own_tests(service)}"
    return (
        f'{python} -c "import pytest" 2>/dev/null'
        f' && {{ echo "runner: pytest"; exec {python} -m pytest -q -p no:cacheprovider {target}; }}'
        f' || {{ echo "runner: stdlib"; exec {python} -m skill2env.compoworld.services.tests.runner {target}; }}'
    )


def outcome(
    service: str, backend: Backend, exit_code: int, output: str, duration: float, *, infrastructure: str = ""
) -> Verification:
    counts = {"passed": 0, "failed": 0, "error": 0}
    for number, word in _COUNT.findall(output):
        counts["error" if word.startswith("error") else word] += int(number)
    runner = "pytest" if "runner: pytest" in output else "stdlib" if "runner: stdlib" in output else ""
    failed = counts["failed"] + counts["error"]
    if infrastructure:
        status: Status = "error"
    elif exit_code == 0 and counts["passed"] > 0 and failed == 0:
        status = "verified"
    else:
        status = "failed"
    text = f"{output}\n{infrastructure}".strip()
    return Verification(
        service=service,
        status=status,
        backend=backend,
        runner=runner,
        tests_passed=counts["passed"],
        tests_failed=failed,
        duration_s=round(duration, 3),
        output=text[-OUTPUT_TAIL:],
        verified_at=datetime.now(UTC),
    )


def _run_subprocess(names: list[str], timeout: float) -> list[Verification]:
    results = []
    with tempfile.TemporaryDirectory(prefix="compoworld-verify-") as tmp:
        root = stage(Path(tmp), with_dependencies=False)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": str(root),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "LANG": "C.UTF-8",
        }
        for name in names:
            started = time.monotonic()
            try:
                done = subprocess.run(
                    ["bash", "-c", tests_command(sys.executable, name)],
                    cwd=root,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                partial = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
                results.append(
                    outcome(
                        name,
                        "subprocess",
                        124,
                        partial,
                        time.monotonic() - started,
                        infrastructure=f"timed out after {timeout:g} s",
                    )
                )
                continue
            output = done.stdout + (f"\n{done.stderr}" if done.stderr.strip() else "")
            results.append(outcome(name, "subprocess", done.returncode, output, time.monotonic() - started))
    return results


def _run_bwrap(names: list[str], timeout: float) -> list[Verification]:
    from skill2env.sandbox.base import SandboxLimits
    from skill2env.sandbox.bwrap_backend import BwrapSandbox
    from skill2env.sandbox.errors import SandboxError, SandboxTimeout
    from skill2env.sandbox.task import TaskDir

    results = []
    with tempfile.TemporaryDirectory(prefix="compoworld-verify-") as tmp:
        task = Path(tmp)
        stage(task / "environment" / "workspace", with_dependencies=True)
        (task / "task.toml").write_text('[verifier]\ntimeout_sec = 600\n\n[environment]\nnetwork_mode = "no-network"\n')
        (task / "instruction.md").write_text("Run the CompoWorld services' own tests.\n")
        limits = SandboxLimits(
            memory_mb=2048,
            wall_clock_s=timeout * (len(names) + 1),
            pids=256,
            environment={"PYTHONPATH": "/workspace:/workspace/_deps", "PYTHONDONTWRITEBYTECODE": "1"},
        )
        sandbox = BwrapSandbox(limits)
        try:
            sandbox.start(TaskDir(task))
        except SandboxError as exc:
            raise _Unavailable(f"bwrap sandbox did not start: {exc}") from exc
        try:
            for name in names:
                started = time.monotonic()
                try:
                    result = sandbox.exec(tests_command("python3", name), timeout=timeout)
                except SandboxTimeout as exc:
                    results.append(
                        outcome(
                            name,
                            "bwrap",
                            124,
                            exc.result.stdout,
                            time.monotonic() - started,
                            infrastructure=f"timed out after {timeout:g} s",
                        )
                    )
                    continue
                except SandboxError as exc:
                    results.append(
                        outcome(
                            name, "bwrap", 1, "", time.monotonic() - started, infrastructure=f"sandbox failure: {exc}"
                        )
                    )
                    continue
                output = result.stdout + (f"\n{result.stderr}" if result.stderr.strip() else "")
                results.append(outcome(name, "bwrap", result.exit_code, output, time.monotonic() - started))
        finally:
            sandbox.stop()
    return results


class _Unavailable(RuntimeError):
    pass


def bwrap_usable() -> bool:
    from skill2env.sandbox.bwrap_backend import bwrap_available

    return bwrap_available()


def self_test_services(
    names: Iterable[str] | None = None,
    *,
    backend: Literal["auto", "bwrap", "subprocess"] = "auto",
    timeout: float = DEFAULT_TIMEOUT_S,
) -> list[Verification]:
    """Run each service's own tests; one `Verification` per service, in the order given.

    `auto` uses bwrap when it is installed and starts, else a subprocess. Unknown service names
    raise `UnknownService`; nothing else raises — a broken sandbox makes `error` rows."""
    chosen = list(names) if names is not None else list(SERVICES)
    for name in chosen:
        own_tests(name)
    if backend == "subprocess" or (backend == "auto" and not bwrap_usable()):
        return _run_subprocess(chosen, timeout)
    try:
        return _run_bwrap(chosen, timeout)
    except _Unavailable as exc:
        if backend == "bwrap":
            return [outcome(n, "bwrap", 1, "", 0.0, infrastructure=str(exc)) for n in chosen]
        fallback = _run_subprocess(chosen, timeout)
        return [
            v.model_copy(update={"output": f"{exc}; fell back to a subprocess\n{v.output}"[-OUTPUT_TAIL:]})
            for v in fallback
        ]
