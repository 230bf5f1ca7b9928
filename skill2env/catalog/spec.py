"""The Agent Skills specification (agentskills.io) as data: checks on one SKILL.md.

Every finding has a stable `code`; its severity and message template live in `SPEC_RULES`, so
curation can filter by code without parsing messages. Codes with a parameter (`unknown-key:<key>`)
use the rule `unknown-key`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from skill2env.catalog.frontmatter import ParsedFrontmatter
from skill2env.catalog.models import SpecFinding

Severity = Literal["error", "warning", "info"]

SKILL_MD_FILE_NAME = "SKILL.md"
NAME_MAX_CHARS = 64
DESCRIPTION_MAX_CHARS = 1024
COMPATIBILITY_MAX_CHARS = 500
BODY_MAX_LINES = 500
ALLOWED_KEYS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})

SPEC_RULES: dict[str, tuple[Severity, str]] = {
    "skill-md-filename": ("error", "skill file is named {file!r}; the specification requires 'SKILL.md'"),
    "frontmatter-missing": ("error", "SKILL.md has no YAML frontmatter"),
    "frontmatter-invalid-yaml": ("error", "frontmatter is not valid YAML: {detail}"),
    "frontmatter-not-mapping": ("error", "frontmatter is not a mapping: {detail}"),
    "name-missing": ("error", "frontmatter has no 'name'"),
    "name-not-string": ("error", "'name' is a {type}, not a string"),
    "name-empty": ("error", "'name' is empty"),
    "name-too-long": ("error", "'name' has {length} characters (max 64)"),
    "name-invalid-chars": ("error", "'name' may only hold a-z, 0-9 and '-'; found {chars}"),
    "name-hyphen-edge": ("error", "'name' must not start or end with '-'"),
    "name-consecutive-hyphens": ("error", "'name' must not contain '--'"),
    "name-folder-mismatch": ("warning", "'name' {name!r} does not match the folder name {folder!r}"),
    "description-missing": ("error", "frontmatter has no 'description'"),
    "description-not-string": ("error", "'description' is a {type}, not a string"),
    "description-empty": ("error", "'description' is empty"),
    "description-too-long": ("error", "'description' has {length} characters (max 1024)"),
    "compatibility-not-string": ("error", "'compatibility' is a {type}, not a string"),
    "compatibility-empty": ("warning", "'compatibility' is present but empty"),
    "compatibility-too-long": ("error", "'compatibility' has {length} characters (max 500)"),
    "metadata-json-string": ("warning", "'metadata' is a JSON string inside YAML, not a YAML mapping"),
    "metadata-not-mapping": ("error", "'metadata' is a {type}, not a mapping"),
    "unknown-key": ("info", "frontmatter key {key!r} is not in the specification"),
    "body-empty": ("warning", "SKILL.md has no Markdown body"),
    "body-too-long": ("warning", "SKILL.md body has {lines} lines (recommended max 500)"),
}

_NAME_DISALLOWED_RE = re.compile(r"[^a-z0-9-]")


def spec_findings(frontmatter: ParsedFrontmatter, *, folder_name: str, skill_md_file: str) -> list[SpecFinding]:
    """Check one SKILL.md against the Agent Skills specification; findings in a stable order.

    On `yaml_error` the fields recovered by the lenient parser are still checked, so a broken
    `metadata:` line does not also produce `name-missing`.
    """
    findings: list[SpecFinding] = []
    if skill_md_file != SKILL_MD_FILE_NAME:
        findings.append(_finding("skill-md-filename", file=skill_md_file))
    findings.extend(_frontmatter_findings(frontmatter, folder_name))
    findings.extend(_body_findings(frontmatter.body))
    return findings


def _finding(code: str, *, rule: str | None = None, **details: Any) -> SpecFinding:
    severity, template = SPEC_RULES[rule or code]
    return SpecFinding(code=code, severity=severity, message=template.format(**details))


def _frontmatter_findings(frontmatter: ParsedFrontmatter, folder_name: str) -> list[SpecFinding]:
    if frontmatter.status == "none":
        return [_finding("frontmatter-missing")]
    if frontmatter.status == "not_mapping":
        return [_finding("frontmatter-not-mapping", detail=frontmatter.error or "")]
    findings: list[SpecFinding] = []
    if frontmatter.status == "yaml_error":
        findings.append(_finding("frontmatter-invalid-yaml", detail=frontmatter.error or ""))
    data = frontmatter.data
    findings.extend(_name_findings(data, folder_name))
    findings.extend(_description_findings(data))
    findings.extend(_compatibility_findings(data))
    findings.extend(_metadata_findings(data))
    findings.extend(
        _finding(f"unknown-key:{key}", rule="unknown-key", key=key) for key in data if key not in ALLOWED_KEYS
    )
    return findings


def _type_name(value: object) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__


def _name_findings(data: dict[str, Any], folder_name: str) -> list[SpecFinding]:
    if "name" not in data:
        return [_finding("name-missing")]
    name = data["name"]
    if not isinstance(name, str):
        return [_finding("name-not-string", type=_type_name(name))]
    if not name.strip():
        return [_finding("name-empty")]
    findings: list[SpecFinding] = []
    if len(name) > NAME_MAX_CHARS:
        findings.append(_finding("name-too-long", length=len(name)))
    bad_chars = sorted(set(_NAME_DISALLOWED_RE.findall(name)))
    if bad_chars:
        findings.append(_finding("name-invalid-chars", chars=" ".join(repr(c) for c in bad_chars)))
    if name.startswith("-") or name.endswith("-"):
        findings.append(_finding("name-hyphen-edge"))
    if "--" in name:
        findings.append(_finding("name-consecutive-hyphens"))
    if not name_matches_folder(name, folder_name):
        findings.append(_finding("name-folder-mismatch", name=name, folder=folder_name))
    return findings


def name_matches_folder(name: str, folder_name: str) -> bool:
    """True when `name` is the folder name, or the slug of a ClawHub `<owner>--<slug>` folder."""
    if name == folder_name:
        return True
    _, separator, slug = folder_name.partition("--")
    return bool(separator) and name == slug


def _description_findings(data: dict[str, Any]) -> list[SpecFinding]:
    if "description" not in data:
        return [_finding("description-missing")]
    description = data["description"]
    if not isinstance(description, str):
        return [_finding("description-not-string", type=_type_name(description))]
    if not description.strip():
        return [_finding("description-empty")]
    if len(description) > DESCRIPTION_MAX_CHARS:
        return [_finding("description-too-long", length=len(description))]
    return []


def _compatibility_findings(data: dict[str, Any]) -> list[SpecFinding]:
    if "compatibility" not in data:
        return []
    compatibility = data["compatibility"]
    if not isinstance(compatibility, str):
        return [_finding("compatibility-not-string", type=_type_name(compatibility))]
    if not compatibility.strip():
        return [_finding("compatibility-empty")]
    if len(compatibility) > COMPATIBILITY_MAX_CHARS:
        return [_finding("compatibility-too-long", length=len(compatibility))]
    return []


def _metadata_findings(data: dict[str, Any]) -> list[SpecFinding]:
    if "metadata" not in data:
        return []
    metadata = data["metadata"]
    if isinstance(metadata, dict):
        return []
    if isinstance(metadata, str) and metadata.lstrip().startswith("{"):
        return [_finding("metadata-json-string")]
    return [_finding("metadata-not-mapping", type=_type_name(metadata))]


def _body_findings(body: str) -> list[SpecFinding]:
    stripped = body.strip()
    if not stripped:
        return [_finding("body-empty")]
    lines = stripped.count("\n") + 1
    if lines > BODY_MAX_LINES:
        return [_finding("body-too-long", lines=lines)]
    return []
