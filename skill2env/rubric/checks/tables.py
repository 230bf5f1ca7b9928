"""Reading tables: CSV / TSV text, and XLSX sheets where openpyxl is installed; expected tables
from a check's params."""

from __future__ import annotations

import csv
import io
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import CheckFailed, CheckSpecError, max_bytes_param, param, read_text, tests_file, workspace_file

TABLE_PARAMS = ("delimiter", "sheet", "max_bytes")
EXPECTED_PARAMS = ("expected", "expected_csv", "expected_file")


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Any]]
    """Cells as read: strings from CSV, typed values from XLSX; short rows padded with ''."""


def parse_csv(text: str, delimiter: str = ",", *, source: str = "csv") -> Table:
    """A table from CSV text: the first row is the header; blank lines are skipped."""
    try:
        records = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if row]
    except csv.Error as exc:
        raise CheckFailed(f"{source} is not valid CSV: {exc}", path=source) from exc
    if not records:
        return Table([], [])
    columns = [c.strip() for c in records[0]]
    width = len(columns)
    rows = [row + [""] * (width - len(row)) if len(row) < width else row for row in records[1:]]
    return Table(columns, rows)


def _xlsx(path: Path, sheet: str | None, shown: str) -> Table:
    try:
        import openpyxl
    except ImportError as exc:  # the environment lacks it: the verifier cannot judge
        raise CheckSpecError("reading .xlsx needs openpyxl, which this environment lacks") from exc
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise CheckFailed(f"{shown} is not a readable XLSX workbook: {exc}", path=shown) from exc
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise CheckFailed(f"{shown} has no sheet {sheet!r} (sheets: {book.sheetnames})", path=shown)
        records = [
            ["" if v is None else v for v in row]
            for row in book[sheet or book.sheetnames[0]].iter_rows(values_only=True)
            if any(v is not None and v != "" for v in row)
        ]
    finally:
        book.close()
    if not records:
        return Table([], [])
    columns = [str(c).strip() for c in records[0]]
    while columns and columns[-1] == "":
        columns.pop()
    return Table(columns, [row[: len(columns)] for row in records[1:]])


_CACHE: OrderedDict[tuple[Any, ...], Table] = OrderedDict()
CACHE_BYTES = 64 << 20
"""Parsed tables are kept (up to this much source) while their file is unchanged: several items of
one rubric often read the same deliverable. Checks never modify a Table."""


def clear_cache() -> None:
    """Forget parsed tables (the verifier starts every run with an empty cache)."""
    _CACHE.clear()


def _cached(key: tuple[Any, ...], size: int, load: Callable[[], Table]) -> Table:
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    table = load()
    if size <= CACHE_BYTES:
        _CACHE[key] = table
        while sum(k[-1] for k in _CACHE) > CACHE_BYTES:
            _CACHE.popitem(last=False)
    return table


def _identity(path: Path, *options: Any) -> tuple[Any, ...]:
    """What tells one version of a file from another within a verifier run, the size last."""
    stat = path.stat()
    return (str(path.resolve()), stat.st_ino, stat.st_mtime_ns, *options, stat.st_size)


def read_table(workspace: Path, params: Mapping[str, Any], name: str = "path") -> Table:
    """The workspace table named by param `name`: `.xlsx` through openpyxl, anything else as
    delimited text (`delimiter`, default tab for `.tsv` and comma otherwise)."""
    path = param(params, name, str)
    full = workspace_file(workspace, path)
    if path.lower().endswith((".xlsx", ".xlsm")):
        sheet = param(params, "sheet", str)
        key = _identity(full, "xlsx", sheet)
        return _cached(key, key[-1], lambda: _xlsx(full, sheet, path))
    delimiter = delimiter_of(params, path)
    limit = max_bytes_param(params)
    key = _identity(full, "csv", delimiter, limit)
    return _cached(key, key[-1], lambda: parse_csv(read_text(workspace, path, limit), delimiter, source=path))


def delimiter_of(params: Mapping[str, Any], path: str) -> str:
    default = "\t" if path.lower().endswith(".tsv") else ","
    delimiter = param(params, "delimiter", str, default)
    if len(delimiter) != 1:
        raise CheckSpecError("delimiter must be one character")
    return delimiter


def expected_table(params: Mapping[str, Any]) -> Table:
    """The expected table: `expected` ({columns, rows} or a list of records), `expected_csv`
    (CSV text) or `expected_file` (a CSV shipped with the verifier)."""
    given = [key for key in EXPECTED_PARAMS if params.get(key) is not None]
    if len(given) != 1:
        raise CheckSpecError(f"give exactly one of {list(EXPECTED_PARAMS)} (got {given})")
    if "expected_csv" in given:
        return parse_csv(param(params, "expected_csv", str), param(params, "delimiter", str, ","))
    if "expected_file" in given:
        path = tests_file(params, "expected_file")
        delimiter = delimiter_of(params, path.name)
        key = _identity(path, "expected", delimiter)
        return _cached(
            key, key[-1], lambda: parse_csv(path.read_text(encoding="utf-8-sig"), delimiter, source=path.name)
        )
    expected = params["expected"]
    if isinstance(expected, Mapping):
        columns, rows = expected.get("columns"), expected.get("rows")
        if not isinstance(columns, list) or not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise CheckSpecError("expected must be {columns: [...], rows: [[...], ...]}")
        return Table([str(c) for c in columns], [list(r) for r in rows])
    if isinstance(expected, list) and all(isinstance(r, Mapping) for r in expected):
        columns = []
        for record in expected:
            columns += [str(k) for k in record if str(k) not in columns]
        return Table(columns, [[record.get(c, "") for c in columns] for record in expected])
    raise CheckSpecError("expected must be {columns, rows} or a list of records")
