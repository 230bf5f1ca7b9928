"""Naive baseline for the diagrams kit: the obvious half. It draws every numbered step of the runbook
as written (change notes unread, the appendix included), takes only '(decision)'-marked steps for
decisions (a decision told in prose becomes a box with unlabelled arrows), reports the scene named
'final' when there is one, copies the linter's dangling arrows, and reads the scene without regard
to `isDeleted` or to ids that several elements share (the last one of an id wins)."""

from __future__ import annotations

import json
import re
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

STEP = re.compile(r"^(\d+)\. \*\*(.+?)\*\*(.*)$")
SHAPE_OF = {"start": "ellipse", "end": "ellipse", "step": "rectangle", "decision": "diamond"}


def main() -> None:
    root = rt.workspace()
    elements: list[dict[str, Any]] = []
    steps: dict[int, tuple[str, str, list[tuple[str, int]]]] = {}
    for line in rt.read_text(root / "RUNBOOK.md").splitlines():
        found = STEP.match(line)
        if not found:
            continue
        rest = found.group(3)
        kind = "start" if "(start)" in rest else "end" if "(end)" in rest else "step"
        if "(decision)" in rest:
            branches = [(b.lower(), int(t)) for b, t in re.findall(r"([A-Za-z0-9]+): step (\d+)", rest)]
            kind = "decision"
        else:
            branches = [("", int(t)) for t in re.findall(r"step (\d+)", rest)]
        steps[int(found.group(1))] = (found.group(2), kind, branches)
    for num, (label, kind, _) in steps.items():
        bound = [{"type": "text", "id": f"t{num}"}]
        bound += [{"type": "arrow", "id": f"a{num}-{k}"} for k, _ in enumerate(steps[num][2])]
        bound += [{"type": "arrow", "id": f"a{n}-{k}"} for n, s in steps.items() for k, (_, t) in enumerate(s[2])
                  if t == num and n != num]  # fmt: skip
        elements.append({"id": f"s{num}", "type": SHAPE_OF[kind], "x": 0, "y": 100 * num, "boundElements": bound})
        elements.append({"id": f"t{num}", "type": "text", "text": label, "containerId": f"s{num}"})
    for num, (_, _, branches) in steps.items():
        for k, (branch, target) in enumerate(branches):
            elements.append({"id": f"a{num}-{k}", "type": "arrow", "startBinding": {"elementId": f"s{num}"},
                             "endBinding": {"elementId": f"s{target}"}})  # fmt: skip
            if branch:
                elements.append({"id": f"l{num}-{k}", "type": "text", "text": branch, "containerId": f"a{num}-{k}"})
    rt.write_json("flow.excalidraw", {"type": "excalidraw", "version": 2, "elements": elements})
    scenes = sorted((root / "diagrams").glob("*.excalidraw"))
    chosen = next((p for p in scenes if "final" in p.name), scenes[0])
    scene = json.loads(rt.read_text(chosen))["elements"]
    by_id = {e["id"]: e for e in scene}
    labels = {e.get("containerId"): e["text"] for e in scene if e["type"] == "text" and e.get("containerId")}
    shapes = [e for e in scene if e["type"] in ("rectangle", "diamond", "ellipse")]
    arrows = [e for e in scene if e["type"] == "arrow"]
    start = next(s for s in shapes if s["type"] == "ellipse")
    seen, frontier = {start["id"]}, [start["id"]]
    while frontier:
        current = frontier.pop()
        for arrow in arrows:
            begin = (arrow.get("startBinding") or {}).get("elementId")
            end = (arrow.get("endBinding") or {}).get("elementId")
            if begin == current and end in by_id and end not in seen:
                seen.add(end)
                frontier.append(end)
    ids = [e["id"] for e in scene]
    lint = json.loads(rt.read_text(root / "diagrams" / "lint-report.json"))
    rt.write_json("diagram_report.json", {
        "dangling_arrows": [f["element"] for f in lint["findings"] if f["rule"] == "unbound-arrow"],
        "unlabeled_shapes": sorted({s["id"] for s in shapes if s["id"] not in labels}),
        "unreachable": sorted({labels[s["id"]] for s in shapes if s["id"] not in seen and s["id"] in labels}),
        "duplicate_ids": sorted({i for i in ids if ids.count(i) > 1}),
    })  # fmt: skip


if __name__ == "__main__":
    main()
