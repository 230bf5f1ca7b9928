"""Build `SkillRecord`s for curation tests: by hand from SKILL.md text, or from the dev corpus.

Frontmatter is parsed here with `yaml.safe_load` (not with the catalog's parser, which is tested
on its own), and ClawHub metadata is read minimally, so these tests exercise the curation rules
and the signal detectors only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from skill2env.catalog.models import ClawHubMeta, SkillRecord, SkillStatus
from skill2env.catalog.signals import scan_text

RecordFactory = Callable[..., SkillRecord]

_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".json", ".yaml", ".yml", ".csv", ".tsv")
_SKILL_MD_NAMES = {"skill.md", "skills.md"}


def parse_frontmatter(text: str) -> tuple[SkillStatus, dict[str, Any], str | None]:
    """Status, mapping and raw text of a SKILL.md frontmatter, tolerating every error."""
    if not text.startswith("---"):
        return SkillStatus.no_frontmatter, {}, None
    match = _FRONTMATTER.match(text)
    if not match:
        return SkillStatus.frontmatter_error, {}, None
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return SkillStatus.frontmatter_error, {}, match.group(1)
    if not isinstance(data, dict):
        return SkillStatus.frontmatter_error, {}, match.group(1)
    return SkillStatus.ok, data, match.group(1)


def clawhub_from(frontmatter: dict[str, Any]) -> ClawHubMeta | None:
    """ClawHub's metadata block, read just well enough for tests."""
    metadata = frontmatter.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return None
    if not isinstance(metadata, dict):
        return None
    for key in ("openclaw", "clawdbot", "clawdis"):
        block = metadata.get(key)
        if isinstance(block, dict):
            requires: dict[str, Any] = block["requires"] if isinstance(block.get("requires"), dict) else {}
            return ClawHubMeta(
                key=key,
                bins=[str(b) for b in requires.get("bins") or [] if isinstance(b, str)],
                env=[str(e) for e in requires.get("env") or [] if isinstance(e, str)],
                os=[str(o) for o in block.get("os") or [] if isinstance(o, str)],
                primary_env=block.get("primaryEnv") if isinstance(block.get("primaryEnv"), str) else None,
            )
    return None


def build_record(
    skill_md: str,
    *,
    files: dict[str, str] | None = None,
    path: str = "tests/skill",
    skill_md_file: str = "SKILL.md",
    clawhub: ClawHubMeta | None = None,
    **fields: Any,
) -> SkillRecord:
    """A record as the catalog would make it: frontmatter parsed, every text file scanned."""
    status, frontmatter, raw = parse_frontmatter(skill_md)
    texts = {skill_md_file: skill_md, **(files or {})}
    signals = [signal for name, text in texts.items() for signal in scan_text(name, text)]
    name = frontmatter.get("name")
    description = frontmatter.get("description")
    values: dict[str, Any] = {
        "skill_id": "0" * 16,
        "source": path.split("/", 1)[0],
        "path": path,
        "skill_md_file": skill_md_file,
        "status": status,
        "frontmatter_raw": raw,
        "frontmatter": frontmatter,
        "name": name if isinstance(name, str) else None,
        "description": description if isinstance(description, str) else None,
        "skill_md_text": skill_md,
        "skill_md_size": len(skill_md.encode()),
        "body_chars": len(skill_md),
        "clawhub": clawhub if clawhub is not None else clawhub_from(frontmatter),
        "signals": signals,
        "n_files": len(texts),
    }
    values.update(fields)
    return SkillRecord(**values)


def corpus_record(corpus: Path, skill_path: str) -> SkillRecord:
    """A corpus skill folder as a record (scripts are not in the corpus: text files only)."""
    folder = corpus / skill_path
    skill_md_file = next(p.name for p in sorted(folder.iterdir()) if p.name.lower() in _SKILL_MD_NAMES)
    files = {
        str(p.relative_to(folder)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix.lower() in _TEXT_SUFFIXES and p.name != skill_md_file
    }
    skill_md = (folder / skill_md_file).read_text(encoding="utf-8", errors="replace")
    return build_record(skill_md, files=files, path=skill_path, skill_md_file=skill_md_file)


@pytest.fixture
def make_record() -> RecordFactory:
    return build_record


def skill(name: str, description: str, body: str, **extra_frontmatter: Any) -> str:
    """SKILL.md text with a frontmatter built from the arguments."""
    frontmatter = {"name": name, "description": description, **extra_frontmatter}
    return f"---\n{yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True)}---\n\n{body}"


@pytest.fixture
def make_skill() -> Callable[..., str]:
    return skill


@pytest.fixture
def load_corpus_skill(corpus: Path) -> Callable[[str], SkillRecord]:
    """`corpus` (from tests/conftest.py) skips when the dev corpus is absent."""
    return lambda skill_path: corpus_record(corpus, skill_path)
