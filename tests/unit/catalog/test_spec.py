"""Tests for the Agent Skills specification checks."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from corpus import CORPUS

from skill2env.catalog.frontmatter import ParsedFrontmatter, parse_frontmatter
from skill2env.catalog.models import SpecFinding
from skill2env.catalog.spec import SPEC_RULES, name_matches_folder, spec_findings

BODY = "# Title\n\nDo the thing.\n"


def _parsed(data: dict[str, Any], body: str = BODY) -> ParsedFrontmatter:
    return ParsedFrontmatter(status="ok", raw=yaml.safe_dump(data), data=data, body=body, error=None)


def _codes(findings: list[SpecFinding]) -> list[str]:
    return [finding.code for finding in findings]


def _check(data: dict[str, Any], *, folder: str = "my-skill", body: str = BODY) -> list[SpecFinding]:
    return spec_findings(_parsed(data, body), folder_name=folder, skill_md_file="SKILL.md")


VALID = {"name": "my-skill", "description": "Does one thing well."}


def test_valid_skill_has_no_findings() -> None:
    full = {**VALID, "license": "MIT", "allowed-tools": "Read Bash", "metadata": {"a": "b"}, "compatibility": "x"}

    assert _check(full) == []


def test_every_rule_has_a_valid_severity_and_message() -> None:
    for code, (severity, message) in SPEC_RULES.items():
        assert severity in ("error", "warning", "info"), code
        assert message, code


# --- file and frontmatter presence ----------------------------------------------------------------


@pytest.mark.parametrize("file_name", ["skill.md", "Skill.md", "SKILLS.md", "Skills.md"])
def test_skill_md_must_be_named_exactly(file_name: str) -> None:
    findings = spec_findings(_parsed(VALID), folder_name="my-skill", skill_md_file=file_name)

    assert _codes(findings) == ["skill-md-filename"]
    assert findings[0].severity == "error"
    assert repr(file_name) in findings[0].message


def test_missing_frontmatter_is_reported_once() -> None:
    parsed = parse_frontmatter(BODY)

    findings = spec_findings(parsed, folder_name="my-skill", skill_md_file="SKILL.md")

    assert _codes(findings) == ["frontmatter-missing"]
    assert findings[0].severity == "error"


def test_non_mapping_frontmatter_skips_the_field_checks() -> None:
    parsed = parse_frontmatter("---\n- a\n---\n" + BODY)

    findings = spec_findings(parsed, folder_name="my-skill", skill_md_file="SKILL.md")

    assert _codes(findings) == ["frontmatter-not-mapping"]
    assert "list" in findings[0].message


def test_yaml_error_still_checks_the_recovered_fields() -> None:
    parsed = parse_frontmatter("---\nname: My_Skill\ndescription: a: b\n---\n" + BODY)

    findings = spec_findings(parsed, folder_name="my-skill", skill_md_file="SKILL.md")

    assert _codes(findings) == ["frontmatter-invalid-yaml", "name-invalid-chars", "name-folder-mismatch"]
    assert "mapping values are not allowed" in findings[0].message


# --- name -----------------------------------------------------------------------------------------


def test_name_missing() -> None:
    findings = _check({"description": "x"})

    assert _codes(findings) == ["name-missing"]
    assert findings[0].severity == "error"


@pytest.mark.parametrize(("value", "type_name"), [(42, "int"), (["a"], "list"), (None, "null"), ({}, "mapping")])
def test_name_must_be_a_string(value: object, type_name: str) -> None:
    findings = _check({"name": value, "description": "x"})

    assert _codes(findings) == ["name-not-string"]
    assert type_name in findings[0].message


def test_name_empty() -> None:
    assert _codes(_check({"name": "  ", "description": "x"})) == ["name-empty"]


def test_name_of_64_characters_is_allowed_but_65_is_too_long() -> None:
    assert _check({"name": "a" * 64, "description": "x"}, folder="a" * 64) == []

    findings = _check({"name": "a" * 65, "description": "x"}, folder="a" * 65)

    assert _codes(findings) == ["name-too-long"]
    assert "65" in findings[0].message


@pytest.mark.parametrize(
    ("name", "bad"),
    [("My-Skill", "'M' 'S'"), ("my_skill", "'_'"), ("my skill", "' '"), ("café", "'é'")],
)
def test_name_invalid_characters_are_listed(name: str, bad: str) -> None:
    findings = _check({"name": name, "description": "x"}, folder=name)

    assert _codes(findings) == ["name-invalid-chars"]
    assert findings[0].message.endswith(bad)


@pytest.mark.parametrize("name", ["-skill", "skill-"])
def test_name_must_not_start_or_end_with_a_hyphen(name: str) -> None:
    assert _codes(_check({"name": name, "description": "x"}, folder=name)) == ["name-hyphen-edge"]


def test_name_must_not_contain_consecutive_hyphens() -> None:
    assert _codes(_check({"name": "my--skill", "description": "x"}, folder="my--skill")) == ["name-consecutive-hyphens"]


def test_name_should_match_the_folder() -> None:
    findings = _check({"name": "other", "description": "x"}, folder="my-skill")

    assert _codes(findings) == ["name-folder-mismatch"]
    assert findings[0].severity == "warning"
    assert findings[0].message == "'name' 'other' does not match the folder name 'my-skill'"


def test_clawhub_owner_slug_folder_matches_the_slug() -> None:
    assert _check({"name": "discord", "description": "x"}, folder="steipete--discord") == []
    assert _codes(_check({"name": "steipete", "description": "x"}, folder="steipete--discord")) == [
        "name-folder-mismatch"
    ]


@pytest.mark.parametrize(
    ("name", "folder", "expected"),
    [
        ("pdf", "pdf", True),
        ("pdf", "owner--pdf", True),
        ("pdf-tools", "owner--pdf-tools", True),
        ("owner--pdf", "owner--pdf", True),
        ("pdf", "owner-pdf", False),
        ("pdf", "PDF", False),
        ("pdf", "--", False),
    ],
)
def test_name_matches_folder(name: str, folder: str, expected: bool) -> None:
    assert name_matches_folder(name, folder) is expected


# --- description, compatibility, metadata, unknown keys -------------------------------------------


def test_description_missing() -> None:
    assert _codes(_check({"name": "my-skill"})) == ["description-missing"]


def test_description_not_string() -> None:
    findings = _check({"name": "my-skill", "description": ["a", "b"]})

    assert _codes(findings) == ["description-not-string"]
    assert "list" in findings[0].message


def test_description_empty() -> None:
    assert _codes(_check({"name": "my-skill", "description": "\n "})) == ["description-empty"]


def test_description_length_limit_is_1024() -> None:
    assert _check({"name": "my-skill", "description": "d" * 1024}) == []

    findings = _check({"name": "my-skill", "description": "d" * 1025})

    assert _codes(findings) == ["description-too-long"]
    assert findings[0].severity == "error"
    assert "1025" in findings[0].message


def test_compatibility_length_limit_is_500() -> None:
    assert _check({**VALID, "compatibility": "c" * 500}) == []

    assert _codes(_check({**VALID, "compatibility": "c" * 501})) == ["compatibility-too-long"]


def test_compatibility_must_be_a_non_empty_string() -> None:
    assert _codes(_check({**VALID, "compatibility": ["linux"]})) == ["compatibility-not-string"]
    assert _codes(_check({**VALID, "compatibility": ""})) == ["compatibility-empty"]


def test_metadata_written_as_json_string_is_a_warning() -> None:
    findings = _check({**VALID, "metadata": '{"clawdbot": {"emoji": "x"}}'})

    assert _codes(findings) == ["metadata-json-string"]
    assert findings[0].severity == "warning"


@pytest.mark.parametrize(("value", "type_name"), [(["a"], "list"), ("plain text", "str"), (3, "int")])
def test_metadata_that_is_not_a_mapping_is_an_error(value: object, type_name: str) -> None:
    findings = _check({**VALID, "metadata": value})

    assert _codes(findings) == ["metadata-not-mapping"]
    assert findings[0].severity == "error"
    assert type_name in findings[0].message


def test_unknown_keys_are_info_findings_in_frontmatter_order() -> None:
    findings = _check({**VALID, "version": "1.0", "homepage": "https://x", "user-invocable": True})

    assert _codes(findings) == ["unknown-key:version", "unknown-key:homepage", "unknown-key:user-invocable"]
    assert {f.severity for f in findings} == {"info"}
    assert findings[1].message == "frontmatter key 'homepage' is not in the specification"


# --- body -----------------------------------------------------------------------------------------


def test_empty_body_is_a_warning() -> None:
    findings = _check(VALID, body="\n\n  \n")

    assert _codes(findings) == ["body-empty"]
    assert findings[0].severity == "warning"


def test_body_of_500_lines_is_fine_but_501_is_too_long() -> None:
    assert _check(VALID, body="line\n" * 500) == []

    findings = _check(VALID, body="line\n" * 501)

    assert _codes(findings) == ["body-too-long"]
    assert "501" in findings[0].message


def test_findings_order_is_file_then_frontmatter_then_body() -> None:
    parsed = _parsed({"name": "Bad", "extra": 1}, body="")

    findings = spec_findings(parsed, folder_name="bad", skill_md_file="skill.md")

    assert _codes(findings) == [
        "skill-md-filename",
        "name-invalid-chars",
        "name-folder-mismatch",
        "description-missing",
        "unknown-key:extra",
        "body-empty",
    ]


# --- real corpus files ----------------------------------------------------------------------------


def _corpus_findings(relative_folder: str, skill_md_file: str = "SKILL.md") -> list[SpecFinding]:
    folder = CORPUS / relative_folder
    path = folder / skill_md_file
    if not path.is_file():
        pytest.skip(f"development corpus file {path} is not available")
    parsed = parse_frontmatter(path.read_text(encoding="utf-8", errors="replace"))
    return spec_findings(parsed, folder_name=folder.name, skill_md_file=skill_md_file)


def test_corpus_anthropic_skill_is_clean() -> None:
    assert _corpus_findings("anthropics-skills/canvas-design") == []


def test_corpus_lowercase_file_name_without_frontmatter() -> None:
    codes = _codes(_corpus_findings("openclaw-skills/nsampre--hevycli", "Skill.md"))

    assert codes == ["skill-md-filename", "frontmatter-missing"]


def test_corpus_frontmatter_without_name() -> None:
    codes = _codes(_corpus_findings("openclaw-skills/thesethrose--therapy-mode"))

    assert "name-missing" in codes
    assert "description-missing" not in codes


def test_corpus_discord_yaml_error_keeps_name_checks_quiet() -> None:
    codes = _codes(_corpus_findings("openclaw-skills/steipete--discord"))

    assert codes == ["frontmatter-invalid-yaml"]


def test_corpus_clawhub_skill_reports_unknown_keys() -> None:
    codes = _codes(_corpus_findings("openclaw-skills/steipete--openhue"))

    assert codes == ["unknown-key:homepage"]


def test_corpus_evilcalc_name_mismatch_and_json_string_metadata() -> None:
    codes = _codes(_corpus_findings("openclaw-skills/fobonacci404--evilcalc"))

    assert codes == [
        "frontmatter-invalid-yaml",
        "name-folder-mismatch",
        "metadata-json-string",
        "unknown-key:homepage",
    ]
