"""CompoWorld rollouts: attempts at a `CompoTask` through the project's agent loop, over the gateway.

    attempts = roll_out_compo(tasks, "solver", attempts=4, client=client, host="bwrap", run_id=run_id)

An attempt is a rollout like a Harbor one — the same `run_agent` loop, `Actor`s and `Trajectory`
(policy, model, status, turns, tokens, tool calls, steps) — with two differences: the agent's
tools are the four meta-tools (`list_services`, `list_tools`, `describe_tool`, `call_tool`)
answered by a `GatewayHost` over the task's world (`hosts`: in this process, or the services in a
bwrap sandbox), and the user message is the task's goal. The agent ends by answering without a
tool call; that answer is what `output_contains` checks read. The final states are scored with
the task's rubric (`scoring.score`): a reward and a result per rubric item. An `infra_error`
attempt (the model endpoint or the host failed) is not scored.

Policies: `solver` (the solver role's `ModelActor`), `oracle` (discovers the services and tools it
needs, then makes the oracle's calls and gives the oracle's answer), `partial` (the oracle's first
half), `nop` (answers at once), `script:<file>` (fixed turns of meta-tool calls, as
`agent.actors.load_script` reads them).

The group of an attempt is its task's attempts in one run; `group_rewards` fills in the
low-pass-rate group reward (`reward.group_reward`) and its advantage.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2env.agent import Actor, Decision, LoopLimits, ToolOutcome, Trajectory, run_agent, truncate
from skill2env.agent.actors import SCRIPT_PREFIX, ModelActor, ScriptActor, ScriptedCall, load_script
from skill2env.agent.tools import AgentTool
from skill2env.agent.trajectory import utc_now
from skill2env.compoworld.gateway import META_TOOLS
from skill2env.compoworld.hosts import GatewayHost, make_host
from skill2env.compoworld.reward import group_reward
from skill2env.compoworld.scoring import score
from skill2env.compoworld.tasks import CompoTask
from skill2env.compoworld.world_model import WorldModel
from skill2env.llm import ModelClient, Tool
from skill2env.llm.wire import Message
from skill2env.sandbox.base import new_rollout_id

COMPO_POLICIES = ("solver", "oracle", "partial", "nop")
META_AGENT_TOOLS: tuple[Tool, ...] = tuple(
    AgentTool.from_model(name, description, model) for name, (description, model) in META_TOOLS.items()
)
"""The meta-tools as the agent's tools; arguments are validated by the gateway, whose
`invalid_argument` answer the agent sees (no hidden repair round in the model client)."""
COMPO_SYSTEM_PROMPT = """\
You are an assistant that completes a user's request using the services of this environment. You reach \
them only through four tools: `list_services` lists the services; `list_tools` lists one service's tools; \
`describe_tool` gives a tool's parameters, result and errors; `call_tool` calls a tool with its arguments. \
Find the services and tools the request needs, call them in the right order (use what one call returns in \
the next), and recover from errors. When the request is done, reply without calling a tool: a short final \
answer that gives whatever the user asked to be told."""


# -- actors ---------------------------------------------------------------------------------------


class MetaToolActor(Actor):
    """Gives an actor the meta-tools whatever tools the loop offers (`run_agent` offers the sandbox's)."""

    def __init__(self, inner: Actor) -> None:
        self.inner = inner

    async def decide(self, messages: Sequence[Message], tools: Sequence[Tool], *, attempt: int) -> Decision:
        return await self.inner.decide(messages, META_AGENT_TOOLS, attempt=attempt)


@dataclass
class AnsweringScript(ScriptActor):
    """Scripted turns, then a final answer (`answer`) instead of "script finished"."""

    answer: str = "script finished"

    async def decide(self, messages: Sequence[Message], tools: Sequence[Tool], *, attempt: int) -> Decision:
        if self._next >= len(self.turns):
            self._next += 1
            return Decision(self.answer, [], {"role": "assistant", "content": self.answer})
        return await super().decide(messages, tools, attempt=attempt)


def oracle_turns(task: CompoTask, steps: int | None = None) -> list[list[ScriptedCall]]:
    """The oracle as an agent would play it: list the services, then for each of its first `steps`
    actions (default all) list the service's tools the first time it is used, describe the tool
    the first time it is used, and call it."""
    turns: list[list[ScriptedCall]] = [[("list_services", {})]]
    listed: set[str] = set()
    described: set[tuple[str, str]] = set()
    for action in task.oracle[:steps]:
        if action.service not in listed:
            listed.add(action.service)
            turns.append([("list_tools", {"service": action.service})])
        if (action.service, action.tool) not in described:
            described.add((action.service, action.tool))
            turns.append([("describe_tool", {"service": action.service, "tool": action.tool})])
        arguments = {"service": action.service, "tool": action.tool, "arguments": action.arguments}
        turns.append([("call_tool", arguments)])
    return turns


def compo_actor(policy: str, task: CompoTask, *, client: ModelClient | None = None, fraction: float = 0.5) -> Actor:
    """The actor of one attempt of `policy` (see the module docstring).

    Raises:
        ValueError: an unknown policy, `solver` without a client, or an unreadable script.
    """
    if policy == "solver":
        if client is None:
            raise ValueError("the solver policy needs a model client for the solver role")
        return ModelActor(client)
    if policy == "oracle":
        return AnsweringScript(oracle_turns(task), answer=task.oracle_answer or "Done.")
    if policy == "partial":
        return AnsweringScript(oracle_turns(task, int(len(task.oracle) * fraction)), answer="Done.")
    if policy == "nop":
        return AnsweringScript([], answer="I did nothing.")
    if policy.startswith(SCRIPT_PREFIX):
        return AnsweringScript(load_script(Path(policy[len(SCRIPT_PREFIX) :]).expanduser()))
    raise ValueError(f"unknown policy {policy!r}: use solver, oracle, partial, nop or script:<file.json>")


def policy_label(policy: str) -> str:
    """What the `policy` column records (`script:<stem>` for a script file)."""
    if policy.startswith(SCRIPT_PREFIX):
        return f"{SCRIPT_PREFIX}{Path(policy[len(SCRIPT_PREFIX) :]).stem}"
    return policy


# -- the gateway as the loop's tool host ----------------------------------------------------------


class GatewayTools:
    """The loop's `ToolHost` over a `GatewayHost`: each call in a worker thread, its envelope as the
    observation (a tool's refusal is an ordinary answer the agent reads: `is_error`, not a failure)."""

    def __init__(self, host: GatewayHost, observation_chars: int) -> None:
        self.host = host
        self.observation_chars = observation_chars

    async def ready(self) -> None:
        return None

    async def run(self, name: str, arguments: dict[str, Any], *, time_left: float) -> ToolOutcome:
        started = time.monotonic()
        envelope = await asyncio.to_thread(self.host.dispatch, name, arguments)
        content, cut = truncate(json.dumps(envelope, ensure_ascii=False, default=str), self.observation_chars)
        return ToolOutcome(content, is_error=not envelope.get("ok", False), truncated=cut,
                           duration_s=time.monotonic() - started)  # fmt: skip


# -- attempts -------------------------------------------------------------------------------------


@dataclass
class CompoAttempt:
    """One attempt: its trajectory and, unless it is an infra_error, its score."""

    task: CompoTask
    trajectory: Trajectory
    reward: float | None = None
    """Σ w·q of the task's rubric on the final state and answer; None: not scored."""
    items: dict[str, float] = field(default_factory=dict)
    """Rubric item id → 1.0 / 0.0."""
    group_reward: float | None = None
    """The low-pass-rate group reward (`reward.group_reward`) among the scored attempts of its group."""
    advantage: float | None = None

    @property
    def scored(self) -> bool:
        return self.reward is not None


def meta_tool_counts(trajectory: Trajectory) -> dict[str, int]:
    """Calls per meta-tool (every meta-tool present, zero when unused)."""
    counts = Counter(call.function_name for step in trajectory.steps for call in step.tool_calls)
    return {name: counts.get(name, 0) for name in META_TOOLS}


def services_called(trajectory: Trajectory) -> list[str]:
    """The services the agent called tools of, in first-call order."""
    seen: dict[str, None] = {}
    for step in trajectory.steps:
        for call in step.tool_calls:
            if call.function_name == "call_tool" and isinstance(call.arguments.get("service"), str):
                seen.setdefault(call.arguments["service"], None)
    return list(seen)


def states_digest(states: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(states, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def task_name(task: CompoTask) -> str:
    return f"compo-{task.domain}-{task.task_id[:12]}"


async def run_compo_attempt(
    task: CompoTask,
    actor: Actor,
    host: GatewayHost,
    *,
    policy: str,
    model: str | None = None,
    attempt: int = 1,
    group_id: str = "",
    run_id: str = "",
    limits: LoopLimits | None = None,
) -> CompoAttempt:
    """One attempt, start to end: start the host, run the loop, score the final state, stop the host.
    Never raises for a failure of the attempt: it is the trajectory's status."""
    limits = limits or LoopLimits()
    clock = time.monotonic()
    trajectory = Trajectory(
        rollout_id=new_rollout_id(),
        group_id=group_id or uuid.uuid4().hex[:16],
        run_id=run_id,
        task_id=task.task_id,
        task_name=task_name(task),
        domain=task.domain,
        iteration=task.iteration,
        task_digest=task.task_id,
        policy=policy,
        model=model,
        attempt=attempt,
        backend=host.backend,
    )
    outcome = CompoAttempt(task, trajectory)
    try:
        started = time.monotonic()
        await asyncio.to_thread(host.start)
        trajectory.sandbox_s += time.monotonic() - started
        await run_agent(
            MetaToolActor(actor),
            trajectory,
            task.goal,
            GatewayTools(host, limits.observation_chars),
            limits=limits,
            system_prompt=COMPO_SYSTEM_PROMPT,
        )
        if trajectory.status != "infra_error":
            states = await asyncio.to_thread(host.states)
            result = score(task.rubric, states, trajectory.final_message or "")
            outcome.reward, outcome.items = result.reward, result.items
            trajectory.workspace_digest = states_digest(states)
    except Exception as exc:  # the host failed to start or to give its states: not the agent's failure
        trajectory.status, trajectory.error = "infra_error", f"{type(exc).__name__}: {exc}"
        outcome.reward, outcome.items = None, {}
    finally:
        stopping = time.monotonic()
        await asyncio.to_thread(host.stop)
        trajectory.sandbox_s += time.monotonic() - stopping
    trajectory.tools = [tool.spec() for tool in META_AGENT_TOOLS]
    trajectory.finished_at = utc_now()
    trajectory.wall_s = time.monotonic() - clock
    return outcome


def group_rewards(attempts: Sequence[CompoAttempt]) -> None:
    """Fill in `group_reward` and `advantage` of the scored attempts, group by group."""
    groups: dict[str, list[CompoAttempt]] = {}
    for attempt in attempts:
        if attempt.scored:
            groups.setdefault(attempt.trajectory.group_id, []).append(attempt)
    for members in groups.values():
        weights = {item.id: item.weight for item in members[0].task.rubric.items}
        result = group_reward([m.items for m in members], weights)
        for member, value, advantage in zip(members, result.rewards, result.advantages, strict=True):
            member.group_reward, member.advantage = round(value, 6), round(advantage, 6)


HostFactory = Callable[[CompoTask], GatewayHost]


async def run_compo_attempts(
    tasks: Sequence[CompoTask],
    policy: str,
    *,
    attempts: int = 1,
    client: ModelClient | None = None,
    host: str | HostFactory = "in_process",
    world_model: WorldModel | None = None,
    run_id: str = "",
    limits: LoopLimits | None = None,
    concurrency: int = 2,
    fraction: float = 0.5,
) -> list[CompoAttempt]:
    """`attempts` attempts of `policy` at every task (each task's attempts one group), at most
    `concurrency` at once, in the order of the tasks; group rewards filled in. `host`: a host name
    (`make_host`) or a factory. Closes `client`'s connections of this event loop at the end.

    Raises: ValueError: an unknown policy or host, or `solver` without a client (before anything runs).
    """

    def make(task: CompoTask) -> GatewayHost:
        return host(task) if callable(host) else make_host(host, task, world_model=world_model)

    jobs = []
    for task in tasks:
        group = uuid.uuid4().hex[:16]
        for number in range(1, attempts + 1):
            jobs.append((task, compo_actor(policy, task, client=client, fraction=fraction), make(task), number, group))
    slots = asyncio.Semaphore(max(1, concurrency))
    model = client.model if policy == "solver" and client is not None else None

    async def guarded(task: CompoTask, actor: Actor, on: GatewayHost, number: int, group: str) -> CompoAttempt:
        async with slots:
            return await run_compo_attempt(
                task, actor, on, policy=policy_label(policy), model=model, attempt=number, group_id=group,
                run_id=run_id, limits=limits,
            )  # fmt: skip

    try:
        done = list(await asyncio.gather(*(guarded(*job) for job in jobs)))
    finally:
        if client is not None:
            await client.aclose()
    group_rewards(done)
    return done


def roll_out_compo(tasks: Sequence[CompoTask], policy: str, **options: Any) -> list[CompoAttempt]:
    """`run_compo_attempts` in a new event loop (for synchronous callers)."""
    return asyncio.run(run_compo_attempts(tasks, policy, **options))
