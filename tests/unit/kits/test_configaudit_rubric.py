"""The configuration-audit rubric credits an empty finding category only beside the real audit: a
findings file holding only its header, or a report stuffed with the workspace's text, earns nothing."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from kit_runs import materialize, score

from skill2env.kits import KITS
from skill2env.kits.configaudit import FINDINGS, REPORT, SUMMARY
from skill2env.rubric.models import Rubric
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.draft import TaskDraft
from skill2env.validation.hack_probes.content import example_values, keyword_stuffing, skeleton_deliverables
from skill2env.validation.hack_probes.instruction import read_view

SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")
KIT = KITS["configaudit"]
SEEDS = (0, 1, 2)
NOP_AT_MOST = 0.1


def every_pattern(level: int) -> dict[str, int]:
    return dict.fromkeys(KIT.patterns, level)


def true_rows(rubric: Rubric) -> list[list[object]]:
    item = next(i for i in rubric.items if i.id == "findings.all")
    assert item.check is not None
    return [list(row) for row in item.check.params["expected"]["rows"]]


def findings_csv(rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rule", "file", "line", "detail"])
    writer.writerows([[*row, "found"] for row in rows])
    return out.getvalue()


def scored(draft: TaskDraft, write: Callable[[Path], None]) -> tuple[float, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = materialize(draft, Path(tmp))
        write(workspace)
        return score(draft.blueprint.rubric, workspace)


def put(workspace: Path, relative: str, text: str) -> None:
    path = workspace / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("strategy", [skeleton_deliverables, example_values, keyword_stuffing])
def test_instruction_derived_fakes_earn_at_most_the_nop_bound(level: int, strategy: Callable[..., None]) -> None:
    for seed in SEEDS:
        draft = KIT.build(seed, SKILL, "office-documents", every_pattern(level))

        def fake(workspace: Path, draft: TaskDraft = draft) -> None:
            strategy(workspace, read_view(draft.instruction, workspace, "/workspace"))

        reward, items = scored(draft, fake)
        assert reward <= NOP_AT_MOST, (seed, reward, sorted(i for i, v in items.items() if v))


@pytest.mark.parametrize("level", [1, 3])
def test_a_guessed_count_and_every_rule_id_beside_a_header_only_file_earn_nothing(level: int) -> None:
    draft = KIT.build(0, SKILL, "x", every_pattern(level))
    total = len(true_rows(draft.blueprint.rubric))
    policy = draft.workspace["docs/policy.html"].decode()

    def guessed(workspace: Path) -> None:
        put(workspace, FINDINGS, findings_csv([]))
        put(workspace, SUMMARY, json.dumps({"findings": total, "by_rule": {}, "exceptions_applied": []}))
        labels = "".join(f"Findings: {n}\n" for n in range(100))
        put(workspace, REPORT, labels + " ".join(f"R{n}" for n in range(1, 8)) + "\n" + policy)

    reward, items = scored(draft, guessed)
    assert reward == 0.0, sorted(i for i, v in items.items() if v)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_an_empty_category_is_credited_beside_the_true_findings_and_lost_to_a_false_one(level: int) -> None:
    draft = KIT.build(1, SKILL, "x", every_pattern(level))
    rubric = draft.blueprint.rubric
    rows = true_rows(rubric)
    nones = [i for i in rubric.items if i.id.endswith(".none")]
    assert nones
    _, items = scored(draft, lambda ws: put(ws, FINDINGS, findings_csv(rows)))
    assert all(items[i.id] == 1.0 for i in nones)
    _, short = scored(draft, lambda ws: put(ws, FINDINGS, findings_csv(rows[1:])))
    for item in nones:
        assert item.check is not None
        args = item.check.params["args"]
        assert short[item.id] == (0.0 if rows[0] in args["present"] else 1.0), item.id
        rule, file = args["absent"][0]
        decoy = [rule, file if file != "*" else ".github/workflows/build.yml", 1]
        _, items = scored(draft, lambda ws, decoy=decoy: put(ws, FINDINGS, findings_csv([*rows, decoy])))
        assert items[item.id] == 0.0, (item.id, decoy)
