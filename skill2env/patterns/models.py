"""The difficulty-pattern model: one reusable kind of challenge and how to build it into a task."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PATTERN_SCHEMA_VERSION = 1
SLUG = r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"


class Capability(StrEnum):
    """The five capability demands a task can exercise."""

    ENVIRONMENT_UNDERSTANDING = "environment_understanding"
    PLANNING = "planning"
    SKILL_USE = "skill_use"
    LONG_HORIZON_CONSISTENCY = "long_horizon_consistency"
    ERROR_RECOVERY = "error_recovery"


class Trait(StrEnum):
    """What a skill (and the workflow a task builds around it) can offer a pattern."""

    MULTI_FILE_WORKSPACE = "multi_file_workspace"
    """Several input files the agent must open; nearly every skill can offer it."""
    TABULAR_DATA = "tabular_data"
    """CSV / XLSX / TSV / Parquet tables."""
    DOCUMENTS = "documents"
    """PDF, DOCX, HTML, Markdown, slides: prose with embedded facts."""
    SCANNED_MEDIA = "scanned_media"
    """Images or scans whose text needs OCR or vision."""
    MEDIA = "media"
    """Audio, video or images processed as media."""
    CODE_REPOSITORY = "code_repository"
    """A source tree with build files, tests and history."""
    CONFIGURATION = "configuration"
    """YAML / JSON / TOML / INI configuration files."""
    LOGS = "logs"
    """Log files, event streams, traces."""
    DATABASE = "database"
    """A SQLite / DuckDB file or SQL dumps."""
    STRUCTURED_DATA = "structured_data"
    """JSON / XML / YAML records (APIs, exports)."""
    NUMERIC_COMPUTATION = "numeric_computation"
    """Arithmetic, aggregation, statistics, money."""
    TEMPORAL_DATA = "temporal_data"
    """Dates, times, time zones, periods, schedules."""
    LONG_RUNNING_PROCESS = "long_running_process"
    """A build, a job, a server or a batch that takes a while and can be interrupted."""
    NETWORK_SERVICE = "network_service"
    """A local HTTP / API service the agent talks to."""
    PERSISTENT_STATE = "persistent_state"
    """State that survives between steps (a database, a ledger, a repo, a queue)."""
    SKILL_SCRIPTS = "skill_scripts"
    """The skill ships its own scripts or CLI tools to run."""
    CLI_TOOLS = "cli_tools"
    """The workflow uses external command-line programs with flags that matter."""
    VERSION_HISTORY = "version_history"
    """Revisions of the same artifact over time (git history, amendments, changelogs)."""
    TEXT_CORPUS = "text_corpus"
    """Many prose items to read, search or classify (tickets, emails, notes)."""
    DEBUGGING = "debugging"
    """Finding and fixing bugs in code: failing tests, tracebacks, root causes, test-driven work, review."""
    SOURCE_CONTROL = "source_control"
    """Git work: commits, branches, merges, rebases, reverts, tags, bisecting, blame, changelogs, releases."""
    RESEARCH = "research"
    """Research from sources: literature reviews, citations and bibliographies, fact-checking, summarising papers."""
    SCIENTIFIC_DATA = "scientific_data"
    """Measurements and experiments: units, calibration, instruments, uncertainties, fitting models to data."""
    AGENT_MEMORY = "agent_memory"
    """An agent's own long-lived notes: memory files, journals, decision logs, recall across sessions."""
    FINANCE = "finance"
    """Money documents and their reconciliation: invoices, payments, receipts, ledgers, contracts' rates."""
    WEB_FRONTEND = "web_frontend"
    """A web app's front end: pages, components, stylesheets, design tokens, Core Web Vitals, accessibility."""
    TEXT_CODING = "text_coding"
    """Classifying or scoring texts against a written scheme: tactics, dimensions, rubrics, codebooks."""
    PERSONAL_RECORDS = "personal_records"
    """A person's own records kept by an assistant: birthdays, contacts, to-dos, reminders, habits, focus sessions."""
    DIAGRAMS = "diagrams"
    """Diagrams kept as files: Excalidraw scenes, Mermaid, draw.io, Graphviz and PlantUML sources, flowcharts."""


class InformationLevel(StrEnum):
    """Where a fact sits relative to the agent (the information boundary)."""

    STATED = "stated"
    DISCOVERABLE = "discoverable"
    INFERABLE = "inferable"
    AUTHOR_ONLY = "author_only"


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Construction(StrictModel):
    """How to build the pattern into the workspace, the instruction and the evaluator."""

    workspace: list[str] = Field(min_length=1)
    """Concrete artifacts to create: each names a file (or kind of file) and the facts placed in it."""
    instruction: str = Field(min_length=20)
    """What the instruction says to set the challenge up."""
    must_not_say: list[str] = Field(min_length=1)
    """What the instruction must not reveal (it would dissolve the challenge)."""
    evaluator: str = Field(min_length=20)
    """What the rubric checks, and against which author-only values."""


class InformationBoundary(StrictModel):
    """Which facts of the pattern become stated, discoverable, inferable or stay author-only."""

    stated: list[str] = Field(default_factory=list)
    discoverable: list[str] = Field(min_length=1)
    inferable: list[str] = Field(default_factory=list)
    author_only: list[str] = Field(min_length=1)


class Evidence(StrictModel):
    """What proves the challenge was met rather than bypassed."""

    rubric_check: str = Field(min_length=20)
    """What a rubric item must check."""
    shortcut: str = Field(min_length=20)
    """The typical shortcut that bypasses the challenge."""
    shortcut_signal: str = Field(min_length=10)
    """What in a trajectory shows the shortcut was taken (used by diagnosis)."""


class IntensityLevel(StrictModel):
    level: int = Field(ge=1, le=3)
    description: str = Field(min_length=15)


class Origin(StrictModel):
    kind: Literal["seed", "hardening"] = "seed"
    parent: str | None = None
    """The pattern this one was abstracted from (hardening only)."""
    diagnosis: str | None = None
    """The diagnosis that produced it (hardening only)."""

    @model_validator(mode="after")
    def _hardening_has_lineage(self) -> Origin:
        if self.kind == "hardening" and not (self.parent or self.diagnosis):
            raise ValueError("a hardening pattern names its parent pattern or its diagnosis")
        return self


class Pattern(StrictModel):
    """One difficulty pattern of the pool."""

    id: str = Field(pattern=SLUG, max_length=64)
    name: str = Field(min_length=3, max_length=80)
    capability: Capability
    description: str = Field(min_length=40)
    construction: Construction
    information_boundary: InformationBoundary
    evidence: Evidence
    traits: list[Trait] = Field(default_factory=list, max_length=3)
    """What the skill must offer for the pattern to fit (all of them)."""
    affinity: list[Trait] = Field(default_factory=list)
    """What makes the pattern fit better (any of them raises the score)."""
    conflicts: list[str] = Field(default_factory=list)
    """Ids of patterns that cannot share a task with this one."""
    intensity: list[IntensityLevel] = Field(min_length=3, max_length=3)
    origin: Origin = Origin()
    version: int = Field(default=1, ge=1)

    @field_validator("intensity")
    @classmethod
    def _levels_one_to_three(cls, levels: list[IntensityLevel]) -> list[IntensityLevel]:
        if [level.level for level in levels] != [1, 2, 3]:
            raise ValueError("intensity lists levels 1, 2 and 3 in order")
        return levels

    @model_validator(mode="after")
    def _no_self_conflict(self) -> Pattern:
        if self.id in self.conflicts:
            raise ValueError(f"pattern {self.id} lists itself in conflicts")
        return self


class PatternFile(StrictModel):
    """One data file of the pool: the patterns of one capability."""

    capability: Capability
    patterns: list[Pattern] = Field(min_length=1)

    @model_validator(mode="after")
    def _patterns_match_file(self) -> PatternFile:
        for pattern in self.patterns:
            if pattern.capability != self.capability:
                raise ValueError(f"pattern {pattern.id} has capability {pattern.capability}, file is {self.capability}")
        return self
