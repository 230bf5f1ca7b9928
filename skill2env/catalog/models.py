"""Records the catalog produces: one `SkillRecord` per skill folder, one `SkillFile` per file.

These are the contract between catalog extraction and curation: curation rules read only
what is here (no re-reading of the skill folder), so every fact a rule needs is captured
once, at catalog time, with evidence.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1


class SkillStatus(StrEnum):
    """Outcome of reading one skill folder."""

    ok = "ok"
    """SKILL.md read and its frontmatter parsed as a mapping."""
    no_frontmatter = "no_frontmatter"
    frontmatter_error = "frontmatter_error"
    """Frontmatter present but not valid YAML, or not a mapping."""
    unreadable = "unreadable"
    """SKILL.md could not be read at all (permissions, vanished, not a regular file)."""
    error = "error"
    """Profiling this folder failed unexpectedly; `reason` holds the error. Other folders go on."""


class FileKind(StrEnum):
    skill_md = "skill_md"
    script = "script"
    reference = "reference"
    """Prose documents: Markdown, text, reStructuredText."""
    data = "data"
    """Tabular / structured data: CSV, TSV, JSON, YAML, XML, SQL dumps."""
    config = "config"
    """Build and tool configuration: package.json, requirements.txt, pyproject.toml, Dockerfile."""
    template = "template"
    license = "license"
    binary = "binary"
    other = "other"


class SpecFinding(BaseModel):
    """One Agent Skills specification finding about a skill's SKILL.md."""

    code: str
    """Stable machine-readable code, e.g. `name-invalid-chars`, `description-too-long`."""
    severity: Literal["error", "warning", "info"]
    message: str


class Signal(BaseModel):
    """A fact found in a skill's text, with where it was found.

    Signals are evidence, not verdicts: curation rules decide what they mean.
    """

    code: str
    """Stable code, e.g. `pipe-to-shell`, `macos-only-api`, `paid-api-key`."""
    file: str
    """Path relative to the skill folder."""
    line: int
    """1-based line number of the match (0 when not line-based, e.g. frontmatter)."""
    excerpt: str
    """The matched text, at most 200 characters."""


class ClawHubMeta(BaseModel):
    """ClawHub's `metadata.openclaw` / `metadata.clawdbot` / `metadata.clawdis` block."""

    key: str
    """Which of the three keys carried it."""
    bins: list[str] = Field(default_factory=list)
    """`requires.bins`: programs that must all be on PATH."""
    any_bins: list[str] = Field(default_factory=list)
    """`requires.anyBins`: at least one must be on PATH."""
    env: list[str] = Field(default_factory=list)
    """`requires.env`: environment variables the skill needs."""
    config: list[str] = Field(default_factory=list)
    """`requires.config`: configuration keys the skill needs."""
    os: list[str] = Field(default_factory=list)
    """Supported operating systems (`darwin`, `linux`, `win32`); empty means any."""
    install: list[dict[str, Any]] = Field(default_factory=list)
    """Install recipes as written (`kind`: brew / node / go / uv / apt / download …)."""
    primary_env: str | None = None


class Dependency(BaseModel):
    """A package a skill depends on, in one ecosystem."""

    ecosystem: str
    """pip, npm, cargo, go, gem, apt, brew, conda, composer, nuget, maven, …"""
    name: str
    """Normalised package name (lowercase for case-insensitive ecosystems)."""
    source: str
    """Where it was found: `SKILL.md:12`, `requirements.txt`, `frontmatter:install`, …"""


class SkillFile(BaseModel):
    """One file inside a skill folder (symlinks included, never followed)."""

    path: str
    """Relative to the skill folder, POSIX separators."""
    size: int
    sha256: str | None
    """None for symlinks and unreadable files."""
    kind: FileKind
    language: str | None
    """Programming / markup language by extension or shebang (python, shell, markdown, …)."""
    is_text: bool
    is_symlink: bool = False
    symlink_target: str | None = None
    truncated: bool = False
    """True when the file was larger than the read cap and only its head was scanned."""
    status: Literal["ok", "skipped", "unreadable"] = "ok"
    reason: str | None = None


class SkillRecord(BaseModel):
    """Everything the catalog learned about one skill folder."""

    schema_version: int = SCHEMA_VERSION
    skill_id: str
    """Content digest: sha256 over the sorted (path, file digest) list, first 16 hex chars."""
    source: str
    """First path component under the skills root (the publisher / repository folder)."""
    path: str
    """Skill folder relative to the skills root, e.g. `openclaw-skills/owner--slug`."""
    skill_md_file: str
    """Actual file name: `SKILL.md`, `skill.md`, `Skill.md`, …"""
    status: SkillStatus
    reason: str | None = None
    nested_in: str | None = None
    """Path of the enclosing skill when this skill lives inside another skill's folder."""

    frontmatter_raw: str | None = None
    frontmatter: dict[str, Any] = Field(default_factory=dict)
    name: str | None = None
    description: str | None = None
    skill_md_text: str = ""
    """SKILL.md decoded (UTF-8, invalid bytes replaced), capped by the read limit."""
    skill_md_size: int = 0
    """Size on disk in bytes, even when the text was capped."""
    body_chars: int = 0
    """Characters of the Markdown body after the frontmatter."""
    text_encoding: Literal["utf-8", "utf-8-replaced", "binary"] = "utf-8"

    spec_findings: list[SpecFinding] = Field(default_factory=list)
    clawhub: ClawHubMeta | None = None
    languages: list[str] = Field(default_factory=list)
    programs: list[str] = Field(default_factory=list)
    """External programs the skill runs (git, curl, ffmpeg, pdftotext, …)."""
    cli_tools: list[str] = Field(default_factory=list)
    """Command-line tool names invoked in code blocks and scripts (a superset of programs)."""
    dependencies: list[Dependency] = Field(default_factory=list)
    env_vars: list[str] = Field(default_factory=list)
    """Environment variables the skill reads or asks for."""
    signals: list[Signal] = Field(default_factory=list)

    domain: str | None = None
    """Domain slug from the fixed taxonomy (assigned after extraction, see `skill2env.curation.domains`)."""
    n_files: int = 0
    total_bytes: int = 0
    inventory_truncated: bool = False
    """True when the folder held more files than the inventory cap; `n_files` still counts them all."""
    files: list[SkillFile] = Field(default_factory=list)
