"""Every kit builds valid, deterministic, leak-free tasks at every intensity (no scripts run here)."""

from __future__ import annotations

import dataclasses
import tempfile
from functools import cache
from pathlib import Path

import pytest
from kit_runs import materialize, score

from skill2env.kits import KITS, KitError
from skill2env.kits.base import haystack, value_text
from skill2env.kits.hardening import items_by_pattern
from skill2env.patterns.models import InformationLevel
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.blueprint import Blueprint, SkillRef
from skill2env.tasks.checks import CheckReport, Severity, check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.normalize import find, needle

SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")
REQUIRED_FORMATS = {"csv", "json", "markdown", "html", "xlsx", "docx", "pdf", "pdf-scanned", "log"}
ARCHIVES = {"gzip", "tar.gz", "zip"}
SEEDS = (0, 1)


def every_pattern(kit_name: str, level: int) -> dict[str, int]:
    return dict.fromkeys(KITS[kit_name].patterns, level)


FEWER_PATTERNS = {
    "gitforensics": 7,
    "mediadesk": 8,
    "memory": 9,
    "webapi": 9,
    "webfront": 7,
    "records": 8,
    "diagrams": 7,
    "textcodes": 7,
}
"""Kits that implement fewer than ten pool patterns so far, with how many they implement."""


@cache
def built(kit_name: str, level: int, seed: int) -> tuple[TaskDraft, CheckReport]:
    """A draft with every pattern of the kit at `level`, and its author-side check report."""
    draft = KITS[kit_name].build(seed, SKILL, "office-documents", every_pattern(kit_name, level))
    return draft, check_draft(draft)


def test_registry_has_sixteen_kits_of_at_least_ten_pool_patterns_or_as_listed() -> None:
    pool = seed_pool()
    assert set(KITS) == {
        "billing", "cleanroom", "incident", "configaudit", "sqldrift", "coderepair", "research", "gitforensics",
        "labdata", "mediadesk", "memory", "webapi", "webfront", "records", "diagrams",
        "textcodes",
    }  # fmt: skip
    for kit in KITS.values():
        assert len(kit.patterns) >= FEWER_PATTERNS.get(kit.name, 10), kit.name
        assert set(kit.patterns) <= set(pool.patterns), kit.name
        assert set(kit.starters) <= set(kit.patterns)
        assert set(kit.tool_patterns.values()) <= set(kit.patterns)


def test_kits_cover_the_required_formats() -> None:
    formats = {f for kit in KITS.values() for f in kit.formats}
    assert formats >= REQUIRED_FORMATS
    assert formats & ARCHIVES == ARCHIVES


@pytest.mark.parametrize("kit_name", sorted(KITS))
@pytest.mark.parametrize("level", [1, 2, 3])
def test_builds_are_valid_deterministic_and_pass_the_author_checks(kit_name: str, level: int) -> None:
    kit = KITS[kit_name]
    for seed in SEEDS:
        draft, report = built(kit_name, level, seed)
        again = kit.build(seed, SKILL, "office-documents", every_pattern(kit_name, level))
        assert again.workspace == draft.workspace
        assert again.blueprint == draft.blueprint
        assert again.instruction == draft.instruction
        Blueprint.model_validate(draft.blueprint.model_dump())
        assert {c.pattern_id: c.intensity for c in draft.blueprint.challenges} == every_pattern(kit_name, level)
        assert report.passed, report.reasons
        assert not [f for f in report.findings if f.severity == Severity.error]
        assert draft.author == f"offline:{kit_name}"
        assert SKILL.mount in draft.instruction and SKILL.name in draft.instruction
        assert draft.solve_sh.startswith("#!/usr/bin/env bash")


@pytest.mark.parametrize("kit_name", sorted(KITS))
@pytest.mark.parametrize("level", [1, 2, 3])
def test_no_author_only_value_leaks_into_instruction_or_workspace(kit_name: str, level: int) -> None:
    """The author-side leak check on the files as an agent reads them, and a stricter one on the text
    every file shows including what OCR reads off the scans."""
    kit = KITS[kit_name]
    for seed in SEEDS:
        patterns = every_pattern(kit_name, level)
        draft, report = built(kit_name, level, seed)
        leak = report.leak
        assert leak.leaked == 0, [f.message for f in leak.findings if f.code == "leaked"]
        assert leak.checked > 0
        composition = kit.compose(seed, patterns, 0)
        hay = haystack(composition)
        hidden = draft.blueprint.facts_at(InformationLevel.AUTHOR_ONLY)
        assert hidden
        for fact in hidden:
            assert not find(needle(fact.value), hay), f"{fact.id} = {fact.value!r} readable in the workspace"
        assert all(value_text(item) for item in composition.items)


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_every_challenge_is_checked_by_a_rubric_item(kit_name: str) -> None:
    for level in (1, 2, 3):
        for seed in SEEDS:
            draft, _ = built(kit_name, level, seed)
            linked = items_by_pattern(draft.blueprint)
            unlinked = sorted(p for p, items in linked.items() if not items)
            assert not unlinked, f"{kit_name} L{level} seed {seed}: no rubric item checks {unlinked}"


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_the_untouched_workspace_scores_at_most_a_tenth(kit_name: str) -> None:
    kit = KITS[kit_name]
    for level in (1, 3):
        draft = kit.build(7, SKILL, "x", every_pattern(kit_name, level))
        with tempfile.TemporaryDirectory() as tmp:
            reward, _ = score(draft.blueprint.rubric, materialize(draft, Path(tmp)))
        assert reward <= 0.1


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_first_deliverable_alone_is_worth_less_than_the_pass_threshold(kit_name: str) -> None:
    draft = KITS[kit_name].build(3, SKILL, "x", every_pattern(kit_name, 2))
    rubric = draft.blueprint.rubric
    first = draft.blueprint.deliverables[0].path
    assert sum(item.weight for item in rubric.items if item.target_files == [first]) < rubric.pass_threshold
    assert abs(sum(item.weight for item in rubric.items) - 1.0) < 1e-6


def test_same_seed_with_a_new_pattern_keeps_the_base_world() -> None:
    kit = KITS["cleanroom"]
    base = kit.build(4, SKILL, "x", {"scope_distractor": 1})
    more = kit.build(4, SKILL, "x", {"scope_distractor": 1, "sentinel_missing_values": 1})
    assert base.blueprint.goal == more.blueprint.goal
    assert base.workspace["fx_rates.csv"] == more.workspace["fx_rates.csv"]


def test_unknown_or_conflicting_patterns_are_refused() -> None:
    kit = KITS["billing"]
    with pytest.raises(KitError, match="does not implement"):
        kit.build(0, SKILL, "x", {"resource_budget": 1})
    with pytest.raises(KitError, match="intensity"):
        kit.build(0, SKILL, "x", {"scope_distractor": 4})
    with pytest.raises(KitError, match="at least one pattern"):
        kit.build(0, SKILL, "x", {})


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_a_kit_made_to_leak_is_caught(kit_name: str) -> None:
    draft, report = built(kit_name, 2, SEEDS[0])
    assert report.leak.leaked == 0
    hidden = draft.blueprint.facts_at(InformationLevel.AUTHOR_ONLY)
    secret = next(f for f in hidden if (isinstance(f.value, int | float) and abs(f.value) >= 100) or (
        isinstance(f.value, str) and len(f.value) >= 6))  # fmt: skip
    leaky = dataclasses.replace(
        draft, workspace={**draft.workspace, "NOTES-leak.md": f"answer: {secret.value}\n".encode()}
    )
    leaked = check_draft(leaky)
    assert leaked.leak.leaked > 0 and not leaked.passed
    assert any(f.code == "leaked" for f in leaked.findings)
