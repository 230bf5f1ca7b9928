"""A small JSONPath: `$`, `.name`, `['name']`, `[3]`, `[-1]`, `[*]` and `.*` — enough to point at a
value in a deliverable, nothing that runs code."""

from __future__ import annotations

import re
from typing import Any

from .base import CheckSpecError

_TOKEN = re.compile(
    r"""\.(?P<name>[A-Za-z_][\w-]*)|\.(?P<dotstar>\*)|\[(?P<index>-?\d+)\]|\[(?P<star>\*)\]"""
    r"""|\[\s*'(?P<single>(?:[^'\\]|\\.)*)'\s*\]|\[\s*"(?P<double>(?:[^"\\]|\\.)*)"\s*\]"""
)
Step = tuple[str, Any]
"""("key", name) | ("index", n) | ("all", None)."""


def parse(path: str) -> list[Step]:
    """The steps of a JSONPath expression.

    Raises: CheckSpecError: not of the supported form.
    """
    if not isinstance(path, str) or not path.startswith("$"):
        raise CheckSpecError(f"a JSONPath starts with '$': {path!r}")
    steps: list[Step] = []
    position = 1
    while position < len(path):
        match = _TOKEN.match(path, position)
        if match is None:
            raise CheckSpecError(f"cannot read JSONPath {path!r} at {path[position:]!r}")
        if match.group("name") is not None:
            steps.append(("key", match.group("name")))
        elif match.group("index") is not None:
            steps.append(("index", int(match.group("index"))))
        elif match.group("single") is not None or match.group("double") is not None:
            quoted = match.group("single") if match.group("single") is not None else match.group("double")
            steps.append(("key", re.sub(r"\\(.)", r"\1", quoted)))
        else:
            steps.append(("all", None))
        position = match.end()
    return steps


def has_wildcard(path: str) -> bool:
    return any(kind == "all" for kind, _ in parse(path))


def find(document: Any, path: str) -> list[tuple[str, Any]]:
    """Every (concrete path, value) the expression selects, in document order."""
    current: list[tuple[str, Any]] = [("$", document)]
    for kind, arg in parse(path):
        following: list[tuple[str, Any]] = []
        for where, value in current:
            if kind == "key" and isinstance(value, dict) and arg in value:
                following.append(
                    (f"{where}.{arg}" if re.fullmatch(r"[A-Za-z_]\w*", arg) else f"{where}[{arg!r}]", value[arg])
                )
            elif kind == "index" and isinstance(value, list) and -len(value) <= arg < len(value):
                following.append((f"{where}[{arg}]", value[arg]))
            elif kind == "all" and isinstance(value, dict):
                following += [(f"{where}.{k}", v) for k, v in value.items()]
            elif kind == "all" and isinstance(value, list):
                following += [(f"{where}[{i}]", v) for i, v in enumerate(value)]
        current = following
    return current
