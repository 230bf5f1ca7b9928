"""Pattern transformers of the diagrams kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but the
obvious reading happens to be right: a change note that changes nothing, a decision written the
marked way, an appendix written as bullets): likely at intensity 1, less so at 2, never at 3. A
harmful trap is recorded in `world.harmful`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.diagrams.world import (
    El,
    Note,
    World,
    add_step,
    arrow_ends,
    draw_scene,
    epoch_ms,
    expected_dangling,
    ident,
    latest,
    live,
)
from skill2env.kits.spec import Design, draw_benign

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.9, 2: 0.4, 3: 0.0}
RUNBOOK = "RUNBOOK.md"
LINT = "diagrams/lint-report.json"


def benign(world: World, pattern: str, level: int, rng: random.Random) -> bool:
    return draw_benign(world.levels, world.harmful, pattern, level, rng, BENIGN)


def note_date(world: World, rng: random.Random) -> str:
    return (world.revised + timedelta(days=rng.randint(3, 60))).date().isoformat()


def conditional_branch_on_data(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "conditional_branch_on_data", level, rng)
    keys, theme = world.keys, world.theme
    world.step(keys["D1"]).form = "marked" if harmless else "yesno"
    if level >= 2:
        label, cases, targets = theme["DC"]
        after = world.step(keys["E"])
        rest = after.branches[0][1]
        decision = add_step(world, label, "decision", [], form="marked" if harmless else "cases")
        for case, target in zip(cases, targets, strict=True):
            step = add_step(world, target, "step", [("", rest)])
            decision.branches.append((case, step.num))
        after.branches = [("", decision.num)]
    if level == 3:
        issue = world.step(keys["F"])
        loop = add_step(world, str(theme["DL"]), "decision", [("yes", keys["OK"]), ("no", issue.num)], form="loop")
        issue.branches = [("", loop.num)]
    design.plant("conditional_branch_on_data", "runbook.decisions", "the runbook says at each step where it goes next",
                 "step", RUNBOOK)  # fmt: skip
    design.forms["conditional_branch_on_data"] = {
        1: "A decision is written as prose ('If yes, continue at step 5; if no, ...') instead of the marked "
        "'(decision) Yes: step 5.' form: it is still a diamond with labelled branches.",
        2: "As level 1, and a three-way decision whose cases are named only in a sentence.",
        3: "As level 2, and a retry decision whose 'no' branch goes back to an earlier step.",
    }[level]


def retroactive_correction(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "retroactive_correction", level, rng)
    keys = world.keys
    relabelled = keys[rng.choice(("A", "B", "C", "R"))]
    if harmless:
        world.notes.append(Note("review", relabelled, note_date(world, rng)))
    else:
        old = world.step(relabelled).label
        new = rng.choice([x for x in world.theme["relabel"] if x != old])
        world.notes.append(Note("relabel", relabelled, note_date(world, rng), label=new, old=old))
    if level >= 2:
        decision = world.step(keys["D2"])
        if harmless:
            world.notes.append(Note("review", decision.num, note_date(world, rng)))
        else:
            world.notes.append(Note("repoint", decision.num, note_date(world, rng), label="no", target=keys["R"]))
    if level == 3:
        dropped = world.step(keys["E"])
        world.notes.append(Note("drop", dropped.num, note_date(world, rng), target=dropped.branches[0][1],
                                pred=keys["C"]))  # fmt: skip
    world.notes.sort(key=lambda n: n.date)
    design.plant("retroactive_correction", "runbook.notes", "the runbook's change notes supersede earlier steps",
                 "Change notes", RUNBOOK)  # fmt: skip
    design.forms["retroactive_correction"] = {
        1: "A change note at the end of the runbook renames a step: the flowchart shows the new name.",
        2: "As level 1, and a note re-points a decision's branch, which leaves a step out of the process.",
        3: "As level 2, and a note drops a step: its predecessor continues at its successor.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "scope_distractor", level, rng)
    title, team, labels = world.theme["appendix"]
    world.appendix_title, world.appendix_team = str(title), str(team)
    first = max(s.num for s in world.steps) + 1
    steps = []
    for n, label in enumerate(labels):
        kind = "start" if n == 0 else "end" if n == len(labels) - 1 else "step"
        branches = [("", first + n + 1)] if n < len(labels) - 1 else []
        steps.append(add_step(world, label, kind, branches, appendix=True, numbered=not harmless))
    if level >= 2:
        steps[-2].branches = [("", world.keys["F"])]
    if level == 3:
        steps[1].label = world.step(world.keys["B"]).label
    design.plant("scope_distractor", "runbook.appendix", "the runbook's appendix is another team's process",
                 "Appendix", RUNBOOK)  # fmt: skip
    design.forms["scope_distractor"] = {
        1: "The runbook's appendix numbers another team's process on from the main steps; it is not part of the "
        "process that starts at step 1.",
        2: "As level 1, and an appendix step continues into a step of the main process.",
        3: "As level 2, and an appendix step has the same name as a main step.",
    }[level]


def formatting_carries_meaning(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "formatting_carries_meaning", level, rng)
    scene, nodes = world.scene, world.scene_nodes
    keys = world.keys
    stamp = latest(scene) + rng.randint(60_000, 3_600_000)
    source = nodes[keys["S"]]
    target = nodes[keys["A"]] if harmless else nodes[world.cut]
    scene.elements.append(El(ident(rng), "arrow", start=source, end=target, deleted=True, updated=stamp))
    if level >= 2:
        shape = nodes[keys["S"]] if harmless else nodes[world.unlabeled]
        scene.elements.append(El(ident(rng), "text", "Draft", container=shape, deleted=True, updated=stamp))
    if level == 3:
        scene.elements.append(El(ident(rng), "rectangle", deleted=True, updated=stamp, x=900, y=80))
        box = El(ident(rng), "rectangle", deleted=True, updated=stamp, x=900, y=220)
        text = El(ident(rng), "text", "Old manual check", container=box.id, deleted=True, updated=stamp)
        box.bound.append(text.id)
        scene.elements += [box, text]
    design.plant("formatting_carries_meaning", "scene.deleted", "deleted elements stay in the scene file",
                 "isDeleted", world.diagram)  # fmt: skip
    design.forms["formatting_carries_meaning"] = {
        1: "A deleted arrow (isDeleted: true) still joins the start to a step no live arrow reaches.",
        2: "As level 1, and a deleted text still names the shape that has no label.",
        3: "As level 2, and deleted shapes, one with a label, sit beside the live ones.",
    }[level]


def ambiguous_identifier(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "ambiguous_identifier", level, rng)
    scene, nodes, keys = world.scene, world.scene_nodes, world.keys
    stamp = latest(scene) + rng.randint(60_000, 3_600_000)
    note = El(ident(rng), "text", "Reviewed by the process owner", updated=stamp, x=40, y=40)
    twin = El(note.id, "text", "Draft - do not share", deleted=not harmless, updated=stamp, x=40, y=500)
    if not harmless:  # a deleted element shares the id of a live shape
        twin.id = nodes[keys["OK"]]
    scene.elements += [note, twin]
    if level >= 2:
        target = nodes[keys["F"] if world.cut != keys["G"] else keys["NO"]]
        box = El(target, "rectangle", updated=stamp, x=900, y=360)
        text = El(ident(rng), "text", "Parking lot", container=target, updated=stamp)
        box.bound.append(text.id)
        scene.elements += [box, text]
    if level == 3:
        arrow = next(e for e in live(scene) if e.type == "arrow" and None not in arrow_ends(scene, e))
        scene.elements.append(El(arrow.id, "text", "see the runbook", updated=stamp, x=600, y=20))
    design.plant("ambiguous_identifier", "scene.ids", "element ids are what bindings refer to", "elementId",
                 world.diagram)  # fmt: skip
    design.forms["ambiguous_identifier"] = {
        1: "A deleted element carries the id of a live shape: not a duplicate, since deleted elements do not count.",
        2: "As level 1, and a live shape shares its id with a step an arrow ends at: the binding names the one that "
        "lists the arrow in its boundElements.",
        3: "As level 2, and a free text shares its id with a bound arrow.",
    }[level]


def misleading_file_name(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "misleading_file_name", level, rng)
    keys = world.keys
    path = f"diagrams/archive/{world.slug}-2025.excalidraw" if harmless else f"diagrams/{world.slug}-final.excalidraw"
    cut = keys[rng.choice([k for k in ("C", "G", "R") if keys[k] != world.cut])]
    unlabeled = keys[rng.choice([k for k in ("A", "B", "E") if keys[k] != world.unlabeled])]
    decoy = draw_scene(world, rng, path, cut, unlabeled)
    decoy.name = "current version" if level >= 2 else ""
    if level == 3:
        for element in decoy.elements:
            element.updated += latest(world.scene) - latest(decoy) + rng.randint(86_400_000, 5 * 86_400_000)
    world.decoy = decoy
    design.plant("misleading_file_name", "runbook.diagram", "the runbook names the process's diagram file",
                 world.diagram, RUNBOOK)  # fmt: skip
    design.forms["misleading_file_name"] = {
        1: "Another scene named '-final' sits beside the diagram the runbook names.",
        2: "As level 1, the look-alike's name in the file calling it the current version.",
        3: "As level 2, and the look-alike was saved later than the real diagram.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "stale_derived_artifact", level, rng)
    scene = world.scene
    if level == 3:
        arrow = next(e for e in live(scene) if e.type == "arrow" and e.start == world.scene_nodes[world.keys["D2"]])
        shape = next(e for e in scene.elements if e.id == arrow.start and not e.deleted)
        arrow.start = None
        shape.bound.remove(arrow.id)
    world.lint_stale = 1 if level == 1 else 2
    world.lint_at = world.revised - timedelta(days=rng.randint(2, 9), hours=rng.randint(1, 5))
    for element in scene.elements:
        element.updated = max(element.updated, epoch_ms(world.lint_at + timedelta(hours=2)))
    current = expected_dangling(scene)
    if harmless:
        world.lint_dangling = current
    else:
        bound = [e.id for e in live(scene) if e.type == "arrow" and e.id not in current]
        world.lint_dangling = [rng.choice(bound)]
    design.plant("stale_derived_artifact", "lint.report", "the lint report was made from an older save of the scene",
                 "generated_at", LINT)  # fmt: skip
    design.forms["stale_derived_artifact"] = {
        1: "The lint report names an older save of the scene and blames an arrow that has since been bound; the "
        "scene's own bindings show which arrow dangles.",
        2: "As level 1, the report giving only its own time, earlier than the scene's last edit.",
        3: "As level 2, and a second arrow lost its start binding since.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "conditional_branch_on_data": conditional_branch_on_data,
    "retroactive_correction": retroactive_correction,
    "scope_distractor": scope_distractor,
    "formatting_carries_meaning": formatting_carries_meaning,
    "ambiguous_identifier": ambiguous_identifier,
    "stale_derived_artifact": stale_derived_artifact,
    "misleading_file_name": misleading_file_name,
}
PATTERNS = tuple(TRANSFORMERS)
