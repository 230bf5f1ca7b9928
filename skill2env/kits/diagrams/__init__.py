"""Kit: diagrams kept as files.

A team's process told in a Markdown runbook (numbered steps, decisions with named branches, change
notes that rename, re-point or drop steps later, another team's process in an appendix) and the
process's existing Excalidraw scene (shapes with bound labels, bound arrows, deleted elements kept in
the file, a linter's report), with traps: decisions told in prose, a three-way decision, a retry loop,
superseding notes, an appendix numbered on from the main steps, deleted arrows and texts, ids shared
by several elements, a stale lint report, a look-alike scene named 'final' → a flowchart of the
process as an Excalidraw scene whose labelled shapes and bound arrows form exactly the process graph,
and a report on the existing scene (dangling arrows, unlabelled shapes, unreachable steps, duplicate ids).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.diagrams.docs import CONVENTIONS, render_world
from skill2env.kits.diagrams.patterns import LINT, PATTERNS, RUNBOOK, TRANSFORMERS
from skill2env.kits.diagrams.world import World, expected_graph, expected_report, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

FLOW = "output/flow.excalidraw"
REPORT = "output/diagram_report.json"
CHECK_SOURCE = (Path(__file__).parent / "diagcheck.py").read_text(encoding="utf-8")


class DiagramsKit(Kit):
    name = "diagrams"
    title = "Diagrams as files"
    formats = ("excalidraw", "mermaid", "json", "markdown")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.DIAGRAMS: 1.5,
        Trait.STRUCTURED_DATA: 0.1,
        Trait.DOCUMENTS: 0.05,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.DIAGRAMS: 0.4}
    """More than a mention of a chart: diagram files (Excalidraw, Mermaid, draw.io, Graphviz, PlantUML)."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.DIAGRAMS: "conditional_branch_on_data",
        Trait.STRUCTURED_DATA: "ambiguous_identifier",
        Trait.DOCUMENTS: "retroactive_correction",
        Trait.VERSION_HISTORY: "stale_derived_artifact",
    }
    starters = (
        "conditional_branch_on_data",
        "retroactive_correction",
        "formatting_carries_meaning",
        "scope_distractor",
        "stale_derived_artifact",
    )
    solver_module = "skill2env.kits.diagrams.solver"
    naive_module = "skill2env.kits.diagrams.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title=f"Draw the {world.process.lower()} flowchart and lint its diagram",
            goal=f"Draw the {world.process.lower()} process as it stands after the runbook's change notes as an "
            "Excalidraw flowchart (labelled shapes, bound arrows, branch labels), and report the defects of the "
            "existing diagram the runbook names.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (FLOW, "excalidraw", "the process as an Excalidraw flowchart of labelled shapes and bound arrows", 0.5),
                (
                    REPORT,
                    "json",
                    "the dangling arrows, unlabelled shapes, unreachable steps and duplicate ids of "
                    "the existing diagram",
                    0.5,
                ),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.process", "the process to draw", InformationLevel.STATED, world.process)
        composition.fact("runbook.steps", "the runbook's numbered steps", found, "Steps", location=RUNBOOK)
        composition.fact("diagram.scene", "the existing Excalidraw scene", found, "elements", location=world.diagram)
        composition.fact("diagram.conventions", "the team's diagram conventions", found, "containerId",
                         location=CONVENTIONS)  # fmt: skip
        composition.fact("lint.report", "the diagram linter's report", found, "unbound-arrow", location=LINT)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""The {world.team} team keeps the {world.process.lower()} process in `{RUNBOOK}` and its
diagram as an Excalidraw scene under `diagrams/` (the runbook names it; `{CONVENTIONS}` has the team's
conventions). No Node, browser or Excalidraw app is installed: the scenes are JSON, work on them with python3.

1. `{FLOW}`: the process that starts at step 1, as it stands after the runbook's change notes, as an
   Excalidraw scene (`{{"type": "excalidraw", "version": 2, "elements": [...]}}`). One shape per step:
   an `ellipse` for the start and each end, a `diamond` for each decision, a `rectangle` for every other
   step, each labelled by one text element bound to it (`containerId`) holding the step's name as the
   runbook writes it. One arrow for each way the work goes from a step to the next, bound at both ends
   (`startBinding` / `endBinding` with the shape's `elementId`, and the arrow listed in both shapes'
   `boundElements`). A decision's arrows carry one bound text with the branch: `yes`, `no`, or the
   case's name as the runbook writes it (lower case); other arrows carry no text. Positions are free;
   element ids must be unique.
2. `{REPORT}`: the defects of the existing diagram the runbook names,
   `{{"dangling_arrows": [...], "unlabeled_shapes": [...], "unreachable": [...], "duplicate_ids": [...]}}`:
   the ids of the arrows not bound at both ends to a shape, the ids of the shapes (rectangle, diamond,
   ellipse) without a bound text, the labels of the labelled shapes that no chain of bound arrows reaches
   from the start shape (the one labelled as the runbook's step 1), and the ids that more than one element
   carries. Deleted elements (`"isDeleted": true`) do not count for anything. When several elements carry
   the id a reference names (a `containerId`, a binding's `elementId`), the reference means the one that
   lists the referring element in its `boundElements`.
"""


def diagcheck(**params: Any) -> CheckSpec:
    return CheckSpec(check="python", params={"source": CHECK_SOURCE, "function": "check", "args": params})


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    def of(*names: str) -> tuple[str, ...]:
        return tuple(p for p in names if p in patterns)

    def facts(*names: str, base: str) -> tuple[str, ...]:
        return (base, *(f for p in of(*names) for f in design.facts_of(p)))

    nodes, edges = expected_graph(world)
    report = expected_report(world)
    flow = ("conditional_branch_on_data", "retroactive_correction", "scope_distractor")
    return [
        Item("flow.nodes", "The flowchart's labelled shapes are exactly the process's steps, each of its kind's shape.",
             FLOW, diagcheck(kind="nodes", path=FLOW, nodes=nodes), nodes, facts(*flow, base="runbook.steps"),
             "Every step reachable from step 1 after the change notes, with its name and kind.", of(*flow)),
        Item("flow.edges", "The flowchart's bound arrows are exactly the process's transitions with branch labels.",
             FLOW, diagcheck(kind="edges", path=FLOW, edges=edges), edges, facts(*flow, base="runbook.steps"),
             "Every step's next steps after the change notes, decisions' branches named.", of(*flow)),
        Item("report.dangling", "The report lists exactly the arrows not bound at both ends.", REPORT,
             checks.json_value(REPORT, "$.dangling_arrows", report["dangling_arrows"], unordered=True),
             report["dangling_arrows"], facts("stale_derived_artifact", "misleading_file_name", base="diagram.scene"),
             "Each live arrow's bindings resolved in the named scene, not the linter's older report.",
             of("stale_derived_artifact", "misleading_file_name")),
        Item("report.unlabeled", "The report lists exactly the shapes without a bound label.", REPORT,
             checks.json_value(REPORT, "$.unlabeled_shapes", report["unlabeled_shapes"], unordered=True),
             report["unlabeled_shapes"], facts("formatting_carries_meaning", "misleading_file_name",
                                               base="diagram.scene"),
             "Each live shape's live bound texts.", of("formatting_carries_meaning", "misleading_file_name")),
        Item("report.unreachable", "The report lists exactly the labelled shapes unreachable from the start.", REPORT,
             checks.json_value(REPORT, "$.unreachable", report["unreachable"], unordered=True),
             report["unreachable"], facts("formatting_carries_meaning", "ambiguous_identifier",
                                          "misleading_file_name", base="diagram.scene"),
             "A walk over the live bound arrows from the start shape, shared ids resolved by boundElements.",
             of("formatting_carries_meaning", "ambiguous_identifier", "misleading_file_name")),
        Item("report.duplicates", "The report lists exactly the ids several live elements carry.", REPORT,
             checks.json_value(REPORT, "$.duplicate_ids", report["duplicate_ids"], unordered=True),
             report["duplicate_ids"], facts("ambiguous_identifier", "misleading_file_name", base="diagram.scene"),
             "The ids of the live elements, counted.", of("ambiguous_identifier", "misleading_file_name")),
    ]  # fmt: skip


KIT = DiagramsKit()
