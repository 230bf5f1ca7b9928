"""Check exported task directories with the real Harbor: its own `Task` model loads each one, and
`harbor lint` (default rules) reports nothing.

Harbor (PyPI `harbor`, Python >= 3.12) runs in its own interpreter: the `harbor` executable is found
on `--harbor`, `$SKILL2ENV_HARBOR`, PATH, or `./.harbor-venv/bin/harbor` (what `make harbor`
creates), and its Python is the one named on that script's first line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skill2env.thresholds import FULL_CREDIT_AT

HARBOR_ENV = "SKILL2ENV_HARBOR"
LOCAL_VENV = Path(".harbor-venv/bin/harbor")
LOAD_SNIPPET = """
import json, sys, warnings
from pathlib import Path
from harbor.models.task.task import Task
warnings.simplefilter("ignore")
out = {}
for path in sys.argv[1:]:
    try:
        task = Task(Path(path))
        out[path] = {"ok": True, "name": task.config.task.name if task.config.task else None}
    except Exception as exc:
        out[path] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""


class HarborNotFound(RuntimeError):
    """No usable `harbor` executable."""


@dataclass
class TaskCheck:
    path: Path
    loaded: bool = False
    name: str | None = None
    load_error: str | None = None
    findings: list[str] = field(default_factory=list)
    oracle_reward: float | None = None
    oracle_error: str | None = None

    @property
    def ok(self) -> bool:
        oracle_ok = self.oracle_error is None and (self.oracle_reward is None or self.oracle_reward >= FULL_CREDIT_AT)
        return self.loaded and not self.findings and oracle_ok


def find_harbor(explicit: Path | None = None) -> Path:
    """Raises: HarborNotFound."""
    candidates = [explicit, Path(os.environ[HARBOR_ENV]) if os.environ.get(HARBOR_ENV) else None]
    on_path = shutil.which("harbor")
    candidates += [Path(on_path) if on_path else None, LOCAL_VENV.resolve()]
    for candidate in candidates:
        if candidate is not None and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise HarborNotFound(f"no harbor executable (give --harbor PATH, set {HARBOR_ENV}, or run `make harbor`)")


def harbor_python(harbor: Path) -> Path:
    """The interpreter Harbor is installed in: its venv's python, else the script's `#!` line."""
    sibling = harbor.parent / "python"
    if sibling.is_file():
        return sibling
    first = harbor.read_bytes().split(b"\n", 1)[0].decode(errors="replace")
    if first.startswith("#!"):
        return Path(first[2:].strip().split()[0])
    raise HarborNotFound(f"cannot tell which Python runs {harbor}")


def check_tasks(dirs: Sequence[Path], harbor: Path, *, timeout: float = 600) -> list[TaskCheck]:
    """Load every directory with Harbor's `Task` model and lint it with the default rules."""
    checks = {path.resolve(): TaskCheck(path) for path in dirs}
    if not checks:
        return []
    paths = [str(p) for p in checks]
    loaded = _run([str(harbor_python(harbor)), "-c", LOAD_SNIPPET, *paths], timeout)
    for path, result in json.loads(loaded.stdout or "{}").items():
        check = checks[Path(path)]
        check.loaded, check.name, check.load_error = bool(result["ok"]), result.get("name"), result.get("error")
    linted = _run([str(harbor), "lint", "--json", *paths], timeout)
    try:
        findings = json.loads(linted.stdout or "[]")
    except ValueError as exc:
        raise HarborNotFound(f"harbor lint gave no JSON ({linted.returncode}): {linted.stderr[-2000:]}") from exc
    for finding in findings:
        where = Path(str(finding.get("path", ""))).resolve()
        owner = next((root for root in checks if where == root or root in where.parents), None)
        text = f"[{finding.get('rule')}] {finding.get('path')}: {finding.get('message')}"
        if owner is None:
            raise HarborNotFound(f"harbor lint reported a path outside the checked tasks: {text}")
        checks[owner].findings.append(text)
    return list(checks.values())


def run_oracle(checks: Sequence[TaskCheck], harbor: Path, jobs_dir: Path, *, environment: str | None = None,
               concurrency: int = 1, timeout: float = 3600) -> None:  # fmt: skip
    """Harbor's oracle agent on every loaded task, one trial each, `concurrency` trials at a time,
    through `harbor run` (its docker environment, or `environment`, an import path `module:Class`
    given to `-e`); fills each check's `oracle_reward` or `oracle_error`."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    runnable = [c for c in checks if c.loaded and c.name]
    if not runnable:
        return
    jobs_dir.mkdir(parents=True, exist_ok=True)
    config = jobs_dir / "oracle.config.json"
    config.write_text(json.dumps({"tasks": [{"path": str(c.path.resolve())} for c in runnable]}))
    command = [str(harbor), "run", "-c", str(config), "-a", "oracle", "-o", str(jobs_dir), "--job-name", "oracle",
               "-n", str(concurrency), "-y", "-q", *(["-e", environment] if environment else [])]  # fmt: skip
    done = _run(command, timeout, ok=None)
    rewards = read_trials(jobs_dir / "oracle")
    for check in runnable:
        reward, error = rewards.get(str(check.name), (None, None))
        check.oracle_reward, check.oracle_error = reward, error
        if reward is None and error is None:
            check.oracle_error = f"no trial (harbor run exited {done.returncode}): {done.stderr[-500:]}"


def read_trials(job_dir: Path) -> dict[str, tuple[float | None, str | None]]:
    """(reward, error) of every trial of a `harbor run` job folder, by `[task].name`."""
    found: dict[str, tuple[float | None, str | None]] = {}
    for result_file in sorted(job_dir.glob("*/result.json")):
        result = json.loads(result_file.read_text())
        rewards = (result.get("verifier_result") or {}).get("rewards") or {}
        exception = result.get("exception_info")
        error = f"{exception.get('exception_type')}: {exception.get('exception_message')}" if exception else None
        reward = rewards.get("reward")
        found[str(result.get("task_name"))] = (float(reward) if isinstance(reward, int | float) else None, error)
    return found


def _run(command: list[str], timeout: float, ok: tuple[int, ...] | None = (0, 1)) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarborNotFound(f"{command[0]} failed: {exc}") from exc
    if ok is not None and done.returncode not in ok:
        raise HarborNotFound(f"{' '.join(command[:2])} exited {done.returncode}: {done.stderr[-2000:]}")
    return done
