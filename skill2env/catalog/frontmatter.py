"""Lenient YAML frontmatter parsing for SKILL.md files.

A SKILL.md starts with a YAML block fenced by `---` lines, followed by the Markdown body.
Real skills get this wrong in many ways (unquoted colons in descriptions, broken inline JSON,
CRLF line endings, a BOM), so parsing never raises: it reports a status and recovers what it can.

Decisions on odd input:

* A UTF-8 BOM, CRLF / CR line endings and blank lines before the opening fence are tolerated;
  line endings are normalised to `\\n` in `raw` and `body`.
* The closing fence is the first later line that is `---` or `...` (trailing spaces allowed).
* An opening fence with no closing fence is reported as `yaml_error`: the lines after the fence
  up to the first blank line are taken as the (unterminated) frontmatter, their top-level keys are
  recovered, and the body is everything after them.
* When the YAML does not parse, top-level `key: value` entries are recovered one by one, so a
  broken `metadata:` line does not lose `name` and `description`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any, Literal

import yaml
from pydantic import BaseModel

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

FrontmatterStatus = Literal["ok", "none", "yaml_error", "not_mapping"]

_MAX_DEPTH = 64
"""Deeper nesting is stringified: guards against self-referencing YAML anchors."""
_MAX_NODES = 20_000
"""Alias-heavy YAML ("billion laughs") expands past this and is rejected."""

_OPENING_FENCE_RE = re.compile(r"\A\s*?^---[ \t]*(?:\n|\Z)", re.MULTILINE)
# Starts with a literal "\n" rather than `^` so the search can skip ahead quickly in a long file.
_CLOSING_FENCE_RE = re.compile(r"\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_BLANK_LINE_RE = re.compile(r"^[ \t]*$", re.MULTILINE)
_TOP_LEVEL_KEY_RE = re.compile(r"^([^\s#\-][^:\n]*?)[ \t]*:(?:[ \t]+|$)(.*)$")
_SIMPLE_ENTRY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S(?:[^\n]*\S)?)[ ]*")
_RESOLVED_WORDS = frozenset({"yes", "no", "true", "false", "on", "off", "null"})
"""Plain scalars YAML 1.1 reads as booleans or null, in any letter case: left to the YAML parser."""


class ParsedFrontmatter(BaseModel):
    """Result of splitting a SKILL.md into frontmatter and body."""

    status: FrontmatterStatus
    raw: str | None
    """Text between the fences; None when there is no frontmatter."""
    data: dict[str, Any]
    """Parsed (or, on `yaml_error`, recovered) mapping with JSON-safe values."""
    body: str
    """Markdown after the frontmatter (the whole text when there is none)."""
    error: str | None
    """One-line reason for `yaml_error` / `not_mapping`."""


def parse_frontmatter(text: str) -> ParsedFrontmatter:
    """Split `text` into frontmatter and body and parse the frontmatter leniently. Never raises."""
    if not isinstance(text, str):
        text = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else ""
    text = _normalise_newlines(text.removeprefix("\ufeff"))
    opening = _OPENING_FENCE_RE.match(text)
    if opening is None:
        return ParsedFrontmatter(status="none", raw=None, data={}, body=text, error=None)

    start = opening.end()
    # From the opening fence's own newline, so that an empty block (`---\n---`) closes at once.
    closing = _CLOSING_FENCE_RE.search(text, max(start - 1, 0))
    if closing is None:
        return _parse_unterminated(text, start)
    return _parse_block(text[start : max(closing.start(), start)], text[closing.end() :])


def _normalise_newlines(text: str) -> str:
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parse_unterminated(text: str, start: int) -> ParsedFrontmatter:
    blank = _BLANK_LINE_RE.search(text, start)
    end = blank.start() if blank else len(text)
    raw = text[start:end].removesuffix("\n")
    body = text[end:].lstrip("\n")
    return ParsedFrontmatter(
        status="yaml_error",
        raw=raw,
        data=_recover_top_level(raw),
        body=body,
        error="frontmatter has an opening '---' but no closing fence",
    )


def _parse_block(raw: str, body: str) -> ParsedFrontmatter:
    simple = _simple_mapping(raw)
    if simple is not None:
        return ParsedFrontmatter(status="ok", raw=raw, data=simple, body=body, error=None)
    try:
        loaded = _to_json_safe(yaml.load(raw, Loader=_Loader), 0, [0])  # noqa: S506 - safe loader
    except Exception as exc:  # any YAML or conversion failure is a parse error, never a crash
        return ParsedFrontmatter(
            status="yaml_error",
            raw=raw,
            data=_recover_top_level(raw),
            body=body,
            error=_one_line(exc),
        )
    if loaded is None:
        # An empty block (`---\n---`) is an empty mapping, not a type error.
        return ParsedFrontmatter(status="ok", raw=raw, data={}, body=body, error=None)
    if not isinstance(loaded, dict):
        return ParsedFrontmatter(
            status="not_mapping",
            raw=raw,
            data={},
            body=body,
            error=f"frontmatter is a YAML {_yaml_kind(loaded)}, not a mapping",
        )
    return ParsedFrontmatter(status="ok", raw=raw, data=loaded, body=body, error=None)


def _simple_mapping(raw: str) -> dict[str, str] | None:
    """The mapping of a block whose every line is `key: text` with text YAML reads as that very
    string (half of real frontmatter); None for anything else, which goes to the YAML parser.

    Plain text must start with a letter (no number, date, indicator or quote), hold no `: ` or ` #`,
    not end in `:` and not be a boolean or null word; quoted text must need no escapes.
    """
    data: dict[str, str] = {}
    for line in raw.split("\n"):
        entry = _SIMPLE_ENTRY_RE.fullmatch(line)
        if entry is None:
            return None
        key, value = entry.groups()
        if key.lower() in _RESOLVED_WORDS:
            return None
        quote = value[0]
        if quote in "\"'":
            inner = value[1:-1]
            if len(value) < 2 or value[-1] != quote or quote in inner or "\\" in inner or not inner.isprintable():
                return None
            data[key] = inner
            continue
        plain = quote.isascii() and quote.isalpha() and value.lower() not in _RESOLVED_WORDS
        if not plain or ": " in value or " #" in value or value.endswith(":") or not value.isprintable():
            return None
        data[key] = value
    return data


def _one_line(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    if isinstance(exc, _TooComplexError):
        return message[:300]
    return f"{type(exc).__name__}: {message}"[:300]


def _yaml_kind(value: object) -> str:
    if isinstance(value, list):
        return "list"
    return "scalar"


class _TooComplexError(ValueError):
    pass


def _to_json_safe(value: Any, depth: int, budget: list[int]) -> Any:
    """Convert a loaded YAML value to JSON-serialisable Python (str keys, ISO dates, no NaN)."""
    budget[0] += 1
    if budget[0] > _MAX_NODES:
        raise _TooComplexError(f"frontmatter expands to more than {_MAX_NODES} values")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if depth >= _MAX_DEPTH:
        return str(value)[:200]
    if isinstance(value, dict):
        return {_key_to_str(k): _to_json_safe(v, depth + 1, budget) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_to_json_safe(item, depth + 1, budget) for item in value]
    return str(value)


def _key_to_str(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, dt.date | dt.datetime):
        return key.isoformat()
    return str(key)


def _recover_top_level(raw: str) -> dict[str, Any]:
    """Best-effort: parse each top-level `key: ...` entry on its own, falling back to the raw text."""
    recovered: dict[str, Any] = {}
    for chunk in _top_level_chunks(raw):
        key, first_value, whole = chunk
        value = _parse_chunk(whole, key)
        if value is _UNPARSED:
            if not first_value:
                continue
            value = _unquote(first_value)
        recovered.setdefault(key, value)
    return recovered


def _top_level_chunks(raw: str) -> list[tuple[str, str, str]]:
    """Group lines into (key, text after `key:` on its line, whole entry text) per top-level key."""
    chunks: list[tuple[str, str, str]] = []
    current: list[str] = []
    key = first_value = ""
    for line in raw.split("\n"):
        match = _TOP_LEVEL_KEY_RE.match(line)
        if match is not None:
            if current:
                chunks.append((key, first_value, "\n".join(current)))
            key, first_value = _unquote(match.group(1).strip()), match.group(2).strip()
            current = [line]
        elif current:
            current.append(line)
    if current:
        chunks.append((key, first_value, "\n".join(current)))
    return chunks


_UNPARSED = object()


def _parse_chunk(chunk: str, key: str) -> Any:
    try:
        loaded = yaml.load(chunk, Loader=_Loader)  # noqa: S506 - safe loader
        if not isinstance(loaded, dict) or len(loaded) != 1:
            return _UNPARSED
        return _to_json_safe(next(iter(loaded.values())), 0, [0])
    except Exception:  # a broken entry falls back to its raw text
        return _UNPARSED


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
