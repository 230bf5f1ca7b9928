"""Every pattern of the newer kits, one by one and all together: the reference solver earns full credit
at every intensity, a partial solution stays below the pass threshold, the author-side checks pass, at
intensity 3 each pattern alone stops the naive baseline and all together stop it, and no expected result
shows in a workspace. Every kit is registered under its name with its patterns."""

from __future__ import annotations

import pytest
from kit_runs import oracle_and_partial, rollout

from skill2env.kits import KITS
from skill2env.kits.base import FULL_CREDIT
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.checks import check_draft
from skill2env.tasks.draft import TaskDraft

PATTERN_TESTED = ("labdata", "mediadesk", "memory", "research", "webapi", "webfront", "records", "diagrams",
                  "textcodes")  # fmt: skip
NAIVE_KEEPS = {"cross_deliverable_agreement"}
"""Patterns the naive baseline is not meant to fail: a rule about agreement between deliverables,
which a naive list or summary keeps."""


def build(kit_name: str, seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KITS[kit_name].build(seed, SkillRef(skill_id=f"s-{kit_name}", name=kit_name, path=kit_name), "x",
                                patterns)  # fmt: skip


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("kit_name", PATTERN_TESTED)
def test_the_solver_earns_full_credit_with_every_pattern(kit_name: str, seed: int, level: int) -> None:
    draft = build(kit_name, seed, dict.fromkeys(KITS[kit_name].patterns, level))
    (reward, items), partial, log = oracle_and_partial(draft)
    assert reward >= FULL_CREDIT, ([i for i, v in items.items() if v < 1.0], log)
    assert partial < 0.7
    assert check_draft(draft).passed


@pytest.mark.parametrize(("kit_name", "pattern"), [(k, p) for k in PATTERN_TESTED for p in KITS[k].patterns])
def test_each_pattern_alone_is_solved_and_at_intensity_3_beats_the_naive_baseline(kit_name: str, pattern: str) -> None:
    for level in (1, 2, 3):
        (reward, items), _, log = oracle_and_partial(build(kit_name, 5, {pattern: level}))
        assert reward >= FULL_CREDIT, (pattern, level, items, log)
    naive, items, log = rollout(build(kit_name, 5, {pattern: 3}), KITS[kit_name].naive_policy())
    assert "Traceback" not in log, log
    if pattern not in NAIVE_KEEPS:
        assert naive < FULL_CREDIT, (pattern, items)


@pytest.mark.parametrize("kit_name", list(KITS))
def test_the_kit_is_registered_with_its_patterns(kit_name: str) -> None:
    kit = KITS[kit_name]
    assert kit.name == kit_name
    assert len(kit.patterns) >= 7
    assert set(kit.starters) <= set(kit.patterns)
    assert set(kit.tool_patterns.values()) <= set(kit.patterns)


NAIVE_TESTED = {"diagrams": (2, 3), "gitforensics": (3,), "labdata": (2, 3), "memory": (2, 3), "records": (2, 3),
                "research": (1, 2, 3), "sqldrift": (2, 3), "textcodes": (2, 3), "webfront": (2, 3)}  # fmt: skip
"""Kits whose every pattern together stops the naive baseline, at these intensities (the media desk's
does only when the world has tags: its own test)."""


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("kit_name", "level"), [(k, v) for k, levels in NAIVE_TESTED.items() for v in levels])
def test_the_naive_baseline_stays_below_full_credit_with_every_pattern_on(kit_name: str, level: int, seed: int) -> None:
    kit = KITS[kit_name]
    reward, _, log = rollout(build(kit_name, seed, dict.fromkeys(kit.patterns, level)), kit.naive_policy())
    assert "Traceback" not in log, log
    assert reward < FULL_CREDIT


@pytest.mark.parametrize("kit_name", PATTERN_TESTED)
def test_no_expected_result_is_readable_in_the_workspace_and_the_files_repeat(kit_name: str) -> None:
    patterns = dict.fromkeys(KITS[kit_name].patterns, 3)
    for seed in (0, 1, 2):
        assert check_draft(build(kit_name, seed, patterns)).leak.leaked == 0
    assert build(kit_name, 9, patterns).workspace == build(kit_name, 9, patterns).workspace
