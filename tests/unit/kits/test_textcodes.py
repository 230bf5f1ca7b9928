"""The text-coding kit: its solver earns full credit at every intensity, the naive baseline (which
codes with the cue export, whole files, every text file of the folder) does not once the traps are
harmful, the expected codes follow the world's planted mentions (excluded cues never count), no
expected result shows in the workspace, and an output that is almost right loses credit."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.textcodes import CODES, KIT, SUMMARY
from skill2env.kits.textcodes.docs import text_file
from skill2env.kits.textcodes.world import BODY, DUP, NEGATED, SCHEMES, World, counted, expected_codes
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-textcodes", name="manipulation-detector", path="manipulation-detector")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "text-analysis", patterns)


def solved(draft: TaskDraft, root: Path) -> None:
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)


def test_the_kit_is_registered_with_seven_patterns() -> None:
    assert KITS["textcodes"] is KIT
    assert len(KIT.patterns) >= 7
    assert set(KIT.starters) <= set(KIT.patterns)


def test_no_cue_phrase_hides_in_the_words_around_the_mentions() -> None:
    for scheme in SCHEMES:
        cues = [cue for _, _, phrases in scheme.codes for cue in phrases]
        around = [*scheme.fillers, *scheme.subjects, *scheme.people, *scheme.orgs, *BODY, NEGATED]
        for cue in cues:
            found = re.compile(r"(?<![a-z0-9])" + re.escape(cue) + r"(?![a-z0-9])")
            assert not [text for text in around if found.search(text.lower().replace("{cue}", ""))], cue
            assert sum(cue in other for other in cues) == 1, cue


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    rewards = []
    for seed in range(8):
        reward, _, log = rollout(build(seed, {"footnote_qualification": 1}), KIT.naive_policy())
        assert "Traceback" not in log, log
        rewards.append(reward)
    assert max(rewards) >= FULL_CREDIT and min(rewards) < FULL_CREDIT


def test_no_expected_result_is_readable_and_the_same_seed_gives_the_same_files() -> None:
    for seed in (0, 1, 2):
        draft = build(seed, dict.fromkeys(KIT.patterns, 3))
        assert check_draft(draft).leak.leaked == 0
    patterns = dict.fromkeys(KIT.patterns, 2)
    assert build(7, patterns).workspace == build(7, patterns).workspace


def _world(seed: int, level: int) -> World:
    world, _ = KIT.world(seed, dict.fromkeys(KIT.patterns, level))
    return world


def test_the_expected_codes_follow_the_planted_mentions_not_the_text() -> None:
    for seed in range(6):
        world = _world(seed, 3)
        codes = expected_codes(world)
        assert set(codes) == {d.id for d in world.in_scope()}
        for doc in world.in_scope():
            if doc.duplicate_of:
                assert codes[doc.id] == [DUP]
                continue
            body = {m.code for m in doc.mentions if m.where == "body" and m.cue in world.current_cues(m.code)}
            assert set(codes[doc.id]) <= body
            excluded = {m.code for m in doc.mentions if m.where != "body"} - body
            assert not excluded & set(codes[doc.id])
            assert counted(world, doc) == codes[doc.id]
        retired = [(code, cue) for code, cue in world.retired_cues.items()]
        for code, cue in retired:
            users = [d for d in world.in_scope() if any(m.cue == cue for m in d.mentions) and not d.duplicate_of]
            assert users and any(code not in codes[d.id] for d in users)


def test_a_document_renders_its_excluded_cues_outside_its_own_words() -> None:
    world = _world(3, 3)
    doc = next(d for d in world.in_scope() if any(m.where == "quote" for m in d.mentions))
    text = text_file(world, doc)
    quoted = next(m for m in doc.mentions if m.where == "quote")
    line = next(ln for ln in text.splitlines() if quoted.cue in ln.lower())
    assert line.startswith("> ")


def test_an_output_almost_right_loses_credit() -> None:
    patterns = dict.fromkeys(KIT.patterns, 3)
    draft = build(4, patterns)
    with tempfile.TemporaryDirectory() as tmp:
        root = materialize(draft, Path(tmp))
        solved(draft, root)
        reward, _ = score(draft.blueprint.rubric, root)
        assert reward >= FULL_CREDIT
        codes = json.loads((root / CODES).read_text())
        summary = json.loads((root / SUMMARY).read_text())
        first = next(iter(codes))
        (root / CODES).write_text(json.dumps({**codes, first: [*codes[first], "XYZ"]}))
        _, items = score(draft.blueprint.rubric, root)
        assert items["codes.map"] == 0.0 and items["summary.counts"] == 1.0
        (root / CODES).write_text(json.dumps({k: v for k, v in codes.items() if k != first}))
        _, items = score(draft.blueprint.rubric, root)
        assert items["codes.map"] == 0.0
        doc = next(iter(summary["scores"]))
        summary["scores"][doc] += 1
        (root / SUMMARY).write_text(json.dumps(summary))
        _, items = score(draft.blueprint.rubric, root)
        assert items["summary.scores"] == 0.0 and items["summary.bands"] == 1.0


def _skill(name: str, text: str) -> dict[str, object]:
    return {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "productivity", "name": name,
            "description": text, "skill_md_text": text, "languages": [], "programs": [], "cli_tools": [],
            "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip


def test_a_text_coding_skill_is_served_by_the_kit() -> None:
    coder = _skill(
        "persuasion-audit",
        "Analyze messages for manipulation tactics: false urgency, scarcity, social proof and emotional pressure. "
        "Score each message with the scoring formula and list red flags.",
    )
    assert kit_matches(SkillProfile.from_row(coder), KITS)[0].kit == "textcodes"


def test_a_skill_that_only_mentions_a_rubric_is_not_served() -> None:
    grader = _skill(
        "release-checklist",
        "Check a release against the team rubric before tagging it: tests pass, the changelog is updated and "
        "the version is bumped.",
    )
    match = next(m for m in kit_matches(SkillProfile.from_row(grader), KITS) if m.kit == "textcodes")
    assert match.score == 0.0
