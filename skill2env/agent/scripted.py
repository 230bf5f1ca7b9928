"""Scripted policies — oracle, nop, partial — acting through the same sandboxes an agent uses.

Their runs are rollouts like any other: a task validates when its oracle passes, its nop
fails, and a partial oracle lands in between.

A reference solution may be written in steps: marked sections of `solve.sh`, each opened by a
line `# --- step: <name> ---` (what comes before the first marker is the preamble: shebang,
`set -euo pipefail`, `cd`). The oracle runs the whole file as it is; `StepsPolicy` runs the
preamble and the first steps only, so a cut never falls inside a program (a heredoc, a loop).
Markers inside a heredoc's body are part of that body, never step boundaries.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from skill2env.sandbox import ExecResult, Sandbox, SandboxDeadlineExceeded, SandboxError, SandboxTimeout, TaskDir

SOLUTION_DIR = "/solution"
SCHEMA_VERSION = 1

RolloutStatus = Literal["completed", "timeout", "error"]


class ScriptedPolicy(ABC):
    """A policy that needs no model: it acts on the task's files alone."""

    name: str

    @abstractmethod
    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        """Act in a started sandbox; return every command's result, in order."""


class NopPolicy(ScriptedPolicy):
    """Does nothing: the workspace stays as the task built it."""

    name = "nop"

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        return []


class OraclePolicy(ScriptedPolicy):
    """Runs the reference solution `solution/solve.sh` from the workspace, as the agent user."""

    name = "oracle"

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        return [self._run_script(sandbox, task, task.solve_script.read_text())]

    def _run_script(self, sandbox: Sandbox, task: TaskDir, script: str) -> ExecResult:
        sandbox.copy_in(task.solution_dir, SOLUTION_DIR)
        sandbox.write_file(f"{SOLUTION_DIR}/.policy.sh", script)
        return sandbox.exec(
            ["bash", f"{SOLUTION_DIR}/.policy.sh"],
            timeout=task.agent_timeout_sec,
            cwd=sandbox.workspace,
        )


class PartialPolicy(OraclePolicy):
    """Runs the first `fraction` of the oracle's commands (non-blank, non-comment lines)."""

    name = "partial"

    def __init__(self, fraction: float = 0.5) -> None:
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"fraction must be within [0, 1], not {fraction}")
        self.fraction = fraction

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        return [self._run_script(sandbox, task, truncated_script(task.solve_script.read_text(), self.fraction))]


def truncated_script(script: str, fraction: float) -> str:
    """The script up to (and including) its `ceil(fraction × commands)`-th command line; 0 keeps none."""
    lines = script.splitlines(keepends=True)
    commands = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    keep = math.ceil(fraction * len(commands))
    if keep == 0:
        return "".join(line for line in lines if line.startswith("#!"))
    return "".join(lines[: commands[keep - 1] + 1])


STEP_MARKER = re.compile(r"^[ \t]*#[ \t]*---[ \t]*step:[ \t]*(?P<name>\S(?:.*\S)?)[ \t]*---[ \t]*$")
"""`# --- step: <name> ---`: opens a step of a reference solution written in steps."""
_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


@dataclass(frozen=True)
class SolutionStep:
    name: str
    text: str
    """Its lines, the marker first."""


@dataclass(frozen=True)
class SolutionSteps:
    """A reference solution split at its step markers (see the module docstring)."""

    preamble: str
    steps: tuple[SolutionStep, ...]

    def script(self, keep: int) -> str:
        """The preamble and the first `keep` steps."""
        return self.preamble + "".join(step.text for step in self.steps[:keep])

    def names(self, keep: int | None = None) -> list[str]:
        return [step.name for step in self.steps[:keep]]


def solution_steps(script: str) -> SolutionSteps:
    """Split `script` at its step markers (none: every line is the preamble and there are no steps)."""
    preamble: list[str] = []
    steps: list[tuple[str, list[str]]] = []
    pending: list[tuple[str, bool]] = []
    """Heredocs opened and not yet closed: (delimiter, `<<-` strips leading tabs)."""
    for line in script.splitlines(keepends=True):
        if pending:
            delimiter, tabs = pending[0]
            if (line.rstrip("\n").lstrip("\t") if tabs else line.rstrip("\n")) == delimiter:
                pending.pop(0)
        else:
            marker = STEP_MARKER.match(line.rstrip("\n"))
            if marker:
                steps.append((marker.group("name"), [line]))
                continue
            pending = [(m.group(3), m.group(1) == "-") for m in _HEREDOC.finditer(line.split(" #", 1)[0])]
        (steps[-1][1] if steps else preamble).append(line)
    return SolutionSteps("".join(preamble), tuple(SolutionStep(name, "".join(lines)) for name, lines in steps))


def steps_to_run(count: int, fraction: float) -> int | None:
    """How many of `count` steps the partial run keeps: `⌊fraction × count⌋`, every step at a
    fraction of 1; None when the solution cannot be cut (fewer than two steps, below a fraction of 1)."""
    if fraction >= 1.0:
        return count
    if count < 2:
        return None
    return math.floor(fraction * count)


class StepsPolicy(OraclePolicy):
    """Runs the preamble and the first `keep` steps of a reference solution written in steps."""

    name = "partial"

    def __init__(self, keep: int) -> None:
        self.keep = keep

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        steps = solution_steps(task.solve_script.read_text())
        script = steps.script(self.keep) if steps.steps else task.solve_script.read_text()
        return [self._run_script(sandbox, task, script)]


POLICIES: dict[str, type[ScriptedPolicy]] = {"nop": NopPolicy, "oracle": OraclePolicy, "partial": PartialPolicy}


class ScriptedRollout(BaseModel):
    """One run of a scripted policy on one task."""

    schema_version: int = SCHEMA_VERSION
    rollout_id: str
    task: str
    environment_digest: str
    policy: str
    backend: str
    sandbox_mode: str | None = None
    """How its sandbox ran (`Sandbox.mode`); None when it never started."""
    status: RolloutStatus
    """`timeout`: the policy ran out of time (its own failure); `error`: the infrastructure failed."""
    error: str | None = None
    steps: list[ExecResult] = Field(default_factory=list)
    started_at: datetime
    duration_s: float


def run_scripted_rollout(
    policy: ScriptedPolicy, task: TaskDir, sandbox: Sandbox, *, workspace_out: Path | None = None
) -> ScriptedRollout:
    """Start `sandbox` on `task`, let `policy` act, copy the workspace out (when asked), stop.

    Failures become the rollout's status, never an exception.
    """
    started_at = datetime.now(UTC)
    steps: list[ExecResult] = []
    status: RolloutStatus = "completed"
    error = None
    try:
        with sandbox:
            sandbox.start(task)
            try:
                steps = policy.act(sandbox, task)
            except SandboxTimeout as exc:
                steps, status, error = [*steps, exc.result], "timeout", str(exc)
            except SandboxDeadlineExceeded as exc:
                status, error = "timeout", str(exc)
            if workspace_out is not None and status != "timeout":
                sandbox.copy_out(sandbox.workspace, workspace_out)
    except (SandboxError, OSError) as exc:
        status, error = "error", f"{type(exc).__name__}: {exc}"
    return ScriptedRollout(
        rollout_id=sandbox.rollout_id,
        task=task.name,
        environment_digest=task.environment_digest,
        policy=policy.name,
        backend=sandbox.backend,
        sandbox_mode=sandbox.mode,
        status=status,
        error=error,
        steps=steps,
        started_at=started_at,
        duration_s=(datetime.now(UTC) - started_at).total_seconds(),
    )
