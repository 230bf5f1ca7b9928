"""Deliverables agree with each other: a value read from one file (a JSON field, a CSV column's
sum or count, a number in a report, a row count) equals the value read from another."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import jsonpath, safe_regex
from .base import CheckFailed, CheckResult, CheckSpecError, check, max_bytes_param, param, read_text, show
from .json_equals import load_json
from .row_count import count_records
from .tables import read_table
from .values import COMPARISON_PARAMS, Comparison, as_number, comparison_from, values_equal

AGGREGATES = ("sum", "count", "distinct_count", "min", "max", "first", "mean")
SOURCE_KEYS = {
    "json_path": "a JSON value: {path, json_path}",
    "csv_column": "a table column, aggregated: {path, csv_column, aggregate (sum), where {column: value}}",
    "regex": "a capture group in a text file: {path, regex, group (1)}",
    "count": "a record count: {path, count: rows}",
}


def _column_values(workspace: Path, source: Mapping[str, Any], comparison: Comparison) -> list[Any]:
    table = read_table(workspace, source)
    column = param(source, "csv_column", str)
    if column not in table.columns:
        raise CheckFailed(f"{source['path']} has no column {column!r} (columns: {table.columns})", path=source["path"])
    index = table.columns.index(column)
    where = param(source, "where", dict, {})
    for name in where:
        if name not in table.columns:
            raise CheckFailed(f"{source['path']} has no column {name!r} to filter on", path=source["path"])
    filters = [(table.columns.index(name), value) for name, value in where.items()]
    return [
        row[index]
        for row in table.rows
        if all(values_equal(value, row[at] if at < len(row) else "", comparison) for at, value in filters)
    ]


def _aggregate(values: list[Any], how: str, where: str) -> Any:
    if how == "count":
        return len(values)
    if how == "distinct_count":
        return len({str(v).strip() for v in values})
    if how == "first":
        if not values:
            raise CheckFailed(f"{where}: no rows to take a first value from")
        return values[0]
    numbers = []
    for value in values:
        number = as_number(value)
        if number is None and str(value).strip():
            raise CheckFailed(f"{where}: {show(value)} is not a number", value=str(value))
        if number is not None:
            numbers.append(number)
    if how == "sum":
        return sum(numbers)
    if not numbers:
        raise CheckFailed(f"{where}: no numbers to take the {how} of")
    if how == "mean":
        return sum(numbers) / len(numbers)
    return min(numbers) if how == "min" else max(numbers)


def extract(workspace: Path, source: Mapping[str, Any], comparison: Comparison) -> Any:
    """The value one source describes (see SOURCE_KEYS)."""
    if not isinstance(source, Mapping) or not isinstance(source.get("path"), str):
        raise CheckSpecError(f"each source needs a `path`: {source!r}")
    path = source["path"]
    kinds = [key for key in SOURCE_KEYS if key in source]
    if len(kinds) != 1:
        raise CheckSpecError(f"each source names exactly one of {list(SOURCE_KEYS)}: {dict(source)}")
    kind = kinds[0]
    if kind == "json_path":
        expression = param(source, "json_path", str)
        found = jsonpath.find(load_json(workspace, path, max_bytes_param(source)), expression)
        if not found:
            raise CheckFailed(f"{path}: no value at {expression}", path=path)
        return found[0][1] if not jsonpath.has_wildcard(expression) else [v for _, v in found]
    if kind == "csv_column":
        how = param(source, "aggregate", str, "sum")
        if how not in AGGREGATES:
            raise CheckSpecError(f"aggregate must be one of {AGGREGATES}, not {how!r}")
        return _aggregate(_column_values(workspace, source, comparison), how, f"{path} column {source['csv_column']}")
    if kind == "regex":
        expression = param(source, "regex", str)
        try:
            pattern = safe_regex.compile(expression, re.MULTILINE)
        except (re.error, safe_regex.UnsupportedPattern) as exc:
            raise CheckSpecError(safe_regex.describe(expression, exc)) from exc
        match = pattern.search(read_text(workspace, path, max_bytes_param(source)))
        if match is None:
            raise CheckFailed(f"{path}: nothing matches {source['regex']!r}", path=path)
        group = param(source, "group", (int, str), 1 if pattern.groups else 0)
        return match.group(group)
    if source["count"] != "rows":
        raise CheckSpecError("a count source is {path, count: rows}")
    return count_records(workspace, {k: v for k, v in source.items() if k not in ("count",)})[0]


def describe(source: Mapping[str, Any]) -> str:
    path = source.get("path")
    if "json_path" in source:
        return f"{path} {source['json_path']}"
    if "csv_column" in source:
        where = f" where {source['where']}" if source.get("where") else ""
        return f"{source.get('aggregate', 'sum')}({path}[{source['csv_column']}]){where}"
    if "regex" in source:
        return f"{path} /{source['regex']}/"
    return f"rows of {path}"


@check(
    "cross_file_consistent",
    "Values read from several deliverables (JSON fields, CSV column aggregates, numbers in text, row "
    "counts) all agree, within tolerance; optionally they also equal `expected`.",
    required=("sources",),
    optional=("expected", *COMPARISON_PARAMS),
)
def cross_file_consistent(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    sources = param(params, "sources", list)
    if len(sources) < 2 and "expected" not in params:
        raise CheckSpecError("cross_file_consistent compares at least two sources (or one with `expected`)")
    comparison = comparison_from(params)
    read: list[dict[str, Any]] = []
    problems: list[str] = []
    for source in sources:
        try:
            value = extract(workspace, source, comparison)
        except CheckFailed as exc:
            read.append({"source": describe(source), "problem": exc.summary})
            problems.append(exc.summary)
            continue
        read.append({"source": describe(source), "value": value})
    values = [entry["value"] for entry in read if "value" in entry]
    reference = params["expected"] if "expected" in params else (values[0] if values else None)
    disagreeing = [
        f"{entry['source']} = {show(entry['value'])} ≠ {show(reference)}"
        for entry in read
        if "value" in entry and not _same(reference, entry["value"], comparison)
    ]
    problems += disagreeing
    return CheckResult(
        not problems,
        {
            "summary": "all agree" if not problems else "; ".join(problems[:3]),
            "compared": {"values": read, "reference": reference},
        },
    )


def _same(left: Any, right: Any, comparison: Comparison) -> bool:
    if isinstance(left, list) or isinstance(right, list):
        return (
            isinstance(left, list)
            and isinstance(right, list)
            and len(left) == len(right)
            and all(values_equal(a, b, comparison) for a, b in zip(left, right, strict=False))
        )
    return values_equal(left, right, comparison)
