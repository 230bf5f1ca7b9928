"""Profile one skill folder: read its files once and extract every catalog fact."""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath
from typing import Any, Literal

from skill2env.catalog.clawhub import clawhub_meta
from skill2env.catalog.discover import ListedFile, SkillFolder, points_outside
from skill2env.catalog.files import SKILL_MD_READ_CAP, FileContent, kind_of, language_of, read_file
from skill2env.catalog.frontmatter import ParsedFrontmatter, parse_frontmatter
from skill2env.catalog.models import SkillFile, SkillRecord, SkillStatus
from skill2env.catalog.requirements import TextSource, extract_requirements
from skill2env.catalog.signals import scan_text
from skill2env.catalog.spec import spec_findings
from skill2env.curation.domains import classify_domain

FRONTMATTER_STATUS = {
    "ok": SkillStatus.ok,
    "none": SkillStatus.no_frontmatter,
    "yaml_error": SkillStatus.frontmatter_error,
    "not_mapping": SkillStatus.frontmatter_error,
}


def profile_skill(folder: SkillFolder) -> SkillRecord:
    """Build the `SkillRecord` of one discovered folder. Never raises on bad content."""
    files: list[SkillFile] = []
    sources: list[TextSource] = []
    skill_md: FileContent | None = None
    base = str(folder.abspath)
    for listed in folder.files:
        is_skill_md = listed.relpath == folder.skill_md_file
        entry, content = _inventory_file(folder, base, listed, is_skill_md)
        files.append(entry)
        if content is not None and content.text is not None:
            sources.append(TextSource(listed.relpath, content.text, entry.language))
        if is_skill_md:
            skill_md = content
    record = _skill_record(folder, files, sources, skill_md)
    record.domain = classify_domain(record)
    return record


def profile_or_error(folder: SkillFolder) -> SkillRecord:
    """`profile_skill`, or a row with status `error` when it fails: one folder never loses the catalog."""
    try:
        return profile_skill(folder)
    except Exception as exc:
        return SkillRecord(
            skill_id=hashlib.sha256(f"error\0{folder.relpath}".encode()).hexdigest()[:16],
            source=_source(folder),
            path=folder.relpath,
            skill_md_file=folder.skill_md_file,
            status=SkillStatus.error,
            reason=f"{type(exc).__name__}: {exc}"[:500],
            nested_in=folder.nested_in,
            domain="other",
            n_files=folder.n_files,
            total_bytes=folder.total_bytes,
        )


def _source(folder: SkillFolder) -> str:
    return folder.relpath.split("/", 1)[0] if folder.relpath != "." else folder.root.name


def _inventory_file(
    folder: SkillFolder, base: str, listed: ListedFile, is_skill_md: bool
) -> tuple[SkillFile, FileContent | None]:
    """`base` is the folder's absolute path as a string (joined with `+`: pathlib costs more per file)."""
    relpath = listed.relpath
    if listed.is_symlink:
        outside = points_outside(folder.root, folder.abspath / relpath, listed.symlink_target)
        reason = "symlink to outside the skills root; not followed" if outside else "symlink; not followed"
        return _bare_file(relpath, listed.size, is_text=False, status="skipped", reason=reason,
                          is_symlink=True, target=listed.symlink_target), None  # fmt: skip
    if not listed.is_regular:
        return _bare_file(relpath, listed.size, is_text=False, status="skipped",
                          reason="not a regular file"), None  # fmt: skip
    path = base + "/" + relpath
    content = read_file(path, listed.size, SKILL_MD_READ_CAP) if is_skill_md else read_file(path, listed.size)
    language = language_of(relpath, _first_line(content.text))
    return SkillFile(
        path=relpath,
        size=listed.size,
        sha256=content.sha256,
        kind=kind_of(relpath, language, content.is_text, is_skill_md),
        language=language,
        is_text=content.is_text,
        truncated=content.truncated,
        status=content.status,
        reason=content.error,
    ), content


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    end = text.find("\n")
    return text if end < 0 else text[:end]


def _bare_file(
    relpath: str,
    size: int,
    *,
    is_text: bool,
    status: Literal["ok", "skipped", "unreadable"],
    reason: str,
    is_symlink: bool = False,
    target: str | None = None,
) -> SkillFile:
    return SkillFile(
        path=relpath,
        size=size,
        sha256=None,
        kind=kind_of(relpath, None, is_text, False),
        language=language_of(relpath),
        is_text=is_text,
        is_symlink=is_symlink,
        symlink_target=target,
        status=status,
        reason=reason,
    )


def content_digest(files: list[SkillFile]) -> str:
    """Stable id of a skill's content: the same files with the same bytes give the same id."""
    digest = hashlib.sha256()
    for item in sorted(files, key=lambda f: f.path):
        digest.update(f"{item.path}\0{item.sha256 or item.symlink_target or item.size}\n".encode())
    return digest.hexdigest()[:16]


def _skill_record(
    folder: SkillFolder, files: list[SkillFile], sources: list[TextSource], skill_md: FileContent | None
) -> SkillRecord:
    source = _source(folder)
    base: dict[str, Any] = {
        "skill_id": content_digest(files),
        "source": source,
        "path": folder.relpath,
        "skill_md_file": folder.skill_md_file,
        "nested_in": folder.nested_in,
        "n_files": folder.n_files,
        "total_bytes": folder.total_bytes,
        "inventory_truncated": folder.n_files > len(files),
        "files": files,
        "languages": sorted({f.language for f in files if f.language and f.kind != "skill_md"}),
    }
    md_entry = next((f for f in files if f.path == folder.skill_md_file), None)
    if skill_md is None or skill_md.text is None:
        reason = (md_entry.reason if md_entry else None) or "SKILL.md is binary or unreadable"
        return SkillRecord(status=SkillStatus.unreadable, reason=reason,
                           skill_md_size=md_entry.size if md_entry else 0, **base)  # fmt: skip
    parsed = parse_frontmatter(skill_md.text)
    return _parsed_record(folder, base, parsed, skill_md, md_entry, sources)


def _parsed_record(
    folder: SkillFolder,
    base: dict[str, Any],
    parsed: ParsedFrontmatter,
    skill_md: FileContent,
    md_entry: SkillFile | None,
    sources: list[TextSource],
) -> SkillRecord:
    clawhub = clawhub_meta(parsed.data)
    requirements = extract_requirements(sources, parsed.data, clawhub)
    signals = [signal for source in sources for signal in scan_text(source.path, source.text)]
    folder_name = PurePosixPath(folder.relpath).name if folder.relpath != "." else folder.root.name
    return SkillRecord(
        status=FRONTMATTER_STATUS[parsed.status],
        reason=parsed.error,
        frontmatter_raw=parsed.raw,
        frontmatter=parsed.data,
        name=_text_field(parsed.data.get("name")),
        description=_text_field(parsed.data.get("description")),
        skill_md_text=skill_md.text or "",
        skill_md_size=md_entry.size if md_entry else 0,
        body_chars=len(parsed.body),
        text_encoding=skill_md.encoding,
        spec_findings=spec_findings(parsed, folder_name=folder_name, skill_md_file=folder.skill_md_file),
        clawhub=clawhub,
        programs=requirements.programs,
        cli_tools=requirements.cli_tools,
        dependencies=requirements.dependencies,
        env_vars=requirements.env_vars,
        signals=signals,
        **base,
    )


def _text_field(value: object) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text.strip() or None
