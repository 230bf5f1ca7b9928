"""Structured output: a pydantic model in, its JSON schema out, the answer parsed and validated.

Three ways to ask, by what the endpoint supports (`RoleConfig.structured_mode`):

* `json_schema`: `response_format={"type": "json_schema", ...}`; servers that support it
  constrain decoding to the schema (OpenAI, vLLM, SGLang, llama.cpp);
* `json_object`: JSON mode, with the schema given in a system message;
* `text`: no response format; the schema in a system message and the JSON extracted from
  whatever comes back (a fenced block, prose around an object).

An answer that does not parse or validate is sent back with the errors (`repair_messages`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from skill2env.llm.wire import Message

StructuredMode = Literal["json_schema", "json_object", "text"]
DOWNGRADES: dict[str, StructuredMode] = {"json_schema": "json_object", "json_object": "text"}
"""What `auto` falls back to when the endpoint rejects a response format."""
MAX_ERRORS_SHOWN = 12
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_UNSUPPORTED_IN_STRICT = ("default", "title")
T = TypeVar("T", bound=BaseModel)


def schema_name(model: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64]


def response_schema(model: type[BaseModel], *, strict: bool) -> dict[str, Any]:
    """The model's JSON schema; with `strict`, as OpenAI's strict mode wants it: every object
    closed (`additionalProperties: false`) with every property required, no defaults or titles."""
    schema = model.model_json_schema()
    return _strictify(schema) if strict else schema


def _strictify(node: Any) -> Any:
    if isinstance(node, list):
        return [_strictify(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strictify(value) for key, value in node.items() if key not in _UNSUPPORTED_IN_STRICT}
    if "properties" in node:
        out["properties"] = {name: _strictify(value) for name, value in node["properties"].items()}
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    if "$ref" in out and len(out) > 1:  # strict mode allows no siblings beside $ref
        out = {"$ref": out["$ref"]}
    return out


def response_format(mode: StructuredMode, model: type[BaseModel], *, strict: bool) -> dict[str, Any] | None:
    if mode == "json_schema":
        schema = response_schema(model, strict=strict)
        return {"type": "json_schema", "json_schema": {"name": schema_name(model), "schema": schema, "strict": strict}}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def schema_instruction(model: type[BaseModel]) -> Message:
    """A system message giving the schema, for the modes where the endpoint does not enforce it."""
    schema = json.dumps(model.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return {
        "role": "system",
        "content": f"Reply with one JSON object, and nothing else, that matches this JSON schema:\n{schema}",
    }


def extract_json(text: str) -> Any:
    """The JSON value in `text`: all of it, else a fenced block, else the outermost {...} or [...]."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for block in _FENCE.findall(stripped):
        try:
            return json.loads(block)
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for start, char in enumerate(stripped):
        if char in "{[":
            try:
                return decoder.raw_decode(stripped, start)[0]
            except ValueError:
                continue
    raise ValueError("no JSON value found in the reply")


def parse_answer(
    text: str | None, model: type[T], check: Callable[[T], list[str]] | None = None
) -> tuple[T | None, list[str]]:
    """(the validated value, []) or (None, the errors to send back)."""
    if not text or not text.strip():
        return None, ["the reply was empty; a JSON object was expected"]
    try:
        data = extract_json(text)
    except ValueError as exc:
        return None, [f"the reply is not valid JSON: {exc}"]
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        return None, validation_errors(exc)
    problems = check(value) if check else []
    return (None, problems) if problems else (value, [])


def validation_errors(exc: ValidationError) -> list[str]:
    errors = [
        f"{'.'.join(str(p) for p in error['loc']) or '(root)'}: {error['msg']}{_got(error)}" for error in exc.errors()
    ]
    if len(errors) > MAX_ERRORS_SHOWN:
        errors = [*errors[:MAX_ERRORS_SHOWN], f"… and {len(errors) - MAX_ERRORS_SHOWN} more"]
    return errors


def _got(error: Any) -> str:
    """What the reply said where a choice among listed values was expected (so the model sees its mistake)."""
    if error.get("type") != "literal_error" or not isinstance(error.get("input"), str | int | float | bool):
        return ""
    return f" (got {error['input']!r})"


def repair_messages(answer: str | None, errors: list[str]) -> list[Message]:
    """The invalid answer, then a user turn listing what is wrong with it."""
    listed = "\n".join(f"- {error}" for error in errors)
    return [
        {"role": "assistant", "content": answer or ""},
        {
            "role": "user",
            "content": f"That reply is invalid:\n{listed}\nReply again with only the corrected JSON object.",
        },
    ]
