"""A trajectory as an OpenAI chat example (`messages` + `tools`), validated before anyone trains on it."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from skill2env.agent import Trajectory

FINISH_TOOL = "finish"


class FunctionCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: str
    """A JSON object, as a string (what chat-completions APIs and trainers expect)."""

    @model_validator(mode="after")
    def _arguments_are_a_json_object(self) -> FunctionCall:
        if not isinstance(json.loads(self.arguments), dict):
            raise ValueError(f"tool call {self.name}: arguments are not a JSON object")
        return self


class ChatToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCall


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ChatToolCall] | None = None
    tool_call_id: str | None = None

    @model_validator(mode="after")
    def _shape_of_role(self) -> ChatMessage:
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message answers a tool call: tool_call_id is required")
        if self.role != "assistant" and self.tool_calls:
            raise ValueError(f"a {self.role} message cannot carry tool calls")
        if self.role == "assistant" and self.content is None and not self.tool_calls:
            raise ValueError("an assistant message needs content or tool calls")
        return self


class ChatExample(BaseModel):
    """One SFT example: the conversation and the tools it may call."""

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage] = Field(min_length=2)
    tools: list[dict[str, Any]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _conversation_is_consistent(self) -> ChatExample:
        open_calls: set[str] = set()
        names = {tool.get("function", {}).get("name") for tool in self.tools}
        for message in self.messages:
            for call in message.tool_calls or []:
                if names and call.function.name not in names:
                    raise ValueError(f"tool call to {call.function.name}, which is not among the tools")
                open_calls.add(call.id)
            if message.role == "tool":
                if message.tool_call_id not in open_calls:
                    raise ValueError(f"tool message answers unknown call {message.tool_call_id}")
                open_calls.discard(message.tool_call_id)
        if self.messages[-1].role != "assistant":
            raise ValueError("an example ends with the assistant's turn")
        return self


class ChatExampleError(ValueError):
    """A trajectory cannot become a valid chat example; the message says why."""


def chat_example(trajectory: Trajectory) -> ChatExample:
    """The trajectory's steps as chat messages: agent steps → assistant turns with their tool calls,
    observations → tool messages. Raises ChatExampleError when the result would not validate."""
    messages: list[dict[str, Any]] = []
    for step in trajectory.steps:
        if step.source in ("system", "user"):
            messages.append({"role": step.source, "content": step.message})
            continue
        calls = [
            {"id": call.tool_call_id, "type": "function",
             "function": {"name": call.function_name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
            for call in step.tool_calls
        ]  # fmt: skip
        messages.append(
            {"role": "assistant", "content": step.message or None, **({"tool_calls": calls} if calls else {})}
        )
        ending = {call.tool_call_id for call in step.tool_calls if call.function_name == FINISH_TOOL}
        for observation in step.observations:
            if observation.source_call_id in ending:
                continue  # the episode ends with the call to `finish`: its echo is not a turn to learn
            messages.append(
                {"role": "tool", "tool_call_id": observation.source_call_id or "", "content": observation.content}
            )
    try:
        return ChatExample.model_validate({"messages": messages, "tools": trajectory.tools})
    except ValidationError as exc:
        raise ChatExampleError(f"rollout {trajectory.rollout_id}: {exc.errors()[0]['msg']}") from exc
