"""How many records a deliverable holds: CSV / TSV / XLSX data rows, JSON array items, JSONL or
text lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import jsonpath
from .base import CheckFailed, CheckResult, CheckSpecError, check, max_bytes_param, param, read_text
from .json_equals import load_json
from .tables import TABLE_PARAMS, read_table

FORMATS = ("csv", "tsv", "xlsx", "json", "jsonl", "lines")
_BY_SUFFIX = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}


def format_of(path: str, given: str | None) -> str:
    if given is not None:
        if given not in FORMATS:
            raise CheckSpecError(f"format must be one of {FORMATS}, not {given!r}")
        return given
    return _BY_SUFFIX.get(Path(path).suffix.lower(), "lines")


def count_records(workspace: Path, params: Mapping[str, Any]) -> tuple[int, str]:
    """The number of records in the file `path` names, and what was counted."""
    path = param(params, "path", str)
    kind = format_of(path, param(params, "format", str))
    if kind in ("csv", "tsv", "xlsx"):
        table = read_table(
            workspace,
            {**params, "delimiter": params.get("delimiter") or ("\t" if kind == "tsv" else ",")},
            xlsx=kind == "xlsx",
        )
        return len(table.rows), f"data rows of {path} (after the header)"
    if kind == "json":
        document = load_json(workspace, path, max_bytes_param(params))
        where = param(params, "json_path", str, "$")
        found = jsonpath.find(document, where)
        if len(found) != 1 or not isinstance(found[0][1], (list, dict)):
            raise CheckFailed(f"{path}: {where} is not one list or object", path=path)
        return len(found[0][1]), f"items of {where} in {path}"
    text = read_text(workspace, path, max_bytes_param(params))
    lines = [line for line in text.splitlines() if line.strip()]
    if kind == "jsonl":
        for number, line in enumerate(lines, start=1):
            try:
                json.loads(line)
            except json.JSONDecodeError as exc:
                raise CheckFailed(f"{path} line {number} is not JSON: {exc.msg}", path=path) from exc
            except ValueError as exc:  # an integer of more digits than Python converts
                raise CheckFailed(f"{path} line {number} is not readable JSON: {exc}", path=path) from exc
            except RecursionError as exc:
                raise CheckFailed(f"{path} line {number} nests too deeply to read", path=path) from exc
        return len(lines), f"JSON lines of {path}"
    return len(lines), f"non-blank lines of {path}"


@check(
    "row_count",
    "A deliverable holds `expected` records (or between `min` and `max`): table rows after the header, "
    "JSON array items (at `json_path`), JSONL or non-blank text lines.",
    required=("path",),
    optional=("expected", "min", "max", "format", "json_path", *TABLE_PARAMS),
)
def row_count(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    expected = param(params, "expected", int)
    low = param(params, "min", int)
    high = param(params, "max", int)
    if expected is None and low is None and high is None:
        raise CheckSpecError("row_count needs `expected`, `min` or `max`")
    count, counted = count_records(workspace, params)
    passed = (
        (expected is None or count == expected) and (low is None or count >= low) and (high is None or count <= high)
    )
    wanted = (
        f"= {expected}"
        if expected is not None
        else f"in [{low if low is not None else 0}, {high if high is not None else '∞'}]"
    )
    return CheckResult(
        passed,
        {"summary": f"{count} record(s), wanted {wanted}", "compared": {"counted": counted, "count": count}},
    )
