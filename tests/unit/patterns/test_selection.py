"""Per-skill selection: compatibility, conflicts, capability coverage, determinism, rationale."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from skill2env.patterns.models import Capability, Trait
from skill2env.patterns.pool import build_pool, seed_pool
from skill2env.patterns.selection import (
    ScoredPattern,
    SelectionPolicy,
    SelectionStatus,
    _best_index,
    select_patterns,
)
from skill2env.patterns.traits import SkillProfile, cue_words, skill_traits

DOCUMENT_SKILL = SkillProfile(
    skill_id="doc-1",
    path="team/pdf-extract",
    domain="office-documents",
    name="pdf-extract",
    text="Extract tables and text from PDF and DOCX documents; OCR scanned pages with tesseract; "
    "write a report of the invoice totals per contract.",
    programs=frozenset({"pdftotext", "tesseract"}),
    dependencies=frozenset({"pypdf", "pdfplumber", "python-docx"}),
    extensions=frozenset({"pdf", "docx", "py", "md"}),
    file_kinds=frozenset({"script", "skill_md"}),
)
CODE_SKILL = SkillProfile(
    skill_id="code-1",
    path="team/refactor-helper",
    domain="software-engineering",
    name="refactor-helper",
    text="Refactor a repository safely: run the unit test suite, read the git history and the changelog, "
    "open a pull request after lint and build pass.",
    languages=frozenset({"typescript", "python"}),
    programs=frozenset({"git", "npm", "make"}),
    dependencies=frozenset({"pytest", "eslint", "typescript"}),
    extensions=frozenset({"ts", "json", "yml"}),
    file_kinds=frozenset({"script", "config"}),
)


def test_traits_come_with_the_cues_that_showed_them() -> None:
    traits = skill_traits(DOCUMENT_SKILL)
    assert Trait.DOCUMENTS in traits and Trait.SCANNED_MEDIA in traits
    assert any("tesseract" in cue for cue in traits[Trait.SCANNED_MEDIA].cues)
    assert Trait.CODE_REPOSITORY not in traits


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("keep a to-do list", {"to-do", "to-do list"}),
        ("an auto-do step, then a to-do", {"to-do"}),  # its first occurrence is inside a word
        ("an auto-do step", set()),
        ("my_to-do and todo_list", set()),
        ("build it with next.js", {"next.js"}),
        ("next.jsx only", set()),
    ],
)
def test_a_cue_phrase_counts_only_between_word_boundaries(text: str, found: set[str]) -> None:
    words = set(cue_words(text))
    assert {w for w in words if not w.isalnum()} == found


def test_a_document_skill_and_a_code_skill_get_different_patterns() -> None:
    pool = seed_pool()
    documents = {c.pattern_id for c in select_patterns(DOCUMENT_SKILL, pool).choices}
    code = {c.pattern_id for c in select_patterns(CODE_SKILL, pool).choices}
    assert len(documents) >= 3 and len(code) >= 3
    assert len(documents & code) <= 1, (documents, code)


def test_selection_covers_several_capabilities_within_the_policy() -> None:
    selection = select_patterns(DOCUMENT_SKILL, seed_pool(), SelectionPolicy(min_patterns=3, max_patterns=5))
    assert selection.status == SelectionStatus.selected
    assert 3 <= len(selection.choices) <= 5
    assert len({c.capability for c in selection.choices}) >= 3


def test_every_choice_is_compatible_and_explained() -> None:
    pool = seed_pool()
    selection = select_patterns(CODE_SKILL, pool)
    for choice in selection.choices:
        assert set(pool[choice.pattern_id].traits) <= set(selection.traits)
        assert choice.rationale.startswith(choice.capability)


def test_selection_is_deterministic() -> None:
    pool = seed_pool()
    assert select_patterns(CODE_SKILL, pool) == select_patterns(CODE_SKILL, pool)


def test_conflicting_patterns_are_never_chosen_together() -> None:
    pool = seed_pool()
    first = select_patterns(DOCUMENT_SKILL, pool).choices
    a, b = first[0].pattern_id, first[1].pattern_id
    # Declare the two best patterns in conflict: the selection must drop the second.
    patched = pool.with_pattern(pool[a].model_copy(update={"conflicts": [b]}), pool.sources[a])
    chosen = [c.pattern_id for c in select_patterns(DOCUMENT_SKILL, patched).choices]
    assert a in chosen and b not in chosen


def test_a_skill_with_no_compatible_pattern_gets_a_reason() -> None:
    pool = seed_pool()
    demanding = [p.model_copy(update={"traits": [Trait.SCANNED_MEDIA]}) for p in pool if p.capability == "planning"]
    narrow = build_pool([(p, "test") for p in demanding])
    selection = select_patterns(CODE_SKILL, narrow)
    assert selection.status == SelectionStatus.no_compatible_pattern
    assert selection.choices == ()
    assert "scanned_media" in (selection.reason or "")


def test_too_few_patterns_are_kept_and_flagged() -> None:
    pool = seed_pool()
    two = build_pool([(p, "test") for p in list(pool.of(Capability.PLANNING))[:2]])
    selection = select_patterns(replace(CODE_SKILL, skill_id="other"), two, SelectionPolicy(min_patterns=3))
    assert selection.status == SelectionStatus.too_few and len(selection.choices) == 2


def test_policy_bounds_are_validated() -> None:
    with pytest.raises(ValueError, match="min_patterns"):
        SelectionPolicy(min_patterns=4, max_patterns=2)


@pytest.mark.parametrize("bonus", [1.0, 0.0, 0.25, -0.5])
def test_each_greedy_step_picks_what_an_exhaustive_search_picks(bonus: float) -> None:
    """The rule stated plainly: every remaining candidate's score, plus the bonus where its capability
    is new; the earliest of the best (the candidates are sorted best first, ties by id)."""
    shuffler = random.Random(7)
    capabilities = [c.value for c in Capability]
    for _ in range(800):
        patterns = shuffler.sample(list(seed_pool()), 20)
        # few distinct scores: ties across and within capabilities are common
        candidates = [ScoredPattern(p, shuffler.choice([1.0, 1.25, 1.5, 2.0, 2.25]), (), ()) for p in patterns]
        remaining = sorted(candidates, key=lambda s: (-s.score, s.pattern.id))
        covered = set(shuffler.sample(capabilities, shuffler.randint(0, len(capabilities))))
        values = [s.score + (0.0 if s.pattern.capability in covered else bonus) for s in remaining]

        assert _best_index(remaining, covered, bonus) == values.index(max(values))
