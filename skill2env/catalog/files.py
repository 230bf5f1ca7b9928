"""Read one file of a skill safely: hash it, classify it, and decode its head when it is text."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from skill2env.catalog.models import FileKind

TEXT_READ_CAP = 256 * 1024
"""Bytes of a text file that are decoded and scanned; the rest is hashed but not scanned."""
SKILL_MD_READ_CAP = 1024 * 1024
HASH_CAP = 64 * 1024 * 1024
"""Files larger than this are listed with their size but neither hashed nor read."""
_CHUNK = 1024 * 1024

LANGUAGE_BY_SUFFIX = {
    ".py": "python", ".pyw": "python", ".ipynb": "jupyter",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript",
    ".rb": "ruby", ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".swift": "swift",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
    ".php": "php", ".pl": "perl", ".lua": "lua", ".r": "r", ".jl": "julia", ".scala": "scala",
    ".ps1": "powershell", ".psm1": "powershell", ".bat": "batch", ".cmd": "batch",
    ".applescript": "applescript", ".scpt": "applescript", ".sql": "sql",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".rst": "restructuredtext",
    ".html": "html", ".htm": "html", ".css": "css", ".scss": "css", ".xml": "xml", ".svg": "xml",
    ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".tex": "latex",
    ".dockerfile": "dockerfile",
}  # fmt: skip
LANGUAGE_BY_NAME = {"dockerfile": "dockerfile", "makefile": "make", "justfile": "just"}
SHEBANG_LANGUAGES = {
    "python": "python", "python3": "python", "bash": "shell", "sh": "shell", "zsh": "shell",
    "node": "javascript", "deno": "typescript", "bun": "javascript", "ruby": "ruby", "perl": "perl",
    "osascript": "applescript", "pwsh": "powershell",
}  # fmt: skip
SCRIPT_LANGUAGES = frozenset(
    {
        "python", "jupyter", "shell", "javascript", "typescript", "ruby", "go", "rust", "java",
        "kotlin", "swift", "c", "cpp", "csharp", "php", "perl", "lua", "r", "julia", "scala",
        "powershell", "batch", "applescript", "sql",
    }
)  # fmt: skip
DATA_SUFFIXES = frozenset({".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".yaml", ".yml", ".xml", ".parquet"})
CONFIG_NAMES = frozenset(
    {
        "package.json", "package-lock.json", "requirements.txt", "pyproject.toml", "setup.py",
        "setup.cfg", "cargo.toml", "go.mod", "go.sum", "gemfile", "dockerfile", "makefile",
        "environment.yml", "tsconfig.json", "_meta.json", ".env.example", "pnpm-lock.yaml", "yarn.lock",
    }
)  # fmt: skip
CONFIG_SUFFIXES = frozenset({".toml", ".ini", ".cfg", ".conf", ".lock", ".env"})
TEMPLATE_SUFFIXES = frozenset({".j2", ".jinja", ".jinja2", ".hbs", ".mustache", ".tmpl", ".template"})
BINARY_SUFFIXES = frozenset(
    {
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tiff", ".pdf", ".zip", ".gz",
        ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".whl", ".jar", ".exe", ".dll", ".so", ".dylib",
        ".bin", ".woff", ".woff2", ".ttf", ".otf", ".mp3", ".mp4", ".wav", ".mov", ".docx", ".xlsx",
        ".pptx", ".sqlite", ".db", ".pyc", ".onnx", ".pt", ".gguf",
    }
)  # fmt: skip
REFERENCE_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".html", ".htm"})
LICENSE_PREFIXES = ("license", "licence", "copying", "notice", "third_party_notices")


@dataclass(frozen=True)
class FileContent:
    """What reading one file gave: its digest and, for text, its decoded head."""

    sha256: str | None
    is_text: bool
    text: str | None
    truncated: bool
    encoding: str
    """`utf-8`, `utf-8-replaced` (invalid bytes replaced) or `binary`."""
    error: str | None = None
    status: Literal["ok", "skipped", "unreadable"] = "ok"


def read_file(path: str, size: int, text_cap: int = TEXT_READ_CAP) -> FileContent:
    """Hash a regular file and decode its first `text_cap` bytes when it looks like text.

    Opened with O_NOFOLLOW, so a file swapped for a symlink after listing is refused.
    """
    if size > HASH_CAP:
        return FileContent(None, False, None, True, "binary", f"larger than {HASH_CAP} bytes; not read", "skipped")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return FileContent(None, False, None, False, "binary", f"cannot open: {exc.strerror}", "unreadable")
    try:
        with os.fdopen(fd, "rb") as handle:
            head = handle.read(max(text_cap, _CHUNK))
            digest = hashlib.sha256(head)
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        return FileContent(None, False, None, False, "binary", f"cannot read: {exc.strerror}", "unreadable")
    return _decode(digest.hexdigest(), head, size, text_cap)


def _decode(sha256: str, head: bytes, size: int, text_cap: int) -> FileContent:
    if b"\x00" in head[:8192]:
        return FileContent(sha256, False, None, False, "binary")
    capped = head[:text_cap]
    truncated = size > text_cap
    try:
        return FileContent(sha256, True, capped.decode("utf-8"), truncated, "utf-8")
    except UnicodeDecodeError as exc:
        # A cap can cut a multi-byte character; only a failure before the last 3 bytes is real.
        if truncated and exc.start >= len(capped) - 3:
            return FileContent(sha256, True, capped[: exc.start].decode("utf-8"), truncated, "utf-8")
        return FileContent(sha256, True, capped.decode("utf-8", "replace"), truncated, "utf-8-replaced")


def language_of(relpath: str, first_line: str | None = None) -> str | None:
    """Programming / markup language by file name, extension, or shebang."""
    name = relpath.rsplit("/", 1)[-1].lower()
    if name in LANGUAGE_BY_NAME:
        return LANGUAGE_BY_NAME[name]
    suffix = _suffix(name)
    if suffix in LANGUAGE_BY_SUFFIX:
        return LANGUAGE_BY_SUFFIX[suffix]
    if first_line and first_line.startswith("#!"):
        return _shebang_language(first_line)
    return None


def _suffix(name: str) -> str:
    """`.py` for `run.py`, '' for `Makefile` and for dot-files such as `.env` (as pathlib does)."""
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def _shebang_language(line: str) -> str | None:
    words = line[2:].strip().split()
    if not words:
        return None
    interpreter = PurePosixPath(words[0]).name
    if interpreter == "env":
        arguments = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        interpreter = arguments[0] if arguments else ""
    interpreter = interpreter.rstrip("0123456789.")
    return SHEBANG_LANGUAGES.get(interpreter)


def kind_of(relpath: str, language: str | None, is_text: bool, is_skill_md: bool) -> FileKind:
    """Coarse role of a file inside a skill folder."""
    if is_skill_md:
        return FileKind.skill_md
    *folders, name = relpath.lower().split("/")
    suffix = _suffix(name)
    if name.startswith(LICENSE_PREFIXES):
        return FileKind.license
    if name in CONFIG_NAMES:
        return FileKind.config
    if suffix in TEMPLATE_SUFFIXES or "templates" in folders or "template" in folders:
        return FileKind.template
    if language in SCRIPT_LANGUAGES:
        return FileKind.script
    if suffix in DATA_SUFFIXES:
        return FileKind.data
    if suffix in CONFIG_SUFFIXES:
        return FileKind.config
    if suffix in REFERENCE_SUFFIXES or language in ("markdown", "restructuredtext", "html", "latex"):
        return FileKind.reference
    if suffix in BINARY_SUFFIXES or not is_text:
        return FileKind.binary
    return FileKind.other
