"""Reference solver for the diagrams kit.

It reads the runbook as it is written: every numbered step with its kind and branches (the marked
'(decision) Yes: step 5.' form and the prose 'if no, go back to step 4' / 'for web requests at step
6' forms), then the change notes in order (a renamed step, a re-pointed branch, a dropped step whose
predecessor continues at its successor), and keeps the steps reachable from step 1 (another team's
appendix is not). It draws that graph as an Excalidraw scene with bound labels and bound arrows.
For the report it opens the diagram the runbook names (not a look-alike), leaves deleted elements
out, resolves an id that several live elements share to the one listing the referrer among its
bound elements, and computes the dangling arrows itself (never trusting the linter's report).
"""

from __future__ import annotations

import json
import re
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

STEP = re.compile(r"^(\d+)\. \*\*(.+?)\*\*(.*)$")
PROSE = re.compile(r"(?:if|for) ([a-z0-9]+)(?: requests)?,? (?:continue at|go back to|at) step (\d+)", re.I)
MARKED = re.compile(r"([A-Za-z0-9]+): step (\d+)")
SHAPE_OF = {"start": "ellipse", "end": "ellipse", "step": "rectangle", "decision": "diamond"}
SHAPES = ("rectangle", "diamond", "ellipse")


def parse_runbook(text: str) -> tuple[dict[int, dict[str, Any]], str]:
    steps: dict[int, dict[str, Any]] = {}
    diagram = re.search(r"Process diagram: `([^`]+)`", text)
    for line in text.splitlines():
        found = STEP.match(line.strip())
        if not found:
            continue
        num, label, rest = int(found.group(1)), found.group(2), found.group(3)
        step: dict[str, Any] = {"label": label, "kind": "step", "branches": []}
        if "(start)" in rest:
            step["kind"] = "start"
        if "(end)" in rest:
            step["kind"] = "end"
        following = re.search(r"Next: step (\d+)", rest)
        if following:
            step["branches"] = [["", int(following.group(1))]]
        elif "(decision)" in rest:
            step["kind"] = "decision"
            step["branches"] = [[b.lower(), int(t)] for b, t in MARKED.findall(rest)]
        elif PROSE.search(rest):
            step["kind"] = "decision"
            step["branches"] = [[b.lower(), int(t)] for b, t in PROSE.findall(rest)]
        steps[num] = step
    notes = text.split("## Change notes", 1)[1] if "## Change notes" in text else ""
    for line in notes.splitlines():
        relabel = re.search(r"step (\d+) is now \*\*(.+?)\*\*", line)
        repoint = re.search(r'the "([^"]+)" branch of step (\d+) now goes to step (\d+)', line)
        drop = re.search(r"step (\d+) is no longer done: step (\d+) now continues at step (\d+)", line)
        if relabel:
            steps[int(relabel.group(1))]["label"] = relabel.group(2)
        elif repoint:
            step = steps[int(repoint.group(2))]
            step["branches"] = [[b, int(repoint.group(3)) if b == repoint.group(1) else t] for b, t in step["branches"]]
        elif drop:
            dropped, pred, target = (int(g) for g in drop.groups())
            steps[pred]["branches"] = [[b, target if t == dropped else t] for b, t in steps[pred]["branches"]]
    return steps, diagram.group(1) if diagram else ""


def reachable(steps: dict[int, dict[str, Any]]) -> list[int]:
    seen: list[int] = []
    frontier = [1]
    while frontier:
        num = frontier.pop(0)
        if num not in seen:
            seen.append(num)
            frontier += [t for _, t in steps[num]["branches"]]
    return seen


def flowchart(steps: dict[int, dict[str, Any]]) -> dict[str, Any]:
    elements: list[dict[str, Any]] = []
    keep = reachable(steps)
    ids = {num: f"step-{num}" for num in keep}
    shapes: dict[int, dict[str, Any]] = {}
    for n, num in enumerate(keep):
        step = steps[num]
        shape: dict[str, Any] = {"id": ids[num], "type": SHAPE_OF[step["kind"]], "x": 100 + 300 * (n % 3),
                                 "y": 80 + 160 * (n // 3), "width": 200, "height": 80, "isDeleted": False,
                                 "boundElements": [{"type": "text", "id": f"{ids[num]}-label"}]}  # fmt: skip
        shapes[num] = shape
        elements.append(shape)
        elements.append({"id": f"{ids[num]}-label", "type": "text", "x": shape["x"] + 20, "y": shape["y"] + 25,
                         "text": step["label"], "originalText": step["label"], "containerId": ids[num],
                         "isDeleted": False})  # fmt: skip
    for num in keep:
        for k, (branch, target) in enumerate(steps[num]["branches"]):
            arrow_id = f"arrow-{num}-{k}"
            start, end = shapes[num], shapes[target]
            arrow: dict[str, Any] = {
                "id": arrow_id, "type": "arrow", "x": start["x"] + 100, "y": start["y"] + 40, "isDeleted": False,
                "points": [[0, 0], [end["x"] - start["x"], end["y"] - start["y"]]],
                "startBinding": {"elementId": start["id"], "focus": 0, "gap": 4},
                "endBinding": {"elementId": end["id"], "focus": 0, "gap": 4}, "boundElements": [],
            }  # fmt: skip
            start["boundElements"].append({"type": "arrow", "id": arrow_id})
            if end is not start:
                end["boundElements"].append({"type": "arrow", "id": arrow_id})
            elements.append(arrow)
            if branch:
                arrow["boundElements"].append({"type": "text", "id": f"{arrow_id}-label"})
                elements.append({"id": f"{arrow_id}-label", "type": "text", "x": arrow["x"], "y": arrow["y"] + 20,
                                 "text": branch, "originalText": branch, "containerId": arrow_id,
                                 "isDeleted": False})  # fmt: skip
    return {
        "type": "excalidraw",
        "version": 2,
        "source": "skill2env",
        "elements": elements,
        "appState": {},
        "files": {},
    }


def lint(scene: dict[str, Any], start_label: str) -> dict[str, list[str]]:
    live = [e for e in scene["elements"] if not e.get("isDeleted")]

    def listed(element: dict[str, Any], ref: str) -> bool:
        return any(b.get("id") == ref for b in element.get("boundElements") or [])

    def resolve(ref: Any, referrer: str) -> dict[str, Any] | None:
        found = [e for e in live if e["id"] == ref]
        if len(found) > 1:
            found = [e for e in found if listed(e, referrer)]
        return found[0] if len(found) == 1 else None

    shapes = [e for e in live if e["type"] in SHAPES]

    def label(shape: dict[str, Any]) -> str:
        texts = [t for t in live if t["type"] == "text" and t.get("containerId") == shape["id"]]
        texts = [t for t in texts if resolve(t["containerId"], t["id"]) is shape]
        return texts[0]["text"] if texts else ""

    def ends(arrow: dict[str, Any]) -> list[dict[str, Any] | None]:
        found = []
        for key in ("startBinding", "endBinding"):
            target = resolve((arrow.get(key) or {}).get("elementId"), arrow["id"])
            found.append(target if target and target["type"] in SHAPES else None)
        return found

    arrows = [e for e in live if e["type"] == "arrow"]
    start = next((s for s in shapes if label(s) == start_label), None)
    seen: list[int] = []
    frontier = [start] if start else []
    while frontier:
        shape = frontier.pop()
        if id(shape) in seen:
            continue
        seen.append(id(shape))
        for arrow in arrows:
            begin, end = ends(arrow)
            if begin is shape and end is not None:
                frontier.append(end)
    ids = [e["id"] for e in live]
    return {
        "dangling_arrows": sorted(a["id"] for a in arrows if None in ends(a)),
        "unlabeled_shapes": sorted(s["id"] for s in shapes if not label(s)),
        "unreachable": sorted(label(s) for s in shapes if id(s) not in seen and label(s)),
        "duplicate_ids": sorted({i for i in ids if ids.count(i) > 1}),
    }


def main() -> None:
    root = rt.workspace()
    text = rt.read_text(root / "RUNBOOK.md")
    steps, diagram = parse_runbook(text)
    rt.write_json("flow.excalidraw", flowchart(steps))
    if rt.partial_mode():
        return
    written = STEP.match(next(line for line in text.splitlines() if line.startswith("1. **")))
    start_label = written.group(2) if written else ""
    scene = json.loads(rt.read_text(root / diagram))
    rt.write_json("diagram_report.json", lint(scene, start_label))


if __name__ == "__main__":
    main()
