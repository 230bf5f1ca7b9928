"""A kit whose world is one activity serves only skills that do it: the bundled skills each go to the kit
of what they do, and a skill that only runs git or mentions its sources once gets neither the
git-forensics nor the research kit."""

from __future__ import annotations

from pathlib import Path

import pytest
from bundled_skills import NO_KIT
from skill_profiles import profiles_of

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import MIN_MATCH
from skill2env.patterns.models import Trait
from skill2env.patterns.traits import SkillProfile

BUNDLED = Path(__file__).resolve().parents[3] / "skill2env" / "examples" / "skills"
EXPECTED = {
    "invoice-reconciliation": "billing",
    "csv-cleaning": "cleanroom",
    "log-analysis": "incident",
    "config-audit": "configaudit",
    "sqlite-reporting": "sqldrift",
    "lab-calibration": "labdata",
    "media-library-triage": "mediadesk",
    "project-memory": "memory",
    "rest-api-export": "webapi",
}


@pytest.fixture(scope="module")
def profiles() -> dict[str, SkillProfile]:
    return profiles_of(BUNDLED)


@pytest.mark.parametrize(("skill", "kit"), sorted(EXPECTED.items()))
def test_each_bundled_skill_goes_to_the_kit_of_what_it_does(profiles: dict[str, SkillProfile], skill: str,
                                                            kit: str) -> None:  # fmt: skip
    assert kit_matches(profiles[skill], KITS)[0].kit == kit


@pytest.mark.parametrize("skill", sorted(NO_KIT))
def test_a_bundled_skill_no_kit_serves_stays_unserved(profiles: dict[str, SkillProfile], skill: str) -> None:
    assert all(m.score < MIN_MATCH for m in kit_matches(profiles[skill], KITS)), skill


@pytest.mark.parametrize("skill", ["json-api-fixtures", "markdown-docs-linkcheck", "invoice-reconciliation"])
def test_running_git_or_citing_a_source_once_is_not_enough(profiles: dict[str, SkillProfile], skill: str) -> None:
    matches = {m.kit: m for m in kit_matches(profiles[skill], KITS)}
    for kit in ("gitforensics", "research"):
        assert matches[kit].score == 0.0 and "the kit needs" in matches[kit].reason


def test_the_required_traits_are_declared_for_the_single_activity_kits() -> None:
    assert KITS["gitforensics"].requires == {Trait.SOURCE_CONTROL: 0.7}
    assert KITS["research"].requires == {Trait.RESEARCH: 0.5}
