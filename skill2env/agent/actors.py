"""Who decides an agent's next turn: a model (the solver), or a script (oracle, nop, partial, named scripts).

A `Policy` makes one `Actor` per attempt. Every actor drives the same loop, tools and
trajectory, so a scripted policy's run is a rollout like any other:

* `solver` — the solver role's model, through `ModelClient.acall_tools`;
* `oracle` — runs the task's `solution/solve.sh`, then finishes; `partial` the first part of it;
  `nop` finishes at once;
* `script:<file>` — fixed turns of tool calls from a JSON file: `[[["bash", {"command": "ls"}]], …]`
  (one list of calls per turn).
"""

from __future__ import annotations

import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill2env.agent.scripted import SOLUTION_DIR, truncated_script
from skill2env.agent.tools import MAX_COMMAND_TIMEOUT_S
from skill2env.llm import ModelClient, Tool, ToolCall
from skill2env.llm.wire import Message
from skill2env.sandbox import Sandbox, TaskDir

SCRIPTED_POLICIES = ("oracle", "nop", "partial")
SCRIPT_PREFIX = "script:"
POLICY_SCRIPT = f"{SOLUTION_DIR}/.policy.sh"
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.DOTALL)

ScriptedCall = tuple[str, Mapping[str, Any]]
"""(tool name, arguments)."""


@dataclass(frozen=True)
class Decision:
    """One agent turn: what it said and the tool calls it made."""

    message: str
    calls: list[ToolCall]
    assistant: Message
    """The turn as an assistant message, to continue the conversation with."""
    reasoning: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float = 0.0
    repaired: int = 0


class Actor(ABC):
    """Decides the turns of one attempt."""

    def setup(self, sandbox: Sandbox, task: TaskDir) -> None:  # noqa: B027 - most actors need no setup
        """Prepare the started sandbox before the first turn runs (blocking)."""

    @abstractmethod
    async def decide(self, messages: Sequence[Message], tools: Sequence[Tool], *, attempt: int) -> Decision:
        """The next turn, given the conversation so far."""


class Policy(ABC):
    """Makes the actor of each attempt; `name` and `model` are what the rollouts table records."""

    name: str
    model: str | None = None

    @abstractmethod
    def actor(self, task: TaskDir) -> Actor: ...

    async def aclose(self) -> None:  # noqa: B027 - only model-backed policies hold connections
        """Release what the policy opened in the running event loop (its model connections)."""


class ModelActor(Actor):
    """The solver: each turn is one `acall_tools` of the solver role's client."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def decide(self, messages: Sequence[Message], tools: Sequence[Tool], *, attempt: int) -> Decision:
        # A seed per attempt: the attempts of a group are distinct requests (the response cache
        # would otherwise answer every attempt with the first one's turns) and reproducible.
        seed = (self.client.config.seed or 0) + attempt
        started = time.monotonic()
        turn = await self.client.acall_tools(list(messages), tools, seed=seed)
        reply = turn.reply
        message, reasoning = split_reasoning(reply.content or "")
        return Decision(
            message=message,
            calls=turn.calls,
            assistant=_with_call_ids(reply.assistant_message()),
            reasoning=reasoning,
            model=reply.model or self.client.model,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            latency_s=time.monotonic() - started,
            repaired=turn.repaired,
        )


class SolverPolicy(Policy):
    name = "solver"

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.model = client.model

    def actor(self, task: TaskDir) -> Actor:
        return ModelActor(self.client)

    async def aclose(self) -> None:
        await self.client.aclose()


@dataclass
class ScriptActor(Actor):
    """Plays fixed turns; after the last one it finishes (a turn without calls)."""

    turns: Sequence[Sequence[ScriptedCall]]
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    """Written into the sandbox (as root) before the first turn, e.g. the oracle's script."""
    copy_in: Mapping[str, Path] = field(default_factory=dict)
    """Host paths copied into the sandbox before the first turn."""
    _next: int = field(default=0, init=False)

    def setup(self, sandbox: Sandbox, task: TaskDir) -> None:
        for destination, source in self.copy_in.items():
            sandbox.copy_in(source, destination)
        for path, content in self.files.items():
            sandbox.write_file(path, content)

    async def decide(self, messages: Sequence[Message], tools: Sequence[Tool], *, attempt: int) -> Decision:
        index, self._next = self._next, self._next + 1
        if index >= len(self.turns):
            return Decision("script finished", [], {"role": "assistant", "content": "script finished"})
        turn = self.turns[index]
        calls = [ToolCall(f"call_{index}_{n}", name, dict(arguments)) for n, (name, arguments) in enumerate(turn)]
        raw = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in calls
        ]
        return Decision("", calls, {"role": "assistant", "content": None, "tool_calls": raw})


class ScriptPolicy(Policy):
    """Scripted turns: oracle / partial / nop from the task, or a named script's fixed turns."""

    def __init__(self, name: str, turns: Sequence[Sequence[ScriptedCall]] = (), *, fraction: float = 0.5) -> None:
        self.name = name
        self.turns = turns
        self.fraction = fraction

    def actor(self, task: TaskDir) -> Actor:
        if self.name == "nop":
            return ScriptActor([[("finish", {"message": "nop: did nothing"})]])
        if self.name in ("oracle", "partial"):
            script = task.solve_script.read_text()
            if self.name == "partial":
                script = truncated_script(script, self.fraction)
            timeout = min(task.agent_timeout_sec, MAX_COMMAND_TIMEOUT_S)
            run = ("bash", {"command": f"bash {POLICY_SCRIPT}", "timeout": timeout})
            return ScriptActor(
                [[run], [("finish", {"message": f"{self.name}: ran solution/solve.sh"})]],
                files={POLICY_SCRIPT: script},
                copy_in={SOLUTION_DIR: task.solution_dir},
            )
        return ScriptActor(self.turns)


def policy_from_name(name: str, *, client: ModelClient | None = None, fraction: float = 0.5) -> Policy:
    """`solver` (needs `client`), `oracle`, `nop`, `partial`, or `script:<path to a JSON file of turns>`.

    Raises:
        ValueError: an unknown name, a missing client, or an unreadable script.
    """
    if name == "solver":
        if client is None:
            raise ValueError("the solver policy needs a model client for the solver role")
        return SolverPolicy(client)
    if name in SCRIPTED_POLICIES:
        return ScriptPolicy(name, fraction=fraction)
    if name.startswith(SCRIPT_PREFIX):
        path = Path(name[len(SCRIPT_PREFIX) :]).expanduser()
        return ScriptPolicy(f"{SCRIPT_PREFIX}{path.stem}", load_script(path))
    raise ValueError(f"unknown policy {name!r}: use solver, oracle, nop, partial or script:<file.json>")


def load_script(path: Path) -> list[list[ScriptedCall]]:
    """Turns from a JSON file: a list of turns, each a list of `[tool name, arguments]` pairs."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return [[(str(name), dict(arguments)) for name, arguments in turn] for turn in document]
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"{path} is not a script of turns ([[[tool, arguments], …], …]): {exc}") from exc


def split_reasoning(content: str) -> tuple[str, str | None]:
    """(message, reasoning): a leading `<think>…</think>` block (reasoning models served as plain
    chat completions) is the reasoning, the rest the message."""
    match = _THINK.match(content)
    if match is None:
        return content, None
    return content[match.end() :], match.group(1).strip()


def _with_call_ids(assistant: Message) -> Message:
    """The assistant turn with an id on every tool call — the one the client's parser gave a call
    that came without (`call_<index>`) — so each tool result answers a call of the turn."""
    calls = assistant.get("tool_calls")
    if not calls:
        return assistant
    filled = [call if call.get("id") else {**call, "id": f"call_{index}"} for index, call in enumerate(calls)]
    return {**assistant, "tool_calls": filled}
