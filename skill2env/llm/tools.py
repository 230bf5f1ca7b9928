"""Tool calling: tools declared as JSON schemas, the model's tool calls parsed and validated.

A tool built with `Tool.from_model` validates its arguments with the pydantic model (the
model's JSON schema is what the endpoint sees); a tool given a raw JSON schema gets the checks
that need no schema engine: a JSON object, its required properties present, no unknown ones
when the schema closes the object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from skill2env.llm.structured import validation_errors
from skill2env.llm.wire import Message


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    """The arguments' JSON schema."""
    model: type[BaseModel] | None = None
    """Validates the arguments when set (and `parameters` is its schema)."""

    @classmethod
    def from_model(cls, name: str, description: str, model: type[BaseModel]) -> Tool:
        return cls(name, description, model.model_json_schema(), model)

    def spec(self) -> dict[str, Any]:
        """The entry of the request's `tools` list."""
        function = {"name": self.name, "description": self.description, "parameters": dict(self.parameters)}
        return {"type": "function", "function": function}

    def check(self, arguments: dict[str, Any]) -> tuple[BaseModel | None, list[str]]:
        """(the validated model, []) or (None, errors)."""
        if self.model is not None:
            try:
                return self.model.model_validate(arguments), []
            except ValidationError as exc:
                return None, validation_errors(exc)
        properties = self.parameters.get("properties") or {}
        errors = [f"{name}: Field required" for name in self.parameters.get("required") or [] if name not in arguments]
        if self.parameters.get("additionalProperties") is False:
            errors += [f"{name}: unknown argument" for name in arguments if name not in properties]
        return None, errors


@dataclass(frozen=True)
class ToolCall:
    """One validated call the model asked for."""

    id: str
    name: str
    arguments: dict[str, Any]
    value: BaseModel | None = None
    """The arguments as the tool's pydantic model, when it has one."""


def parse_tool_calls(
    raw_calls: Sequence[Mapping[str, Any]], tools: Mapping[str, Tool]
) -> tuple[list[ToolCall], dict[str, list[str]]]:
    """The calls (in the model's order, parallel calls included), and errors by call id."""
    calls: list[ToolCall] = []
    errors: dict[str, list[str]] = {}
    for index, raw in enumerate(raw_calls):
        function = raw.get("function") or {}
        call_id = str(raw.get("id") or f"call_{index}")
        name = str(function.get("name") or "")
        tool = tools.get(name)
        if tool is None:
            errors[call_id] = [f"unknown tool {name!r}; the tools are {sorted(tools)}"]
            continue
        arguments, problems = _arguments(function.get("arguments"))
        value = None
        if not problems:
            value, problems = tool.check(arguments)
        if problems:
            errors[call_id] = problems
        else:
            calls.append(ToolCall(call_id, name, arguments, value))
    return calls, errors


def _arguments(raw: object) -> tuple[dict[str, Any], list[str]]:
    if isinstance(raw, dict):  # a few servers send an object rather than a JSON string
        return raw, []
    try:
        parsed = json.loads(raw or "{}") if isinstance(raw, str) else None
    except ValueError as exc:
        return {}, [f"arguments are not valid JSON: {exc}"]
    if not isinstance(parsed, dict):
        return {}, ["arguments must be a JSON object"]
    return parsed, []


def tool_result_message(call_id: str, content: str) -> Message:
    """The `tool` turn answering call `call_id`."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def tool_repair_messages(assistant: Message, raw_calls: Sequence[Mapping[str, Any]], errors: Mapping[str, list[str]],
                         required: bool) -> list[Message]:  # fmt: skip
    """The turn with bad calls, a tool result per call (the errors, or "not run"), and a request to retry."""
    if not raw_calls:
        nudge = {"role": "user", "content": "Call one of the tools; do not answer in text."}
        return [assistant, nudge] if required else []
    results = []
    for index, raw in enumerate(raw_calls):
        call_id = str(raw.get("id") or f"call_{index}")
        problems = errors.get(call_id)
        text = ("error: " + "; ".join(problems)) if problems else "not run: another call in this turn was invalid"
        results.append(tool_result_message(call_id, text))
    return [assistant, *results, {"role": "user", "content": "Fix the invalid tool calls and call again."}]
