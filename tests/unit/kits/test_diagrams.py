"""The diagrams kit: its solver earns full credit at every intensity, the naive baseline does not once
the traps are harmful, no expected result shows in the workspace, a flowchart drawn almost right loses
credit while its coordinates never matter, a hostile scene fails its item without breaking the check,
and only skills that keep diagrams as files are served."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.diagrams import FLOW, KIT, REPORT
from skill2env.kits.diagrams.world import expected_dangling, expected_graph, expected_report
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-diagrams", name="excalidraw-flowchart", path="excalidraw-flowchart")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "media-processing", patterns)


def solved(draft: TaskDraft, root: Path) -> Path:
    materialize(draft, root)
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)
    return root


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    patterns = {"scope_distractor": 1, "stale_derived_artifact": 1}
    seed = next(s for s in range(40) if not KIT.world(s, patterns)[0].harmful)
    reward, items, log = rollout(build(seed, patterns), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_the_expected_flowchart_follows_the_change_notes_and_leaves_the_appendix_out() -> None:
    patterns = {"retroactive_correction": 3, "scope_distractor": 3, "conditional_branch_on_data": 3}
    world, _ = KIT.world(4, patterns)
    nodes, edges = expected_graph(world)
    written = {s.label for s in world.steps if not s.appendix}
    renamed = next(n for n in world.notes if n.kind == "relabel")
    dropped = next(n for n in world.notes if n.kind == "drop")
    assert renamed.label in nodes and renamed.old not in nodes
    assert world.step(dropped.step).label not in nodes
    assert not {s.label for s in world.steps if s.appendix} - written & set(nodes)
    assert {e[2] for e in edges} >= {"yes", "no", *world.theme["DC"][1]}
    assert sorted(nodes.values()).count("diamond") == 4  # two marked, a three-way case, a retry loop
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(build(4, patterns), Path(tmp))
        assert score(build(4, patterns).blueprint.rubric, root)[0] >= FULL_CREDIT


def test_the_expected_report_follows_the_scene_not_the_linter_or_a_look_alike() -> None:
    patterns = dict.fromkeys(
        ("stale_derived_artifact", "misleading_file_name", "formatting_carries_meaning", "ambiguous_identifier"), 3
    )
    world, _ = KIT.world(5, patterns)
    report = expected_report(world)
    assert world.lint_dangling != expected_dangling(world.scene) and len(report["dangling_arrows"]) == 2
    assert world.decoy is not None and "final" in world.decoy.path
    assert len(report["duplicate_ids"]) >= 3  # the pasted note, a shape's twin, an arrow's twin
    assert "Parking lot" in report["unreachable"] and "Old manual check" not in report["unreachable"]
    with tempfile.TemporaryDirectory() as tmp:
        written = json.loads((solved(build(5, patterns), Path(tmp)) / REPORT).read_text())
        assert written == report


def _scene(root: Path) -> dict[str, object]:
    return json.loads((root / FLOW).read_text())


def test_a_flowchart_drawn_almost_right_loses_credit_and_coordinates_never_matter() -> None:
    draft = build(6, {"conditional_branch_on_data": 2, "retroactive_correction": 2})
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        fixed = (root / FLOW).read_text()
        scene = _scene(root)
        for n, element in enumerate(scene["elements"]):  # type: ignore[attr-defined]
            element["x"], element["y"] = 7 * n, -3 * n
        (root / FLOW).write_text(json.dumps(scene))
        assert score(draft.blueprint.rubric, root)[0] >= FULL_CREDIT
        scene = json.loads(fixed)
        branch = next(e for e in scene["elements"] if e["type"] == "text" and e["text"] == "no")
        branch["text"] = "otherwise"
        (root / FLOW).write_text(json.dumps(scene))
        items = score(draft.blueprint.rubric, root)[1]
        assert items["flow.edges"] == 0.0 and items["flow.nodes"] == 1.0
        scene = json.loads(fixed)
        arrow = next(e for e in scene["elements"] if e["type"] == "arrow")
        start = next(e for e in scene["elements"] if e["id"] == arrow["startBinding"]["elementId"])
        start["boundElements"] = [b for b in start["boundElements"] if b["id"] != arrow["id"]]
        (root / FLOW).write_text(json.dumps(scene))
        assert score(draft.blueprint.rubric, root)[1]["flow.edges"] == 0.0
        scene = json.loads(fixed)
        diamond = next(e for e in scene["elements"] if e["type"] == "diamond")
        diamond["type"] = "rectangle"
        (root / FLOW).write_text(json.dumps(scene))
        assert score(draft.blueprint.rubric, root)[1]["flow.nodes"] == 0.0
        scene = json.loads(fixed)
        scene["elements"].append({**diamond, "isDeleted": True, "id": "gone"})
        (root / FLOW).write_text(json.dumps(scene))
        assert score(draft.blueprint.rubric, root)[0] >= FULL_CREDIT  # a deleted element does not count


def test_hostile_deliverables_fail_their_items_without_breaking_the_check() -> None:
    draft = build(7, dict.fromkeys(KIT.patterns, 1))
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        for hostile in (b"\xff\xfe{" + b"[" * 200_000, b'{"elements": [1, "x", null]}', b"[]", b"x" * (5 << 20)):
            (root / FLOW).write_bytes(hostile)
            items = score(draft.blueprint.rubric, root)[1]
            assert items["flow.nodes"] == 0.0 and items["flow.edges"] == 0.0
        (root / FLOW).unlink()
        (root / FLOW).symlink_to(root / "diagrams" / "lint-report.json")
        items = score(draft.blueprint.rubric, root)[1]
        assert items["flow.nodes"] == 0.0 and items["report.dangling"] == 1.0


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "media", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_skill_that_keeps_diagrams_as_files_is_served_by_the_kit() -> None:
    excalidraw = _skill("excalidraw", "Generate flowcharts and flow diagrams as Excalidraw JSON: diamond decisions, "
                        "bound arrows; save the diagram to a .excalidraw file.")  # fmt: skip
    assert kit_matches(SkillProfile.from_row(excalidraw), KITS)[0].kit == "diagrams"
    mermaid = _skill("mermaid", "Render charts from sources.", extensions=["mmd"], programs=["mmdc"])
    assert kit_matches(SkillProfile.from_row(mermaid), KITS)[0].kit == "diagrams"


def test_a_skill_that_only_mentions_a_diagram_is_not_served() -> None:
    skill = _skill("slides", "Write a slide deck; add a diagram where it helps and export the deck to PDF.")
    match = next(m for m in kit_matches(SkillProfile.from_row(skill), KITS) if m.kit == "diagrams")
    assert match.score == 0.0 and "the kit needs" in match.reason
