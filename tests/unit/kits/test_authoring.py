"""Matching curated skills to kits and authoring their iteration-0 tasks offline."""

from __future__ import annotations

from typing import Any

import pytest

from skill2env.kits import KITS, KitPlan, OfflineAuthor, author_offline, kit_matches, plan_offline
from skill2env.patterns.traits import SkillProfile
from skill2env.tasks.authoring import Author, Rejection
from skill2env.tasks.draft import TaskDraft


def skill(name: str, text: str, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "skill_id": f"sk-{name}",
        "path": f"skills/{name}",
        "domain": "test",
        "name": name,
        "description": text,
        "skill_md_text": text,
        "languages": ["python"],
        "programs": [],
        "cli_tools": [],
        "dependency_names": [],
        "extensions": [],
        "file_kinds": [],
    }
    return row | fields


DOCLING = skill(
    "docling",
    "Convert PDF and DOCX documents, OCR scanned receipts and invoices into tables.",
    programs=["tesseract", "pdftotext"],
    dependency_names=["docling", "pypdf"],
    extensions=["pdf", "docx"],
)
LOGS = skill(
    "log-detective",
    "Search service logs and traces during an incident; zgrep rotated logs, build a timeline.",
    programs=["journalctl", "zgrep"],
    extensions=["log"],
)
TABLES = skill(
    "csv-cleaner",
    "Clean messy CSV and XLSX exports with pandas into a tidy spreadsheet.",
    dependency_names=["pandas", "openpyxl"],
    extensions=["csv", "xlsx"],
)
CONFIG = skill(
    "policy-linter",
    "Lint YAML and TOML configuration, kubernetes manifests and CI workflow settings against a policy.",
    programs=["kubectl", "yq"],
    extensions=["yaml", "toml"],
)
MOBILE_UI = skill(
    "swiftui-motion",
    "Design springy SwiftUI animations and gestures for an iPhone app's onboarding screens.",
    languages=["swift"],
    extensions=["swift"],
)
NUMPY_ONLY = skill(
    "array-tricks",
    "Vectorise loops with numpy and scipy; calculate statistics, sum and average arrays.",
    dependency_names=["numpy", "scipy"],
    extensions=["py"],
)


def rows(*pattern_ids: str) -> list[dict[str, Any]]:
    return [{"pattern_id": p, "rank": rank, "status": "selected"} for rank, p in enumerate(pattern_ids, start=1)]


@pytest.mark.parametrize(
    ("row", "kit"), [(DOCLING, "billing"), (LOGS, "incident"), (TABLES, "cleanroom"), (CONFIG, "configaudit")]
)
def test_skills_match_the_kit_of_their_kind(row: dict[str, Any], kit: str) -> None:
    best = kit_matches(SkillProfile.from_row(row), KITS)[0]
    assert best.kit == kit
    assert best.score > 0.5
    assert best.reason


def test_a_skill_no_kit_serves_is_rejected_with_the_reason() -> None:
    outcome = author_offline(MOBILE_UI, rows("scope_distractor"))
    assert isinstance(outcome, Rejection)
    assert "no world kit fits" in outcome.reason


def test_side_traits_alone_never_make_a_match() -> None:
    """numpy and arithmetic words are side traits of the billing kit (its world is money documents):
    however they add up, without a lead trait the kit does not serve the skill, and says so."""
    billing = KITS["billing"].matches(SkillProfile.from_row(NUMPY_ONLY))
    assert billing.score == 0.0
    assert "finance 0.00" in billing.reason and "one needs 0.40" in billing.reason
    assert KITS["billing"].matches(SkillProfile.from_row(DOCLING)).score > 0.5


def test_the_selection_is_mapped_and_the_skills_tool_pattern_added() -> None:
    plan = plan_offline(
        SkillProfile.from_row(DOCLING), rows("scope_distractor", "resource_budget", "duplicate_claim_across_periods")
    )
    assert isinstance(plan, KitPlan)
    assert plan.kit.name == "billing"
    assert set(plan.patterns) >= {
        "scope_distractor",
        "duplicate_claim_across_periods",
        "scanned_evidence_without_text_layer",
    }
    assert set(plan.patterns.values()) == {1}
    assert "resource_budget" not in plan.patterns
    notes = " ".join(plan.notes)
    assert "resource_budget" in notes and "scanned_evidence_without_text_layer" in notes


def test_a_thin_selection_is_filled_with_the_kits_starters() -> None:
    plan = plan_offline(SkillProfile.from_row(LOGS), [])
    assert isinstance(plan, KitPlan)
    assert len(plan.patterns) >= 3
    assert set(plan.patterns) <= set(plan.kit.patterns)


def test_author_offline_builds_a_deterministic_task_about_the_skill() -> None:
    draft = author_offline(TABLES, rows("sentinel_missing_values"))
    again = author_offline(TABLES, rows("sentinel_missing_values"))
    assert isinstance(draft, TaskDraft) and isinstance(again, TaskDraft)
    assert draft.workspace == again.workspace
    assert draft.blueprint.skill.skill_id == TABLES["skill_id"]
    assert draft.blueprint.domain == "test"
    assert "sentinel_missing_values" in {c.pattern_id for c in draft.blueprint.challenges}
    assert draft.author == "offline:cleanroom"


def test_the_offline_kits_are_an_author() -> None:
    author = OfflineAuthor()
    assert isinstance(author, Author)
    assert isinstance(author.draft(CONFIG, rows("scope_distractor")), TaskDraft)
