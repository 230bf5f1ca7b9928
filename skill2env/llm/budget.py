"""Output budgets sized to the answer: the most tokens an answer that fits its JSON schema can take.

A structured call that names no `max_tokens` asks for what its schema allows (every string at its
`maxLength`, every list at its `maxItems`, the longest enum value), not a flat default: a small answer
(a choice among candidates) then cannot run on for thousands of tokens when a model loops, and a
long one (a blueprint) is not cut off below what it may legitimately need. A schema with an
unbounded part (a string without `maxLength`, a list without `maxItems`, a free-form object) has no
bound; its calls keep the configured budget. The context window still lowers whatever is asked
(`context.ContextWindow.fit`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

CHARS_PER_TOKEN = 3
"""Conservative for JSON: English prose runs near 4 characters a token, code, numbers, escapes and
other languages lower."""
ANSWER_OVERHEAD_TOKENS = 64
"""Room for whitespace between tokens the estimate does not see and a closing stop."""
NUMBER_CHARS = 24
SEPARATOR_CHARS = 7
"""Around each member and item: `": "`, `", "` and a line break with its indent (one token, at most
three characters' worth)."""
MAX_DEPTH = 32


def answer_tokens(schema: Mapping[str, Any]) -> int | None:
    """An upper bound of the tokens of an answer valid under `schema` (a JSON schema with `$defs`),
    or None when the schema leaves some part unbounded."""
    chars = _chars(schema, schema.get("$defs") or {}, 0)
    return None if chars is None else -(-chars // CHARS_PER_TOKEN) + ANSWER_OVERHEAD_TOKENS


def _chars(node: Any, defs: Mapping[str, Any], depth: int) -> int | None:
    if not isinstance(node, Mapping) or depth > MAX_DEPTH:
        return None
    if "$ref" in node:
        return _chars(defs.get(str(node["$ref"]).rsplit("/", 1)[-1]), defs, depth + 1)
    if "const" in node:
        return len(json.dumps(node["const"], ensure_ascii=False))
    if "enum" in node:
        return max((len(json.dumps(value, ensure_ascii=False)) for value in node["enum"]), default=0)
    options = node.get("anyOf") or node.get("oneOf")
    if options:
        sizes = [_chars(option, defs, depth + 1) for option in options]
        return None if any(size is None for size in sizes) else max(size or 0 for size in sizes)
    kind = node.get("type")
    if isinstance(kind, list):
        sizes = [_chars({**node, "type": one}, defs, depth + 1) for one in kind]
        return None if any(size is None for size in sizes) else max(size or 0 for size in sizes)
    if kind == "string":
        length = node.get("maxLength")
        # JSON escapes a character in up to 6 ("\u00e9"): quotes and backslashes take 2, most take 1
        return None if not isinstance(length, int) else 2 * length + 2
    if kind in ("integer", "number"):
        return NUMBER_CHARS
    if kind in ("boolean", "null"):
        return 5
    if kind == "array":
        count, item = node.get("maxItems"), _chars(node.get("items"), defs, depth + 1)
        return None if not isinstance(count, int) or item is None else 2 + count * (item + SEPARATOR_CHARS)
    if kind == "object":
        return _object_chars(node, defs, depth)
    return None


def _object_chars(node: Mapping[str, Any], defs: Mapping[str, Any], depth: int) -> int | None:
    properties = node.get("properties")
    if not isinstance(properties, Mapping) or node.get("additionalProperties") not in (None, False):
        return None
    total = 2
    for name, child in properties.items():
        size = _chars(child, defs, depth + 1)
        if size is None:
            return None
        total += len(json.dumps(name, ensure_ascii=False)) + SEPARATOR_CHARS + size
    return total
