"""The rubric's checks of a flowchart written as an Excalidraw scene (standard library only).

The verifier runs this file as the inline source of a `python` check: `check(workspace, args)` with
`args["kind"]` one of

* `nodes`: the live shapes (rectangle, diamond, ellipse; `isDeleted` ones left out) are exactly the
  expected steps: each labelled by a live text bound to it (`containerId`), the labels (case and
  spacing aside) and each label's shape type equal to `args["nodes"]`;
* `edges`: the live arrows are exactly the expected `[from, to, branch]` edges, each bound at both
  ends (`startBinding` / `endBinding` naming a live shape that lists the arrow in its
  `boundElements`), its branch the live text bound to the arrow ('' when none).

Coordinates are never read. Every file is read as untrusted: missing, oversized or unparsable
files, duplicate ids and unlabelled or twice-labelled shapes fail the item.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAX_BYTES = 4 << 20
SHAPES = ("rectangle", "diamond", "ellipse")


def norm(text: object) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


def _elements(workspace: Path, relative: str) -> list[dict[str, Any]] | None:
    path = workspace / relative
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return None
    elements = data.get("elements") if isinstance(data, dict) else None
    if not isinstance(elements, list):
        return None
    return [e for e in elements if isinstance(e, dict) and e.get("isDeleted") is not True]


def _graph(workspace: Path, relative: str) -> tuple[dict[str, str], list[list[str]]] | str:
    """(label → shape type, [from, to, branch] edges) of the scene, or why it cannot be read."""
    elements = _elements(workspace, relative)
    if elements is None:
        return f"{relative} is missing, too large or not an Excalidraw scene"
    ids = [e.get("id") for e in elements]
    if any(not isinstance(i, str) or not i for i in ids) or len(set(ids)) != len(ids):
        return "elements without an id or with duplicate ids"
    by_id = {e["id"]: e for e in elements}
    labels: dict[str, list[str]] = {}
    for element in elements:
        if element.get("type") == "text" and isinstance(element.get("containerId"), str):
            text = element.get("text") if isinstance(element.get("text"), str) else element.get("originalText")
            labels.setdefault(element["containerId"], []).append(norm(text or ""))
    shapes = {i: e for i, e in by_id.items() if e.get("type") in SHAPES}
    nodes: dict[str, str] = {}
    names: dict[str, str] = {}
    for shape_id, shape in shapes.items():
        found = labels.get(shape_id, [])
        if len(found) != 1 or not found[0] or found[0] in nodes:
            return f"shape {shape_id[:40]} has {len(found)} labels or repeats another's"
        nodes[found[0]] = str(shape.get("type"))
        names[shape_id] = found[0]
    edges: list[list[str]] = []
    for arrow_id, arrow in by_id.items():
        if arrow.get("type") != "arrow":
            continue
        ends = []
        for key in ("startBinding", "endBinding"):
            binding = arrow.get(key)
            target = binding.get("elementId") if isinstance(binding, dict) else None
            bound = shapes.get(target) if isinstance(target, str) else None
            listed = bound.get("boundElements") if bound else None
            if not isinstance(listed, list) or not any(isinstance(b, dict) and b.get("id") == arrow_id for b in listed):
                return f"arrow {arrow_id[:40]} is not bound at both ends"
            ends.append(names[str(target)])
        branch = labels.get(arrow_id, [""])
        if len(branch) != 1:
            return f"arrow {arrow_id[:40]} has several labels"
        edges.append([ends[0], ends[1], branch[0]])
    return nodes, sorted(edges)


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    found = _graph(workspace, args["path"])
    if isinstance(found, str):
        return False, {"reason": found}
    nodes, edges = found
    if args["kind"] == "nodes":
        expected = {norm(k): v for k, v in args["nodes"].items()}
        wrong = sorted(set(expected.items()) ^ set(nodes.items()))
        return not wrong, {"wrong": [list(w) for w in wrong[:10]]}
    wanted = sorted([norm(a), norm(b), norm(c)] for a, b, c in args["edges"])
    missing = [e for e in wanted if e not in edges]
    extra = [e for e in edges if e not in wanted]
    return edges == wanted, {"missing": missing[:10], "extra": extra[:10]}
