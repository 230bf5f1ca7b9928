"""The shape of a pydantic JSON schema: for every table (dotted path, `[]` for array items) each
field's value types and default. Standard library only: Harbor's own Python imports it too."""

from __future__ import annotations

from typing import Any


def schema_shape(schema: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    defs = schema.get("$defs", {})
    shape: dict[str, dict[str, dict[str, Any]]] = {}

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def types(node: dict[str, Any]) -> list[str]:
        node = resolve(node)
        if "anyOf" in node:
            return sorted({kind for sub in node["anyOf"] for kind in types(sub)})
        if "enum" in node or "const" in node:
            return ["enum:" + ",".join(sorted(map(str, node.get("enum", [node.get("const")]))))]
        kind = node.get("type", "any")
        if kind == "array":
            return ["array<" + "|".join(types(node.get("items", {}))) + ">"]
        if kind == "object" and "properties" in node:
            return ["table"]
        if kind == "object":
            values = node.get("additionalProperties")
            return ["object<" + "|".join(types(values if isinstance(values, dict) else {})) + ">"]
        return [str(kind)]

    def walk(path: str, node: dict[str, Any]) -> None:
        node = resolve(node)
        for sub in node.get("anyOf", []):
            walk(path, sub)
        if node.get("type") == "array":
            walk(path + "[]", node.get("items", {}))
        if "properties" not in node:
            return
        fields = shape.setdefault(path or ".", {})
        required = set(node.get("required", []))
        for name, prop in node["properties"].items():
            default = prop.get("default", "<required>" if name in required else "<none>")
            fields[name] = {"types": types(prop), "default": default}
            walk(f"{path}.{name}" if path else name, prop)

    walk("", schema)
    return shape
