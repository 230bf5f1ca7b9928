"""A world model backed by a language model, through the project's model client.

The model sees the tool's spec (with the state schema and the reasons earlier answers were
rejected), the service's current state and the arguments, and answers with structured output:
the result and the state delta as JSON texts (JSON texts, so the answer's schema stays closed
for strict structured-output modes whatever the tool's result looks like). Answers that are not
JSON are repaired inside the client's structured call; answers that do not fit the tool's
schemas are rejected by the `Simulator` and asked again with the rejection in the request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from skill2env.llm.client import ModelClient

MAX_STATE_CHARS = 60_000
SYSTEM = (
    "You simulate a third-party API behind a tool of a business service. Given the tool's specification, "
    "the service's current state and the call's arguments, answer what the real API would return and how "
    "the service's state changes. Be realistic and consistent with the state. The result must match the "
    'tool\'s result schema; to fail the call instead, make the result {"$error": {"type": <one of the '
    'tool\'s error types>, "message": <why>}}. The state delta is a JSON merge patch (RFC 7386) of the state '
    "that changes only the fields the tool writes (`writes`); use {} when nothing changes. Objects keyed by "
    'id are patched by id: {"shipments": {"SHP-1001": {"status": "delivered"}}}.'
)


class SimulatedAnswer(BaseModel):
    result_json: str = Field(description="The tool's result as a JSON text that matches the result schema.")
    state_delta_json: str = Field(description="A JSON merge patch of the state as a JSON text; {} for no change.")


def _parses(answer: SimulatedAnswer) -> list[str]:
    errors = []
    try:
        json.loads(answer.result_json)
    except ValueError as exc:
        errors.append(f"result_json is not JSON: {exc}")
    try:
        if not isinstance(json.loads(answer.state_delta_json), dict):
            errors.append("state_delta_json must be a JSON object")
    except ValueError as exc:
        errors.append(f"state_delta_json is not JSON: {exc}")
    return errors


def simulation_messages(
    tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
) -> list[dict[str, str]]:
    spec = {k: v for k, v in tool_spec.items() if k not in ("intent", "reports", "inputs", "outputs", "rejections")}
    state = json.dumps(state_json, ensure_ascii=False, sort_keys=True)
    if len(state) > MAX_STATE_CHARS:
        state = state[:MAX_STATE_CHARS] + " …(cut)"
    parts = [
        f"Tool specification:\n{json.dumps(spec, ensure_ascii=False, sort_keys=True)}",
        f"Current state of the {tool_spec.get('service')} service:\n{state}",
        f"Call: {tool_spec.get('service')}.{tool_spec.get('name')}({json.dumps(dict(arguments), ensure_ascii=False)})",
    ]
    rejections = list(tool_spec.get("rejections") or [])
    if rejections:
        parts.append("Earlier answers to this call were rejected:\n- " + "\n- ".join(rejections))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


class LlmWorldModel:
    """`WorldModel` over a `ModelClient` (any role's; the compo_tasks asset picks one by configuration)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    @property
    def name(self) -> str:
        return f"llm:{self.client.model}"

    def simulate(
        self, tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        answer = self.client.structured(
            simulation_messages(tool_spec, state_json, arguments), SimulatedAnswer, check=_parses
        ).value
        return json.loads(answer.result_json), json.loads(answer.state_delta_json)
