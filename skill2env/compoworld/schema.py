"""Reading pydantic's JSON schemas: which interface types a schema holds, and which typed values a
JSON value holds under its schema (the values one tool's output can pass to another's input)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from skill2env.compoworld.types import TYPE_KEY

JsonSchema = Mapping[str, Any]


@dataclass(frozen=True)
class TypedValue:
    type: str
    value: Any
    path: tuple[str | int, ...]
    """Where in the JSON value it sits (property names and list indexes)."""


def resolve(node: JsonSchema, defs: Mapping[str, Any]) -> JsonSchema:
    """The schema a `$ref` points at (pydantic's `#/$defs/Name`), else the node itself."""
    seen = 0
    while "$ref" in node and seen < 32:
        node = defs[str(node["$ref"]).rsplit("/", 1)[-1]]
        seen += 1
    return node


def _children(node: JsonSchema) -> Iterator[JsonSchema]:
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        yield from node.get(key) or []
    for key in ("items", "additionalProperties"):
        child = node.get(key)
        if isinstance(child, Mapping):
            yield child
    yield from (node.get("properties") or {}).values()


def interface_types(schema: JsonSchema) -> set[str]:
    """Every interface type named anywhere in `schema`."""
    defs = schema.get("$defs") or {}
    found: set[str] = set()
    seen_refs: set[str] = set()
    stack: list[JsonSchema] = [schema]
    while stack:
        node = stack.pop()
        if "$ref" in node:
            ref = str(node["$ref"])
            if ref in seen_refs:
                continue
            seen_refs.add(ref)
            node = resolve(node, defs)
        if TYPE_KEY in node:
            found.add(str(node[TYPE_KEY]))
        stack.extend(_children(node))
    return found


def own_type(node: JsonSchema, defs: Mapping[str, Any]) -> str | None:
    """The interface type of a property: its own, an optional's, or a list's items'."""
    node = resolve(node, defs)
    if TYPE_KEY in node:
        return str(node[TYPE_KEY])
    for option in node.get("anyOf") or []:
        option = resolve(option, defs)
        if option.get("type") == "null":
            continue
        found = own_type(option, defs)
        if found:
            return found
    items = node.get("items")
    if isinstance(items, Mapping):
        return own_type(items, defs)
    return None


def typed_values(schema: JsonSchema, value: Any) -> list[TypedValue]:
    """Every value of an interface type inside `value`, found by walking it along `schema`."""
    out: list[TypedValue] = []
    _walk(schema, schema.get("$defs") or {}, value, (), out, 0)
    return out


def _walk(
    node: JsonSchema,
    defs: Mapping[str, Any],
    value: Any,
    path: tuple[str | int, ...],
    out: list[TypedValue],
    depth: int,
) -> None:
    if value is None or depth > 24:
        return
    node = resolve(node, defs)
    if TYPE_KEY in node:
        out.append(TypedValue(str(node[TYPE_KEY]), value, path))
        if not isinstance(value, dict):
            return
    for option in node.get("anyOf") or node.get("oneOf") or []:
        option = resolve(option, defs)
        if option.get("type") != "null" and _fits(option, value):
            _walk(option, defs, value, path, out, depth + 1)
            return
    if isinstance(value, list):
        items = node.get("items")
        if isinstance(items, Mapping):
            for index, item in enumerate(value):
                _walk(items, defs, item, (*path, index), out, depth + 1)
    elif isinstance(value, dict):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra if isinstance(extra, Mapping) else None)
            if child is not None:
                _walk(child, defs, item, (*path, key), out, depth + 1)


def _fits(node: JsonSchema, value: Any) -> bool:
    kind = node.get("type")
    if kind is None:
        return True
    checks = {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }
    return checks.get(str(kind), True)
