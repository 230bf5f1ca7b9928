"""What a skill offers a pattern: its traits, each with the evidence that shows it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skill2env.patterns.models import Trait


@dataclass(frozen=True)
class TraitCues:
    """Where a trait shows in a skill's profile."""

    words: tuple[str, ...] = ()
    """Whole words or phrases of the skill's name, description and body."""
    extensions: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    """External programs and CLI tools the skill uses."""
    languages: tuple[str, ...] = ()
    file_kinds: tuple[str, ...] = ()


CUES: dict[Trait, TraitCues] = {
    Trait.TABULAR_DATA: TraitCues(
        words=("csv", "tsv", "spreadsheet", "excel", "xlsx", "dataframe", "pivot", "worksheet", "parquet", "tabular"),
        extensions=("csv", "tsv", "xlsx", "xls", "parquet", "ods"),
        dependencies=("pandas", "openpyxl", "polars", "xlsxwriter", "pyarrow", "xlrd", "csvkit"),
        programs=("csvkit", "xsv", "miller", "mlr"),
    ),
    Trait.DOCUMENTS: TraitCues(
        words=(
            "pdf",
            "docx",
            "word document",
            "pptx",
            "slides",
            "report",
            "contract",
            "invoice",
            "markdown",
            "html",
            "document",
            "documents",
        ),
        extensions=("pdf", "docx", "doc", "pptx", "html", "htm", "odt", "rtf", "epub"),
        dependencies=(
            "pypdf",
            "pdfplumber",
            "python-docx",
            "docling",
            "pymupdf",
            "fitz",
            "reportlab",
            "python-pptx",
            "markdown",
            "beautifulsoup4",
            "bs4",
            "weasyprint",
            "docx",
        ),
        programs=("pandoc", "libreoffice", "soffice", "pdftotext", "wkhtmltopdf", "qpdf", "pdftk"),
    ),
    Trait.SCANNED_MEDIA: TraitCues(
        words=("ocr", "scanned", "scan", "tesseract", "handwriting", "receipt", "screenshot"),
        dependencies=("pytesseract", "easyocr", "paddleocr", "ocrmypdf"),
        programs=("tesseract", "ocrmypdf"),
    ),
    Trait.MEDIA: TraitCues(
        words=("video", "audio", "image", "images", "thumbnail", "transcode", "podcast", "subtitle", "photo"),
        extensions=("png", "jpg", "jpeg", "gif", "mp4", "mp3", "wav", "webp", "mov", "flac", "ogg", "tiff", "dcm"),
        dependencies=("pillow", "opencv-python", "moviepy", "pydub", "imageio", "ffmpeg-python", "librosa"),
        programs=("ffmpeg", "ffprobe", "imagemagick", "convert", "magick", "sox", "exiftool"),
    ),
    Trait.CODE_REPOSITORY: TraitCues(
        words=(
            "repository",
            "repo",
            "pull request",
            "refactor",
            "unit test",
            "test suite",
            "codebase",
            "commit",
            "lint",
            "code review",
            "build",
        ),
        dependencies=("pytest", "jest", "eslint", "ruff", "mypy", "typescript", "vitest"),
        programs=("git", "gh", "npm", "cargo", "go", "make", "pytest", "mvn", "gradle"),
        languages=("typescript", "javascript", "go", "rust", "java", "c", "cpp", "ruby", "kotlin"),
    ),
    Trait.CONFIGURATION: TraitCues(
        words=(
            "config",
            "configuration",
            "yaml",
            "kubernetes",
            "helm",
            "terraform",
            "ansible",
            "dockerfile",
            "workflow",
            "settings",
            "manifest",
            "policy",
        ),
        extensions=("yaml", "yml", "toml", "ini", "cfg", "conf", "tf", "env"),
        programs=("kubectl", "helm", "terraform", "ansible", "docker", "yq"),
    ),
    Trait.LOGS: TraitCues(
        words=(
            "log",
            "logs",
            "logging",
            "trace",
            "traces",
            "incident",
            "stack trace",
            "syslog",
            "journal",
            "observability",
            "monitoring",
        ),
        extensions=("log",),
        programs=("journalctl", "zgrep", "lnav", "logcli"),
    ),
    Trait.DATABASE: TraitCues(
        words=("database", "sql", "sqlite", "postgres", "postgresql", "mysql", "duckdb", "query", "schema", "table"),
        extensions=("sql", "db", "sqlite", "duckdb"),
        dependencies=("sqlalchemy", "psycopg2", "psycopg", "duckdb", "sqlite3", "pymysql", "prisma"),
        programs=("sqlite3", "psql", "mysql", "duckdb"),
    ),
    Trait.STRUCTURED_DATA: TraitCues(
        words=("json", "xml", "api response", "jsonl", "yaml", "schema", "records", "payload"),
        extensions=("json", "jsonl", "xml", "ndjson"),
        programs=("jq", "yq", "xmllint"),
        dependencies=("jsonschema", "lxml", "orjson"),
    ),
    Trait.NUMERIC_COMPUTATION: TraitCues(
        words=(
            "calculate",
            "calculation",
            "statistics",
            "statistical",
            "metrics",
            "budget",
            "revenue",
            "cost",
            "price",
            "forecast",
            "regression",
            "sum",
            "average",
            "finance",
            "financial",
            "accounting",
        ),
        dependencies=("numpy", "scipy", "statsmodels", "scikit-learn", "sklearn", "sympy", "pandas"),
        languages=("r", "julia"),
    ),
    Trait.TEMPORAL_DATA: TraitCues(
        words=(
            "date",
            "dates",
            "schedule",
            "calendar",
            "timezone",
            "time zone",
            "deadline",
            "daily",
            "weekly",
            "monthly",
            "timestamp",
            "timeline",
            "cron",
        ),
        dependencies=("python-dateutil", "pytz", "arrow", "pendulum", "icalendar"),
    ),
    Trait.LONG_RUNNING_PROCESS: TraitCues(
        words=(
            "long-running",
            "background",
            "batch",
            "pipeline",
            "build",
            "training",
            "server",
            "daemon",
            "job",
            "jobs",
            "queue",
            "crawl",
            "migration",
        ),
        programs=("make", "docker", "nohup", "tmux", "systemctl"),
    ),
    Trait.NETWORK_SERVICE: TraitCues(
        words=(
            "http",
            "api",
            "apis",
            "rest",
            "endpoint",
            "endpoints",
            "webhook",
            "server",
            "graphql",
            "request",
            "requests",
            "fetch",
            "api key",
            "rate limit",
            "pagination",
            "paginated",
            "oauth",
            "rss",
        ),
        dependencies=(
            "requests",
            "httpx",
            "flask",
            "fastapi",
            "aiohttp",
            "express",
            "axios",
            "uvicorn",
            "feedparser",
            "urllib3",
            "node-fetch",
        ),
        programs=("curl", "wget", "httpie", "xh"),
    ),
    Trait.PERSISTENT_STATE: TraitCues(
        words=(
            "state",
            "memory",
            "ledger",
            "history",
            "persist",
            "persistent",
            "database",
            "session",
            "queue",
            "inventory",
            "cache",
        ),
        dependencies=("sqlalchemy", "redis", "sqlite3", "duckdb"),
        programs=("git", "sqlite3"),
    ),
    Trait.SKILL_SCRIPTS: TraitCues(file_kinds=("script",)),
    Trait.CLI_TOOLS: TraitCues(),
    Trait.VERSION_HISTORY: TraitCues(
        words=(
            "git",
            "changelog",
            "version",
            "versions",
            "revision",
            "history",
            "diff",
            "amendment",
            "release",
            "migration",
        ),
        programs=("git", "gh"),
    ),
    Trait.TEXT_CORPUS: TraitCues(
        words=(
            "emails",
            "email",
            "tickets",
            "notes",
            "articles",
            "messages",
            "transcripts",
            "corpus",
            "search",
            "classify",
            "summarize",
            "summarise",
            "knowledge base",
            "documents",
        ),
        extensions=("md", "txt", "eml"),
    ),
    Trait.DEBUGGING: TraitCues(
        words=(
            "debug",
            "debugging",
            "debugger",
            "bug",
            "bugs",
            "bugfix",
            "traceback",
            "stack trace",
            "failing test",
            "failing tests",
            "test failure",
            "test failures",
            "root cause",
            "tdd",
            "test-driven",
            "unit test",
            "unit tests",
            "flaky",
            "breakpoint",
            "code review",
            "refactoring",
        ),
        dependencies=("pytest", "jest", "vitest", "mocha", "hypothesis"),
        programs=("pytest", "jest", "vitest", "pdb", "gdb"),
    ),
    Trait.SOURCE_CONTROL: TraitCues(
        words=(
            "git",
            "commit",
            "commits",
            "commit message",
            "commit messages",
            "branch",
            "branches",
            "merge",
            "rebase",
            "cherry-pick",
            "bisect",
            "git bisect",
            "blame",
            "revert",
            "changelog",
            "release notes",
            "conventional commits",
            "semver",
            "semantic versioning",
            "tag",
            "tags",
            "reflog",
            "squash",
            "git history",
        ),
        programs=("git", "git-cliff", "commitlint", "semantic-release"),
    ),
    Trait.RESEARCH: TraitCues(
        words=(
            "citation",
            "citations",
            "cite",
            "cited",
            "bibliography",
            "bibtex",
            "literature",
            "literature review",
            "systematic review",
            "meta-analysis",
            "peer review",
            "peer-reviewed",
            "scholarly",
            "academic",
            "papers",
            "preprint",
            "preprints",
            "doi",
            "pubmed",
            "arxiv",
            "zotero",
            "retraction",
            "retracted",
            "fact-check",
            "fact-checking",
            "evidence",
            "sources",
        ),
        extensions=("bib", "ris"),
        dependencies=("bibtexparser", "pybtex", "habanero", "scholarly", "arxiv", "biopython"),
        programs=("pandoc-citeproc", "citeproc", "zotero"),
    ),
    Trait.SCIENTIFIC_DATA: TraitCues(
        words=(
            "measurement",
            "measurements",
            "calibration",
            "calibrate",
            "instrument",
            "instruments",
            "sensor",
            "sensors",
            "uncertainty",
            "curve fitting",
            "experiment",
            "experimental",
            "simulation",
            "spectrum",
            "spectra",
            "assay",
            "physics",
            "chemistry",
            "molecular",
            "genomics",
            "single-cell",
            "quantum",
            "astronomy",
            "units",
        ),
        extensions=("h5", "hdf5", "nc", "fits", "h5ad", "mzml", "pdb", "fasta"),
        dependencies=(
            "scipy",
            "astropy",
            "pint",
            "lmfit",
            "uncertainties",
            "scanpy",
            "anndata",
            "biopython",
            "rdkit",
            "qutip",
            "cirq",
            "pymatgen",
            "mdanalysis",
            "xarray",
            "netcdf4",
            "h5py",
        ),
    ),
    Trait.FINANCE: TraitCues(
        words=(
            "invoice",
            "invoices",
            "invoicing",
            "billing",
            "payment",
            "payments",
            "reconcile",
            "reconciliation",
            "ledger",
            "receipt",
            "receipts",
            "vendor",
            "vendors",
            "accounts payable",
            "accounts receivable",
            "credit note",
            "bank statement",
            "expense",
            "expenses",
            "bookkeeping",
            "accounting",
            "vat",
        ),
        dependencies=("beancount", "ledger", "hledger", "quickbooks", "xero-python", "stripe"),
        programs=("ledger", "hledger", "beancount", "bean-check"),
    ),
    Trait.AGENT_MEMORY: TraitCues(
        words=(
            "memory",
            "memories",
            "remember",
            "recall",
            "long-term memory",
            "memory.md",
            "memory file",
            "memory files",
            "memory store",
            "vector memory",
            "episodic memory",
            "semantic memory",
            "knowledge base",
            "journal",
            "decision log",
            "daily notes",
            "handoff",
            "context window",
        ),
        dependencies=("mem0", "mem0ai", "chromadb", "sqlite-vec", "letta"),
    ),
    Trait.WEB_FRONTEND: TraitCues(
        words=(
            "frontend",
            "front-end",
            "css",
            "tailwind",
            "tailwindcss",
            "react",
            "jsx",
            "tsx",
            "vue",
            "svelte",
            "dom",
            "core web vitals",
            "web vitals",
            "lcp",
            "cls",
            "fcp",
            "lighthouse",
            "accessibility",
            "a11y",
            "wcag",
            "aria",
            "alt text",
            "lazy load",
            "lazy loading",
            "lazy-load",
            "lazy loaded",
            "design tokens",
            "design token",
            "design system",
            "stylesheet",
            "bundle size",
            "webpack",
            "vite",
            "layout shift",
            "web app",
            "webapp",
            "web performance",
            "visual hierarchy",
            "color contrast",
            "next.js",
            "playwright",
        ),
        extensions=("css", "scss", "jsx", "tsx", "vue", "svelte"),
        dependencies=("react", "react-dom", "vue", "svelte", "tailwindcss", "vite", "next", "preact", "web-vitals"),
        programs=("vite", "lighthouse", "webpack"),
    ),
    Trait.TEXT_CODING: TraitCues(
        words=(
            "codebook",
            "coding scheme",
            "qualitative coding",
            "thematic analysis",
            "thematic coding",
            "rubric",
            "rubrics",
            "scoring rubric",
            "scoring formula",
            "composite score",
            "weighted score",
            "manipulation",
            "persuasion",
            "tactics",
            "urgency",
            "scarcity",
            "social proof",
            "sentiment",
            "jobs to be done",
            "jtbd",
            "motivations",
            "emotional",
            "dimensions",
            "red flags",
            "inter-rater",
            "annotate",
            "annotation",
            "categorize",
            "categorise",
            "tagging",
            "textual evidence",
            "writing style",
            "thinking style",
            "cognitive style",
        ),
    ),
    Trait.PERSONAL_RECORDS: TraitCues(
        words=(
            "birthday",
            "birthdays",
            "anniversary",
            "anniversaries",
            "to-do",
            "to-dos",
            "todo list",
            "to-do list",
            "to-do items",
            "task manager",
            "task tracker",
            "task tracking",
            "personal tasks",
            "overdue",
            "reminder",
            "reminders",
            "remind me",
            "habit",
            "habits",
            "habit tracker",
            "streak",
            "streaks",
            "pomodoro",
            "focus mode",
            "focus session",
            "stay focused",
            "procrastination",
            "accountability",
            "address book",
        ),
    ),
    Trait.DIAGRAMS: TraitCues(
        words=(
            "excalidraw",
            "mermaid",
            "flowchart",
            "flowcharts",
            "flow diagram",
            "flow diagrams",
            "diagram",
            "sequence diagram",
            "architecture diagram",
            "architecture diagrams",
            "state diagram",
            "er diagram",
            "uml",
            "plantuml",
            "graphviz",
            "digraph",
            "draw.io",
            "drawio",
            "diagrams.net",
            "swimlane",
            "decision tree",
            "diagram as code",
            "diagrams as code",
        ),
        extensions=("excalidraw", "mmd", "drawio", "dot", "gv", "puml", "plantuml"),
        dependencies=(
            "mermaid",
            "@mermaid-js/mermaid-cli",
            "graphviz",
            "pydot",
            "plantuml",
            "@excalidraw/excalidraw",
            "@excalidraw/utils",
            "roughjs",
        ),
        programs=("mmdc", "plantuml", "drawio"),
    ),
}
"""How each trait shows. MULTI_FILE_WORKSPACE is always offered: any task can spread its inputs."""

MIN_WORD_HITS = 3
"""Distinct cue words needed for a trait shown by words alone: one word is too weak (e.g. 'table')."""


@dataclass(frozen=True)
class SkillProfile:
    """The fields of a curated skill that selection reads (one row of `selection_inputs_of_domain`)."""

    skill_id: str
    path: str
    domain: str
    name: str
    text: str
    languages: frozenset[str] = frozenset()
    programs: frozenset[str] = frozenset()
    dependencies: frozenset[str] = frozenset()
    extensions: frozenset[str] = frozenset()
    file_kinds: frozenset[str] = frozenset()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> SkillProfile:
        def lowered(values: Iterable[str] | None) -> frozenset[str]:
            return frozenset(str(v).lower() for v in values or () if v)

        text = " ".join(str(row.get(key) or "") for key in ("name", "description", "skill_md_text"))
        return cls(
            skill_id=row["skill_id"],
            path=row["path"],
            domain=row.get("domain") or "other",
            name=row.get("name") or row["path"],
            text=text,
            languages=lowered(row.get("languages")),
            programs=lowered([*(row.get("programs") or ()), *(row.get("cli_tools") or ())]),
            dependencies=lowered(row.get("dependency_names")),
            extensions=lowered(row.get("extensions")),
            file_kinds=lowered(row.get("file_kinds")),
        )


@dataclass(frozen=True)
class TraitEvidence:
    trait: Trait
    strength: float
    """How strongly the skill shows the trait: structural cues count more than words."""
    cues: tuple[str, ...] = field(default=())


_TRAITS_OF_WORD: dict[str, list[Trait]] = {}
for _trait, _cues in CUES.items():
    for _word in _cues.words:
        _TRAITS_OF_WORD.setdefault(_word, []).append(_trait)
_TRAITS_OF_STRUCTURE: dict[tuple[str, str], list[Trait]] = {}
"""(field of the profile, value) → the traits it is a structural cue of."""
for _trait, _cues in CUES.items():
    for _kind in ("extensions", "dependencies", "programs", "languages", "file_kinds"):
        for _value in getattr(_cues, _kind):
            _TRAITS_OF_STRUCTURE.setdefault((_kind, _value), []).append(_trait)
_TOKEN = re.compile(r"[a-z0-9]+")
_PHRASES_BY_TOKEN: dict[str, list[tuple[str, frozenset[str], re.Pattern[str]]]] = {}
"""Cue words with a space, a hyphen or a dot, looked up as phrases (the others as tokens of the text),
under the first of their tokens: a phrase found between word boundaries has each of its tokens among
the text's, so only phrases whose tokens all occur are searched for."""
for _word in _TRAITS_OF_WORD:
    if not _word.isalnum():
        _parts = _TOKEN.findall(_word)
        _PHRASES_BY_TOKEN.setdefault(_parts[0] if _parts else "", []).append(
            (_word, frozenset(_parts), re.compile(r"\b" + re.escape(_word) + r"\b"))
        )


def cue_words(lower: str) -> set[str]:
    """The cue words (tokens and phrases) in a lower-cased text."""
    tokens = set(_TOKEN.findall(lower))
    found = {token for token in tokens if token in _TRAITS_OF_WORD}
    for first in ("", *(tokens & _PHRASES_BY_TOKEN.keys())):
        for word, parts, pattern in _PHRASES_BY_TOKEN.get(first, ()):
            # from the phrase's first occurrence on: `\b` still sees the character before it
            if parts <= tokens and (at := lower.find(word)) >= 0 and pattern.search(lower, at):
                found.add(word)
    return found


def skill_traits(profile: SkillProfile) -> dict[Trait, TraitEvidence]:
    """Every trait the skill offers, with its strength and the cues that showed it."""
    words_of: dict[Trait, set[str]] = {}
    for word in cue_words(profile.text.lower()):
        for trait in _TRAITS_OF_WORD[word]:
            words_of.setdefault(trait, set()).add(word)
    found: dict[Trait, TraitEvidence] = {
        Trait.MULTI_FILE_WORKSPACE: TraitEvidence(Trait.MULTI_FILE_WORKSPACE, 1.0, ("any task can spread its inputs",))
    }
    shown = {trait for trait, words in words_of.items() if len(words) >= MIN_WORD_HITS}
    for kind, present in (
        ("extensions", profile.extensions), ("dependencies", profile.dependencies), ("programs", profile.programs),
        ("languages", profile.languages), ("file_kinds", profile.file_kinds),
    ):  # fmt: skip
        for value in present:
            shown.update(_TRAITS_OF_STRUCTURE.get((kind, value), ()))
    if profile.programs:
        shown.add(Trait.CLI_TOOLS)
    for trait, cues in CUES.items():
        if trait not in shown:  # neither a structural cue nor enough words: the checks below would skip it
            continue
        structural = [
            *_hits("extension", cues.extensions, profile.extensions),
            *_hits("dependency", cues.dependencies, profile.dependencies),
            *_hits("program", cues.programs, profile.programs),
            *_hits("language", cues.languages, profile.languages),
            *_hits("file kind", cues.file_kinds, profile.file_kinds),
        ]
        words = sorted(words_of.get(trait, ()))
        if trait == Trait.CLI_TOOLS and profile.programs:
            structural.append("programs " + ", ".join(sorted(profile.programs)[:4]))
        if not structural and len(words) < MIN_WORD_HITS:
            continue
        strength = min(1.0, 0.4 * len(structural) + 0.1 * len(words))
        cue_list = [*structural, f"mentions {', '.join(words[:4])}"] if words else structural
        found[trait] = TraitEvidence(trait, round(strength, 2), tuple(cue_list))
    return found


def _hits(label: str, wanted: Sequence[str], present: frozenset[str]) -> list[str]:
    return [f"{label} {value}" for value in wanted if value in present]
