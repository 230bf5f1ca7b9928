"""The agent loop: the task's instruction in, turns of tool calls against a sandbox, a trajectory out.

    await run_agent(actor, trajectory, instruction, tools, limits=LoopLimits.for_task(task))

The instruction is the user message; the tools are `AGENT_TOOLS` (OpenAI function schemas).
Each turn the actor (a model or a script) answers; its tool calls run in order (several per
turn when it calls tools in parallel), each answered by one tool message. The loop ends when
the agent calls `finish` or answers without a tool call (`completed`), or at a limit:
`max_turns`, `max_tokens` (input + output over the whole attempt), `agent_timeout` (its wall
clock). Failures are the trajectory's status, never an exception: the model's answers staying
unusable is `model_error`; the sandbox broken by the agent's own commands (`SandboxBroken`: its
command server killed under the sandbox's memory limit, starved, or dead of a signal from inside)
is `sandbox_broken`, the sandbox's wall clock running out is `agent_timeout` — both the attempt's
own outcomes, scored on the workspace it left; the endpoint, the engine, the host or skill2env
failing is `infra_error`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, Field

from skill2env.agent.actors import Actor, Decision
from skill2env.agent.tools import AGENT_TOOLS, MAX_COMMAND_TIMEOUT_S, OBSERVATION_CHARS, ToolOutcome, ToolRunner
from skill2env.agent.trajectory import Observation, RolloutStatus, StepMetrics, StepToolCall, Trajectory
from skill2env.llm import ModelError, ToolCall, tool_result_message
from skill2env.llm.wire import Message
from skill2env.sandbox import SandboxDeadlineExceeded, SandboxError, TaskDir
from skill2env.sandbox.errors import SandboxBroken

log = logging.getLogger(__name__)

TOOL_GRACE_S = 90.0
"""A tool call may overrun the agent's remaining time by this much (the sandbox's kill grace and
its own overhead) before the sandbox counts as unresponsive. Longer than a sandbox waits for its
command server's reply (`command_client.REPLY_SLACK_S` past the command's timeout and kill grace):
a server that stops answering is first reported by the sandbox, which knows whether the cause lies
inside it (`sandbox_broken`) or outside (`infra_error`)."""
SYSTEM_PROMPT = """\
You are an autonomous agent solving a task inside a Linux sandbox. Your working directory is {workdir}.
Act only through the tools: `bash` runs a shell command; `read_file`, `write_file` and `list_dir` work on \
files (relative paths start at {workdir}); `finish` ends the task. The network may be unavailable.
Work step by step, check your results, and call `finish` once the task is done."""


class LoopLimits(BaseModel):
    """What one attempt may use."""

    max_turns: int = Field(30, ge=1)
    """Agent turns (model calls)."""
    max_tokens: int | None = Field(None, ge=1)
    """Input + output tokens over the attempt; None: no limit."""
    wall_clock_s: float = Field(600.0, gt=0)
    """The agent's time, from its first turn to its last tool call (waiting for the sandbox to start excluded)."""
    observation_chars: int = Field(OBSERVATION_CHARS, ge=200)
    command_timeout_s: float = Field(MAX_COMMAND_TIMEOUT_S, gt=0)
    """Cap on one command's timeout, whatever the agent asks for."""

    @classmethod
    def for_task(cls, task: TaskDir, **overrides: Any) -> LoopLimits:
        """The task's agent timeout (`[agent] timeout_sec`) as the wall clock, and `overrides`."""
        return cls.model_validate({"wall_clock_s": task.agent_timeout_sec, **overrides})


class ToolHost(Protocol):
    """Runs tool calls for the loop (off the event loop: tools block on the sandbox)."""

    async def ready(self) -> None:
        """Return once tools can run (the sandbox has started); raise what kept it from starting."""

    async def run(self, name: str, arguments: dict[str, Any], *, time_left: float) -> ToolOutcome: ...


class ThreadedTools:
    """A `ToolHost` over a `ToolRunner`: each call in `executor` (default: asyncio's), once `started`
    (the sandbox's start, running in the background behind the first model call) has completed."""

    def __init__(
        self, runner: ToolRunner, *, executor: Executor | None = None, started: asyncio.Future[Any] | None = None
    ) -> None:
        self.runner = runner
        self.executor = executor
        self.started = started

    async def ready(self) -> None:
        if self.started is not None:
            await self.started

    async def run(self, name: str, arguments: dict[str, Any], *, time_left: float) -> ToolOutcome:
        loop = asyncio.get_running_loop()

        def call() -> ToolOutcome:
            return self.runner.run(name, arguments, time_left=time_left)

        return await loop.run_in_executor(self.executor, call)


@dataclass
class _Clock:
    """The agent's deadline; time spent waiting for the sandbox to start is added back to it."""

    deadline: float

    def left(self) -> float:
        return self.deadline - time.monotonic()


class _Unresponsive(Exception):
    """A tool call outlived the agent's remaining time by more than the grace period."""


async def run_agent(
    actor: Actor,
    trajectory: Trajectory,
    instruction: str,
    tools: ToolHost,
    *,
    limits: LoopLimits,
    system_prompt: str | None = None,
    on_step: Callable[[Trajectory], None] | None = None,
) -> Trajectory:
    """Run the loop, recording every step into `trajectory` and its outcome as its `status` / `error`.

    `on_step` is called after every step (to persist a partial trajectory).
    """
    notify = on_step or (lambda _: None)
    messages: list[Message] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
        trajectory.add_step("system", system_prompt)
    messages.append({"role": "user", "content": instruction})
    trajectory.add_step("user", instruction)
    trajectory.tools = [tool.spec() for tool in AGENT_TOOLS]
    notify(trajectory)
    clock = _Clock(time.monotonic() + limits.wall_clock_s)
    status: RolloutStatus
    error: str | None = None
    try:
        status = await _turns(actor, trajectory, messages, tools, limits, clock, notify)
    except ModelError as exc:
        status = "infra_error" if exc.infrastructure else "model_error"
        error = f"{type(exc).__name__}: {exc}"
    except SandboxDeadlineExceeded as exc:
        status, error = "agent_timeout", f"{type(exc).__name__}: {exc}"
    except SandboxBroken as exc:
        status, error = "sandbox_broken", f"{type(exc).__name__}: {exc}"
    except (SandboxError, OSError) as exc:
        status, error = "infra_error", f"{type(exc).__name__}: {exc}"
    except _Unresponsive as exc:
        status, error = "infra_error", str(exc)
    except Exception as exc:  # a bug of ours is not the agent's failure
        log.exception("agent loop of rollout %s failed", trajectory.rollout_id)
        status, error = "infra_error", f"internal error: {type(exc).__name__}: {exc}"
    if status == "agent_timeout" and error is None:
        error = f"the agent's wall clock of {limits.wall_clock_s:g} s ran out"
    trajectory.status, trajectory.error = status, error
    notify(trajectory)
    return trajectory


async def _turns(
    actor: Actor,
    trajectory: Trajectory,
    messages: list[Message],
    tools: ToolHost,
    limits: LoopLimits,
    clock: _Clock,
    notify: Callable[[Trajectory], None],
) -> RolloutStatus:
    for _ in range(limits.max_turns):
        if limits.max_tokens is not None and trajectory.input_tokens + trajectory.output_tokens >= limits.max_tokens:
            return "max_tokens"
        decision = await _decide(actor, trajectory, messages, clock)
        if decision is None:
            return "agent_timeout"
        step = trajectory.add_step(
            "agent",
            decision.message,
            reasoning=decision.reasoning,
            model_name=decision.model,
            tool_calls=[StepToolCall(tool_call_id=c.id, function_name=c.name, arguments=c.arguments)
                        for c in decision.calls],
            metrics=StepMetrics(
                prompt_tokens=decision.input_tokens,
                completion_tokens=decision.output_tokens,
                latency_ms=round(decision.latency_s * 1000, 3),
                repaired=decision.repaired,
            ),
        )  # fmt: skip
        messages.append(decision.assistant)
        if not decision.calls:
            trajectory.final_message = decision.message
            notify(trajectory)
            return "completed"
        await _wait_until_ready(tools, trajectory, clock)
        finished = False
        for call in decision.calls:
            outcome = await _run_call(call, tools, trajectory, clock, finished)
            step.observations.append(
                Observation(
                    source_call_id=call.id,
                    content=outcome.content,
                    is_error=outcome.is_error,
                    exit_code=outcome.exit_code,
                    truncated=outcome.truncated,
                    duration_s=round(outcome.duration_s, 6),
                )
            )
            messages.append(tool_result_message(call.id, outcome.content))
            if outcome.finished:
                finished = True
                trajectory.final_message = outcome.content
        notify(trajectory)
        if finished:
            return "completed"
        if clock.left() <= 0:
            return "agent_timeout"
    return "max_turns"


async def _decide(actor: Actor, trajectory: Trajectory, messages: list[Message], clock: _Clock) -> Decision | None:
    """The actor's next turn, counted into the trajectory's totals; None when the agent's time ran out."""
    left = clock.left()
    if left <= 0:
        return None
    started = time.monotonic()
    try:
        async with asyncio.timeout(left):
            decision = await actor.decide(messages, AGENT_TOOLS, attempt=trajectory.attempt)
    except TimeoutError:
        return None
    finally:
        trajectory.model_s += time.monotonic() - started
    trajectory.turns += 1
    trajectory.input_tokens += decision.input_tokens or 0
    trajectory.output_tokens += decision.output_tokens or 0
    return decision


async def _wait_until_ready(tools: ToolHost, trajectory: Trajectory, clock: _Clock) -> None:
    """Wait for the sandbox; the wait is the infrastructure's time, not the agent's."""
    started = time.monotonic()
    await tools.ready()
    waited = time.monotonic() - started
    clock.deadline += waited
    trajectory.sandbox_s += waited


async def _run_call(
    call: ToolCall, tools: ToolHost, trajectory: Trajectory, clock: _Clock, after_finish: bool
) -> ToolOutcome:
    if after_finish:
        return ToolOutcome("not run: `finish` was called earlier in this turn", is_error=True)
    left = clock.left()
    if left <= 0:
        return ToolOutcome("not run: the agent's time ran out", is_error=True)
    started = time.monotonic()
    try:
        async with asyncio.timeout(left + TOOL_GRACE_S):
            return await tools.run(call.name, call.arguments, time_left=left)
    except TimeoutError:
        raise _Unresponsive(
            f"the sandbox did not return from {call.name} within the agent's time + {TOOL_GRACE_S:g} s"
        ) from None
    finally:
        trajectory.tool_s += time.monotonic() - started
