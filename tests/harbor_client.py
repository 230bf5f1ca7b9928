"""The real Harbor package, in its own venv (`make harbor`: Python >= 3.12, harbor from PyPI).

Tests reach it through subprocesses: `harbor_cli(...)` runs the `harbor` command, `harbor_python(code)`
runs a snippet with Harbor importable and returns what it printed as JSON. A missing venv is a failure,
not a skip: `make test` creates it, so its absence means the set-up is broken.

`run_harbor(task_dirs, jobs_dir, agent=...)` runs tasks through `harbor run` on the local engine and
reads each trial's reward back (`run_harbor_script` for an agent that runs a given shell script; the
oracle runs through `skill2env export harbor --check --run-oracle`); docs/harbor.md describes the set-up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
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


# --- Running tasks: `harbor run` on this machine's engine -------------------------------------------
# The plug-ins in tests/harbor_support/ are imported by Harbor itself (tests/ on PYTHONPATH):
# the docker environment on Compose v1 with `no-network` as `network_mode: none`, and an agent
# that runs one shell script. docs/harbor.md says why and how.

TESTS_DIR = Path(__file__).resolve().parent
LOCAL_ENVIRONMENT = "harbor_support.environment:LocalComposeEnvironment"
SHELL_AGENT = "harbor_support.agents:ShellAgent"
COMPOSE = os.environ.get("SKILL2ENV_DOCKER_COMPOSE", "docker-compose")
RUN_ENV = {
    "PYTHONPATH": str(TESTS_DIR),
    # LiteLLM (imported by Harbor) otherwise tries to download its model cost map: no network here.
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


@dataclass(frozen=True)
class TrialOutcome:
    """One trial of a Harbor job, read back from `<jobs>/<job>/<trial>/result.json`."""

    task: str
    """`[task].name` (Harbor's `task_name`)."""
    reward: float | None
    """`verifier_result.rewards.reward`; None when the verifier wrote none or the trial failed."""
    error: str | None
    """`exception_info`'s type and message when the trial raised."""
    agent_metadata: dict[str, Any]
    trial_dir: Path

    @property
    def score(self) -> float | str:
        """The reward, or the error (or "no reward") when there is none."""
        if self.reward is not None:
            return self.reward
        return self.error or "no reward"


def harbor_run_command(config: Path, jobs_dir: Path, job_name: str, agent: str,
                       agent_kwargs: dict[str, str]) -> list[str]:  # fmt: skip
    """`harbor run`'s arguments: tasks from a job config, the local environment, one trial at a time."""
    kwargs = [arg for key, value in agent_kwargs.items() for arg in ("--ak", f"{key}={value}")]
    return ["run", "-c", str(config), "-a", agent, *kwargs, "-e", LOCAL_ENVIRONMENT, "-o", str(jobs_dir),
            "--job-name", job_name, "-n", "1", "-y", "-q"]  # fmt: skip


def require_compose() -> None:
    """`harbor run` here needs Compose v1 (`docker-compose`, installed by `make sandbox`)."""
    if shutil.which(COMPOSE) is None:
        pytest.fail(f"{COMPOSE} is not installed: run `make sandbox` (scripts/setup-sandbox.sh installs it)")


def run_harbor(task_dirs: Sequence[Path], jobs_dir: Path, *, agent: str = "oracle",
               agent_kwargs: dict[str, str] | None = None, job_name: str = "job",
               timeout: float = 1800) -> dict[str, TrialOutcome]:  # fmt: skip
    """Run every task in `task_dirs` once with `agent` through `harbor run`; outcomes by task name.

    A job that ends without a trial per task is a failure with Harbor's output.
    """
    jobs_dir.mkdir(parents=True, exist_ok=True)
    config = jobs_dir / f"{job_name}.config.json"
    config.write_text(json.dumps({"tasks": [{"path": str(Path(d).resolve())} for d in task_dirs]}))
    done = harbor_cli(*harbor_run_command(config, jobs_dir, job_name, agent, agent_kwargs or {}),
                      timeout=timeout, env=RUN_ENV)  # fmt: skip
    outcomes = read_job(jobs_dir / job_name)
    if done.returncode != 0 or len(outcomes) != len(task_dirs):
        raise AssertionError(
            f"harbor run exited {done.returncode} with {len(outcomes)} trial(s) for {len(task_dirs)} task(s):\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return outcomes


def read_job(job_dir: Path) -> dict[str, TrialOutcome]:
    """Each trial's outcome in a job folder (every `*/result.json` beside the job's own)."""
    outcomes: dict[str, TrialOutcome] = {}
    for result_file in sorted(job_dir.glob("*/result.json")):
        result = json.loads(result_file.read_text())
        rewards = (result.get("verifier_result") or {}).get("rewards") or {}
        exception = result.get("exception_info")
        error = f"{exception.get('exception_type')}: {exception.get('exception_message')}" if exception else None
        outcomes[result["task_name"]] = TrialOutcome(
            task=result["task_name"],
            reward=rewards.get("reward"),
            error=error,
            agent_metadata=(result.get("agent_result") or {}).get("metadata") or {},
            trial_dir=result_file.parent,
        )
    return outcomes


def run_harbor_script(task_dirs: Sequence[Path], jobs_dir: Path, script: str, *, user: str | None = None,
                      **options: Any) -> dict[str, TrialOutcome]:  # fmt: skip
    """An agent that runs the bash `script` in each task's environment instead of the oracle.

    It runs as the task's agent user, or as `user` (e.g. "root"); its exit status and output are in
    each outcome's `agent_metadata` (`exit_code`, `output`).
    """
    jobs_dir.mkdir(parents=True, exist_ok=True)
    script_file = jobs_dir / f"{options.get('job_name', 'job')}.agent.sh"
    script_file.write_text(script)
    kwargs = {"script": str(script_file.resolve()), **({"user": user} if user else {})}
    return run_harbor(task_dirs, jobs_dir, agent=SHELL_AGENT, agent_kwargs=kwargs, **options)
