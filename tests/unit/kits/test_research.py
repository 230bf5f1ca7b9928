"""The research kit: its solver earns full credit at every intensity, the naive baseline does not once
the traps are harmful, no expected answer shows in the workspace, and a summary that cites a key the
bibliography lacks or a retracted study loses credit."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.research import KIT, REFERENCES, SUMMARY
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-lit", name="literature-review", path="literature-review")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "research", patterns)


def test_the_kit_is_registered() -> None:
    assert KITS["research"] is KIT
    assert len(KIT.patterns) >= 10


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    reward, items, log = rollout(build(3, {"cross_deliverable_agreement": 1}), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_no_expected_answer_is_readable_in_the_workspace() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0


def _solved(draft: TaskDraft, root: Path) -> None:
    import os
    import subprocess

    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)


def test_citing_a_key_outside_the_bibliography_or_a_retracted_study_loses_credit() -> None:
    patterns = {"claim_without_receipt": 3, "cross_deliverable_agreement": 2}
    draft = build(4, patterns)
    world, _ = KIT.world(4, patterns)
    retracted = sorted(world.retracted)[0]
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        _solved(draft, root)
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward >= FULL_CREDIT
        summary = (root / SUMMARY).read_text()
        first = re.search(r"\[@([\w:-]+)\]", summary)
        assert first
        (root / SUMMARY).write_text(summary.replace(f"[@{first.group(1)}]", "[@nosuchkey2020]", 1))
        _, items = score(draft.blueprint.rubric, root)
        assert items["summary.citations"] == 0.0 and items["summary.q1"] == 0.0
        assert items["references.agree"] == 0.0
        (root / SUMMARY).write_text(summary.replace("## Q2\n", f"## Q2\n\nSee also [@{retracted}].\n", 1))
        references = json.loads((root / REFERENCES).read_text())
        references["references"].append({"key": retracted, "doi": "", "title": ""})
        (root / REFERENCES).write_text(json.dumps(references))
        reward, items = score(draft.blueprint.rubric, root)
        assert items["summary.citations"] == 0.0 and items["references.excluded"] == 0.0
        assert items["references.keys"] == 0.0 and reward < 0.7


def test_a_duplicate_key_in_the_reference_list_loses_the_merge() -> None:
    patterns = {"ambiguous_identifier": 3}
    draft = build(2, patterns)
    world, _ = KIT.world(2, patterns)
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        _solved(draft, root)
        references = json.loads((root / REFERENCES).read_text())
        _, second = world.duplicates[0]
        references["references"].append({"key": second, "doi": "", "title": ""})
        (root / REFERENCES).write_text(json.dumps(references))
        _, items = score(draft.blueprint.rubric, root)
        assert items["references.keys"] == 0.0


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "research", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_research_writing_skill_is_served_by_the_kit() -> None:
    review = _skill(
        "literature-review",
        "Search PubMed and arXiv for papers, screen them for a systematic review, extract evidence and write a "
        "summary with citations and a BibTeX bibliography; check every DOI and drop retracted papers.",
    )
    assert kit_matches(SkillProfile.from_row(review), KITS)[0].kit == "research"
