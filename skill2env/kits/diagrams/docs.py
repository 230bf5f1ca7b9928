"""Renderers of the diagrams world: the runbook (Markdown), the Excalidraw scenes (JSON), the
diagram linter's report and the team's diagram conventions."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from skill2env.kits.diagrams.patterns import LINT, RUNBOOK
from skill2env.kits.diagrams.world import SHAPES, El, Note, Scene, Step, World, expected_dangling
from skill2env.kits.spec import Workspace, seeded

CONVENTIONS = "diagrams/README.md"
MERMAID = "diagrams/drafts/first-draft.mmd"
SIZE = {"rectangle": (200, 70), "diamond": (200, 120), "ellipse": (200, 70), "text": (160, 25), "arrow": (0, 0)}


def branch_prose(step: Step) -> str:
    if step.form == "cases":
        parts = [
            f"for {b} requests {'continue ' if n == 0 else ''}at step {t}" for n, (b, t) in enumerate(step.branches)
        ]
        text = ", ".join(parts[:-1]) + f", and {parts[-1]}"
    else:
        text = "; ".join(
            f"if {b}, {'go back to' if step.form == 'loop' and b == 'no' else 'continue at'} step {t}"
            for b, t in step.branches
        )
    return text[0].upper() + text[1:] + "."


def step_line(step: Step) -> str:
    head = f"{step.num}. **{step.label}**"
    if step.kind == "end":
        return f"{head} (end)."
    if step.kind == "decision":
        if step.form == "marked":
            return f"{head} (decision). " + " ".join(f"{b.capitalize()}: step {t}." for b, t in step.branches)
        return f"{head} {branch_prose(step)}"
    mark = " (start)" if step.kind == "start" else ""
    return f"{head}{mark}. Next: step {step.branches[0][1]}."


def bullet_line(world: World, step: Step) -> str:
    mark = {"start": " (start)", "end": " (end)"}.get(step.kind, "")
    if not step.branches:
        return f"- **{step.label}**{mark}."
    target = world.step(step.branches[0][1])
    where = f"step {target.num} of the main process" if not target.appendix else f"**{target.label}**"
    return f"- **{step.label}**{mark}. Then: {where}."


def note_line(note: Note) -> str:
    if note.kind == "relabel":
        return f'- {note.date}: step {note.step} is now **{note.label}** (it was "{note.old}").'
    if note.kind == "repoint":
        return f'- {note.date}: the "{note.label}" branch of step {note.step} now goes to step {note.target}.'
    if note.kind == "drop":
        return (f"- {note.date}: step {note.step} is no longer done: step {note.pred} now continues at step "
                f"{note.target}.")  # fmt: skip
    return f"- {note.date}: step {note.step} was reviewed with the team; no change."


def runbook(world: World) -> str:
    lines = [
        f"# {world.process}: runbook",
        "",
        f"Owner: {world.team}. Last revised {world.revised.date().isoformat()}.",
        "",
        f"Process diagram: `{world.diagram}` (drawn before the change notes at the end of this runbook).",
        "",
        "The process starts at step 1. Each step says where the work goes next; a decision names its branches.",
        "",
        "## Steps",
        "",
    ]
    lines += [step_line(s) for s in sorted(world.steps, key=lambda s: s.num) if not s.appendix]
    appendix = [s for s in world.steps if s.appendix]
    if appendix:
        lines += [
            "",
            f"## Appendix: {world.appendix_title}",
            "",
            f"Kept here for reference: this process belongs to {world.appendix_team} and hands work to ours at "
            "one point.",
            "",
        ]
        lines += [step_line(s) if s.numbered else bullet_line(world, s) for s in appendix]
    if world.notes:
        lines += ["", "## Change notes", "", "Later notes supersede the steps above.", ""]
        lines += [note_line(n) for n in world.notes]
    return "\n".join(lines) + "\n"


def conventions(world: World) -> str:
    return f"""# Diagrams ({world.team})

Our process diagrams are Excalidraw scenes (`.excalidraw`, JSON). We edit them in Excalidraw and keep
them next to the runbooks.

- A shape's label is a text element bound to it (the text's `containerId` is the shape's id).
- Arrows are bound to the shapes they join (`startBinding` / `endBinding` → `elementId`); a shape lists its
  bound arrows and texts in `boundElements`. A decision's arrows carry the branch as a bound text.
- Excalidraw keeps deleted elements in the file with `"isDeleted": true`; they are not part of the drawing.
- Start and end are ellipses, decisions diamonds, every other step a rectangle.
- `{MERMAID}` is the Mermaid source of the first draft, kept for history; the runbook governs.
- `{LINT}` is written by the diagram linter when someone runs it; it checks arrows only.
"""


def _bound_type(scene: Scene, owner: El, ref: str) -> str:
    for element in scene.elements:
        if element.id == ref and element.type == "text" and element.container == owner.id:
            return "text"
    return "arrow"


def _centre(scene: Scene, ref: str | None, arrow: El) -> tuple[int, int] | None:
    found = [e for e in scene.elements if e.id == ref and not e.deleted and e.type in SHAPES]
    if len(found) > 1:
        found = [e for e in found if arrow.id in e.bound] or found[:1]
    if not found:
        return None
    width, height = SIZE[found[0].type]
    return found[0].x + width // 2, found[0].y + height // 2


def element_json(scene: Scene, element: El, n: int) -> dict[str, object]:
    rng = seeded("diagrams-element", scene.path, n)
    width, height = SIZE[element.type]
    data: dict[str, object] = {
        "id": element.id, "type": element.type, "x": element.x, "y": element.y, "width": width, "height": height,
        "angle": 0, "strokeColor": "#1e1e1e", "backgroundColor": "transparent", "fillStyle": "solid",
        "strokeWidth": 2, "strokeStyle": "solid", "roughness": 1, "opacity": 100, "groupIds": [], "frameId": None,
        "roundness": {"type": 3} if element.type == "rectangle" else None, "seed": rng.randint(1, 2**31 - 1),
        "version": rng.randint(2, 40), "versionNonce": rng.randint(1, 2**31 - 1), "isDeleted": element.deleted,
        "boundElements": [{"type": _bound_type(scene, element, b), "id": b} for b in element.bound] or None,
        "updated": element.updated, "link": None, "locked": False,
    }  # fmt: skip
    if element.type == "text":
        data |= {"text": element.label, "originalText": element.label, "fontSize": 20, "fontFamily": 1,
                 "textAlign": "center", "verticalAlign": "middle", "containerId": element.container,
                 "lineHeight": 1.25}  # fmt: skip
        container = next((e for e in scene.elements if e.id == element.container and element.id in e.bound), None)
        if container is not None and container.type in SHAPES:
            data["x"], data["y"] = container.x + 20, container.y + 22
    if element.type == "arrow":
        start, end = _centre(scene, element.start, element), _centre(scene, element.end, element)
        begin = start or ((end[0] - 150, end[1]) if end else (0, 0))
        finish = end or (begin[0] + 40, begin[1] + 120)
        data["x"], data["y"] = begin
        data["width"], data["height"] = abs(finish[0] - begin[0]), abs(finish[1] - begin[1])
        data |= {
            "points": [[0, 0], [finish[0] - begin[0], finish[1] - begin[1]]],
            "startBinding": {"elementId": element.start, "focus": 0, "gap": 4} if element.start else None,
            "endBinding": {"elementId": element.end, "focus": 0, "gap": 4} if element.end else None,
            "startArrowhead": None, "endArrowhead": "arrow", "lastCommittedPoint": None,
        }  # fmt: skip
    return data


def scene_json(scene: Scene) -> str:
    data = {
        "type": "excalidraw",
        "version": 2,
        "source": "https://excalidraw.com",
        "elements": [element_json(scene, e, n) for n, e in enumerate(scene.elements)],
        "appState": {
            "gridSize": None,
            "viewBackgroundColor": "#ffffff",
            **({"name": scene.name} if scene.name else {}),
        },
        "files": {},
    }
    return json.dumps(data, indent=2) + "\n"


MERMAID_SHAPE = {"start": ("([", "])"), "end": ("([", "])"), "step": ("[", "]"), "decision": ("{", "}")}


def mermaid(world: World) -> str:
    """The Mermaid source the scene was first drawn from (the runbook's steps before any later change)."""
    lines = [f"%% {world.process}: first draft of the diagram, drawn before the runbook's change notes", "flowchart TD"]
    for step in world.drawn:
        left, right = MERMAID_SHAPE[step.kind]
        lines.append(f'    n{step.num}{left}"{step.label}"{right}')
    for step in world.drawn:
        lines += [f"    n{step.num} -->{f'|{b}|' if b else ''} n{t}" for b, t in step.branches]
    return "\n".join(lines) + "\n"


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).replace(tzinfo=None).isoformat(timespec="seconds")


def lint_report(world: World) -> dict[str, object]:
    report: dict[str, object] = {"tool": "excalidraw-lint 0.4.2", "scene": world.diagram}
    if world.lint_stale == 0:
        report["scene_saved_at"] = iso(max(e.updated for e in world.scene.elements))
    elif world.lint_stale == 1:
        report["scene_saved_at"] = world.lint_at.isoformat(timespec="seconds") if world.lint_at else ""
    report["generated_at"] = world.lint_at.isoformat(timespec="seconds") if world.lint_at else ""
    if world.lint_stale == 0:
        report["generated_at"] = iso(max(e.updated for e in world.scene.elements) + 600_000)
    report["rules"] = ["unbound-arrow"]
    unbound = list(world.lint_dangling) if world.lint_stale else expected_dangling(world.scene)
    report["findings"] = [
        {"rule": "unbound-arrow", "element": ref, "message": "arrow is not bound to a shape at both ends"}
        for ref in unbound
    ]
    return report


def render_world(world: World) -> Workspace:
    workspace = Workspace()
    workspace.add_text(RUNBOOK, runbook(world))
    workspace.add_text(world.diagram, scene_json(world.scene))
    if world.decoy is not None:
        workspace.add_text(world.decoy.path, scene_json(world.decoy))
    workspace.add_text(LINT, json.dumps(lint_report(world), indent=2) + "\n")
    workspace.add_text(CONVENTIONS, conventions(world))
    workspace.add_text(MERMAID, mermaid(world))
    return workspace
