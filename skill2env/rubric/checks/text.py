"""Text deliverables: required (or forbidden) phrases, and regular expressions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import safe_regex
from .base import CheckResult, CheckSpecError, check, clip, max_bytes_param, param, read_text, string_list

FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}
CONTEXT_CHARS = 60
MAX_SHOWN = 10


def normalized(text: str, *, ignore_case: bool, whitespace: bool) -> str:
    if whitespace:
        text = " ".join(text.split())
    return text.casefold() if ignore_case else text


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def excerpt(text: str, start: int, end: int) -> str:
    before = text[max(0, start - CONTEXT_CHARS) : start]
    after = text[end : end + CONTEXT_CHARS]
    return clip(f"…{before}⟦{text[start:end]}⟧{after}…".replace("\n", "⏎"), 240)


@check(
    "text_contains",
    "A text file contains every phrase of `contains` and none of `absent` (case / whitespace optionally ignored).",
    required=("path",),
    optional=("contains", "absent", "ignore_case", "normalize_whitespace", "max_bytes"),
)
def text_contains(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    wanted = string_list(params, "contains")
    forbidden = string_list(params, "absent")
    if not wanted and not forbidden:
        raise CheckSpecError("text_contains needs `contains` and/or `absent`")
    ignore_case = param(params, "ignore_case", bool, False)
    whitespace = param(params, "normalize_whitespace", bool, False)
    raw = read_text(workspace, path, max_bytes_param(params))
    text = normalized(raw, ignore_case=ignore_case, whitespace=whitespace)
    found: list[dict[str, Any]] = []
    missing: list[str] = []
    present: list[str] = []
    for phrase, required in [(p, True) for p in wanted] + [(p, False) for p in forbidden]:
        needle = normalized(phrase, ignore_case=ignore_case, whitespace=whitespace)
        at = text.find(needle)
        if at >= 0:
            found.append({"phrase": phrase, "line": line_of(text, at), "excerpt": excerpt(text, at, at + len(needle))})
            if not required:
                present.append(phrase)
        elif required:
            missing.append(phrase)
    problems = [f"missing {clip(p, 80)!r}" for p in missing] + [f"forbidden {clip(p, 80)!r} present" for p in present]
    return CheckResult(
        not missing and not present,
        {
            "summary": "; ".join(problems) if problems else f"all {len(wanted)} phrase(s) present, none forbidden",
            "compared": {"path": path, "contains": wanted, "absent": forbidden, "ignore_case": ignore_case},
            "missing": missing,
            "forbidden_present": present,
            "found": found,
        },
    )


@check(
    "text_matches",
    "A regular expression matches a text file between `min_count` and `max_count` times (or the whole file); "
    "matched in linear time, so backreferences and lookarounds longer than one character are refused.",
    required=("path", "pattern"),
    optional=("flags", "min_count", "max_count", "full_match", "max_bytes"),
)
def text_matches(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    source = param(params, "pattern", str)
    flags = 0
    for name in string_list(params, "flags"):
        if name.upper() not in FLAGS:
            raise CheckSpecError(f"unknown regex flag {name!r}; use {sorted(FLAGS)}")
        flags |= FLAGS[name.upper()]
    try:
        pattern = safe_regex.compile(source, flags)
    except (re.error, safe_regex.UnsupportedPattern) as exc:
        raise CheckSpecError(safe_regex.describe(source, exc)) from exc
    min_count = param(params, "min_count", int, 1)
    max_count = param(params, "max_count", int)
    text = read_text(workspace, path, max_bytes_param(params))
    compared = {"path": path, "pattern": source, "flags": string_list(params, "flags")}
    if param(params, "full_match", bool, False):
        whole = pattern.fullmatch(text)
        return CheckResult(
            whole is not None,
            {
                "summary": "the whole file matches" if whole else "the file as a whole does not match",
                "compared": compared,
                "head": clip(text, 300),
            },
        )
    shown: list[dict[str, Any]] = []
    count = 0
    for start, end in pattern.iter_spans(text):
        count += 1
        if len(shown) < MAX_SHOWN:
            shown.append({"line": line_of(text, start), "excerpt": excerpt(text, start, end)})
    passed = count >= min_count and (max_count is None or count <= max_count)
    bounds = f"≥ {min_count}" + (f" and ≤ {max_count}" if max_count is not None else "")
    return CheckResult(
        passed,
        {
            "summary": f"{count} match(es), wanted {bounds}",
            "compared": {**compared, "min_count": min_count, "max_count": max_count},
            "matches": shown,
        },
    )
