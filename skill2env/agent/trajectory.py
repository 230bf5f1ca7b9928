"""A rollout's trajectory: its header (task, policy, status, totals) and its steps, shaped after ATIF.

`Trajectory` is the canonical record: the lake's `rollouts` row is its header and its
`trajectory_steps` rows are its steps. `to_atif()` exports it as Harbor's Agent Trajectory
Interchange Format at Harbor's current version (ATIF-v1.8): `schema_version`, `session_id` and
`trajectory_id` (both the rollout id), `agent` (its `tool_definitions` included), `steps` (each
with `step_id`, `timestamp`, `source`, `message`, and for agent steps `model_name`,
`reasoning_content`, `tool_calls`, `observation.results` — each result's details in its `extra` —
and `metrics`), `final_metrics`, `extra`.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

TRAJECTORY_SCHEMA_VERSION = 1
ATIF_SCHEMA_VERSION = "ATIF-v1.8"
AGENT_NAME = "skill2env"

RolloutStatus = Literal[
    "started", "completed", "max_turns", "max_tokens", "agent_timeout", "sandbox_broken", "model_error",
    "infra_error",
]  # fmt: skip
"""`started`: still running (only ever seen in a partial trajectory). The agent's own outcomes:
`completed` (it called `finish` or answered without a tool call), `max_turns`, `max_tokens`,
`agent_timeout` (its wall clock ran out), `sandbox_broken` (its own commands broke the sandbox:
the OOM killer ended the command server under the sandbox's memory limit, the server was starved
or died of a signal the kernel sends for what happened inside; `error` says which, and the attempt
is scored on the workspace it left, or failed where none could be read), `model_error` (the
model's answers stayed unusable: invalid after every repair round, refused, cut off).
`infra_error`: something outside the sandbox failed (the engine, the host, the model endpoint,
skill2env itself) — never scored as a failed attempt."""
FINAL_STATUSES = frozenset(
    {"completed", "max_turns", "max_tokens", "agent_timeout", "sandbox_broken", "model_error", "infra_error"}
)  # fmt: skip
StepSource = Literal["system", "user", "agent"]


def utc_now() -> datetime:
    return datetime.now(UTC)


class StepToolCall(BaseModel):
    """One tool call of an agent step (ATIF `ToolCallSchema`)."""

    tool_call_id: str
    function_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    """As the model sent them (a JSON object), valid or not."""


class Observation(BaseModel):
    """What one tool call returned (ATIF `ObservationResultSchema`, plus how it went)."""

    source_call_id: str | None
    content: str
    """What the model was shown (truncated head + tail when long)."""
    is_error: bool = False
    """The call failed as a call: invalid arguments, a missing path, a command killed at its timeout."""
    exit_code: int | None = None
    """Of the command, for calls that ran one."""
    truncated: bool = False
    duration_s: float | None = None


class StepMetrics(BaseModel):
    """Token counts and latency of the model call behind an agent step (ATIF `MetricsSchema`)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    repaired: int = 0
    """Rounds in which the client sent invalid tool calls back for correction within this step."""


class Step(BaseModel):
    """One system prompt, user message, or agent turn (its model output, tool calls and their results)."""

    step_id: int
    """1-based, in order."""
    source: StepSource
    timestamp: datetime
    message: str = ""
    reasoning: str | None = None
    model_name: str | None = None
    tool_calls: list[StepToolCall] = Field(default_factory=list)
    observations: list[Observation] = Field(default_factory=list)
    metrics: StepMetrics | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class Trajectory(BaseModel):
    """One rollout attempt: who ran what on which task, how it ended, and every step."""

    schema_version: int = TRAJECTORY_SCHEMA_VERSION
    rollout_id: str
    group_id: str
    """The attempts of one task in one run share it (a group, for group-relative rewards)."""
    run_id: str
    """The run that executed the attempt (for a recovered attempt: the run that was killed)."""
    task_id: str
    task_name: str
    domain: str
    iteration: int = 0
    task_digest: str | None = None
    policy: str
    """oracle | nop | partial | solver | script:<name>."""
    model: str | None = None
    attempt: int
    """1..k within the group."""
    backend: str
    sandbox_mode: str | None = None
    """How its sandbox ran (`Sandbox.mode`: `bwrap:image-rootfs`, `docker:attach`,
    `docker:exec-fallback`, …); None when it never started."""
    status: RolloutStatus = "started"
    error: str | None = None
    started_at: datetime = Field(default_factory=utc_now)
    finished_at: datetime | None = None
    wall_s: float | None = None
    """Start of the attempt to its end, sandbox start and stop included."""
    model_s: float = 0.0
    """Time spent waiting for the model."""
    tool_s: float = 0.0
    """Time spent running tool calls in the sandbox."""
    sandbox_s: float = 0.0
    """Waiting for the sandbox's start (the part not hidden behind the first model call), the
    final workspace's snapshot, and the stop."""
    turns: int = 0
    """Agent steps (model calls that returned)."""
    input_tokens: int = 0
    output_tokens: int = 0
    final_message: str | None = None
    workspace_digest: str | None = None
    """sha256 of the final workspace (paths + bytes); the snapshot lies in the store under it."""
    workspace_path: str | None = None
    """The final workspace's snapshot, relative to the skill2env home."""
    trajectory_path: str | None = None
    """The ATIF file, relative to the skill2env home."""
    tools: list[dict[str, Any]] = Field(default_factory=list)
    """The tool specs the agent was offered (OpenAI function schemas)."""
    steps: list[Step] = Field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES

    def add_step(self, source: StepSource, message: str, **fields: Any) -> Step:
        step = Step(step_id=len(self.steps) + 1, source=source, timestamp=utc_now(), message=message, **fields)
        self.steps.append(step)
        return step

    def to_atif(self) -> dict[str, Any]:
        """This trajectory as an ATIF document (`ATIF_SCHEMA_VERSION`; optional fields left out when unset)."""
        agent = _present(
            {
                "name": AGENT_NAME,
                "version": _package_version(),
                "model_name": self.model,
                "tool_definitions": self.tools or None,
                "extra": {"policy": self.policy},
            }
        )
        return {
            "schema_version": ATIF_SCHEMA_VERSION,
            "session_id": self.rollout_id,
            "trajectory_id": self.rollout_id,
            "agent": agent,
            "notes": f"skill2env rollout of task {self.task_id}, attempt {self.attempt}: {self.status}",
            "final_metrics": {
                "total_prompt_tokens": self.input_tokens,
                "total_completion_tokens": self.output_tokens,
                "total_steps": len(self.steps),
                "extra": _present({"turns": self.turns, "wall_s": self.wall_s}),
            },
            "steps": [_atif_step(step) for step in self.steps],
            "extra": self.model_dump(mode="json", exclude={"steps", "tools"}),
        }


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file, so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def atif_json(trajectory: Trajectory) -> bytes:
    """The ATIF document as indented UTF-8 JSON."""
    return (json.dumps(trajectory.to_atif(), ensure_ascii=False, indent=2) + "\n").encode()


def _atif_step(step: Step) -> dict[str, Any]:
    document: dict[str, Any] = {
        "step_id": step.step_id,
        "timestamp": step.timestamp.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "source": step.source,
        "message": step.message,
    }
    if step.source == "agent":
        document |= _present({"model_name": step.model_name, "reasoning_content": step.reasoning})
        if step.tool_calls:
            document["tool_calls"] = [call.model_dump() for call in step.tool_calls]
        if step.metrics is not None:
            metrics = step.metrics
            document["metrics"] = _present(
                {
                    "prompt_tokens": metrics.prompt_tokens,
                    "completion_tokens": metrics.completion_tokens,
                    "extra": _present({"latency_ms": metrics.latency_ms, "repaired": metrics.repaired}),
                }
            )
    if step.observations:
        results = [
            _present({"source_call_id": o.source_call_id, "content": o.content,
                      "extra": o.model_dump(exclude={"content", "source_call_id"})})
            for o in step.observations
        ]  # fmt: skip
        document["observation"] = {"results": results}
    if step.extra:
        document["extra"] = dict(step.extra)
    return document


def _present(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` without the unset ones (ATIF leaves unset optional fields out)."""
    return {key: value for key, value in fields.items() if value is not None}


def _package_version() -> str:
    try:
        return version("skill2env")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree without metadata
        return "0"
