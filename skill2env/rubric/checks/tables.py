"""Reading tables: CSV / TSV text, and XLSX sheets where openpyxl is installed; expected tables
from a check's params."""

from __future__ import annotations

import csv
import io
import os
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import (
    CheckFailed,
    CheckSpecError,
    decode_text,
    max_bytes_param,
    open_workspace_file,
    param,
    read_limited,
    tests_file,
)

TABLE_PARAMS = ("delimiter", "sheet", "max_bytes")
EXPECTED_PARAMS = ("expected", "expected_csv", "expected_file")
XLSX_MAX_UNPACKED = 256 << 20
"""An XLSX (a zip) whose members would unpack to more than this is refused unread: a few KB can
declare gigabytes."""
XLSX_MAX_MEMBERS = 10_000
XLSX_MAX_ROWS = 1_100_000
"""Above Excel's own 1,048,576: a sheet claiming a row past it is not a real workbook."""
XLSX_MAX_CELLS = 5_000_000
"""Cells (filled or padding) read from one sheet before it is refused: a row index or column
letter can claim millions of empty cells in a few bytes."""


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Any]]
    """Cells as read: strings from CSV, typed values from XLSX; short rows padded with ''."""


def parse_csv(text: str, delimiter: str = ",", *, source: str = "csv") -> Table:
    """A table from CSV text: the first row is the header; blank lines are skipped. A field may be
    as long as the text (csv's own 128 KiB limit is raised for the parse: the text is already
    capped by the check's `max_bytes`)."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, len(text) + 1))
    try:
        records = [row for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if row]
    except csv.Error as exc:
        raise CheckFailed(f"{source} is not valid CSV: {exc}", path=source) from exc
    finally:
        csv.field_size_limit(previous)
    if not records:
        return Table([], [])
    columns = [c.strip() for c in records[0]]
    width = len(columns)
    rows = [row + [""] * (width - len(row)) if len(row) < width else row for row in records[1:]]
    return Table(columns, rows)


def _xlsx(data: bytes, sheet: str | None, shown: str) -> Table:
    try:
        import openpyxl
    except ImportError as exc:  # the environment lacks it: the verifier cannot judge
        raise CheckSpecError("reading .xlsx needs openpyxl, which this environment lacks") from exc
    _refuse_zip_bomb(data, shown)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise CheckFailed(f"{shown} is not a readable XLSX workbook: {type(exc).__name__}: {exc}", path=shown) from exc
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise CheckFailed(f"{shown} has no sheet {sheet!r} (sheets: {book.sheetnames})", path=shown)
        if not book.sheetnames:
            raise CheckFailed(f"{shown} has no sheets", path=shown)
        worksheet = book[sheet or book.sheetnames[0]]
        if hasattr(worksheet, "reset_dimensions"):
            worksheet.reset_dimensions()  # the stored dimension is the file's claim, not its content
        records = _sheet_records(worksheet.iter_rows(values_only=True), shown)
    except CheckFailed:
        raise
    except Exception as exc:  # a cell or row the parser cannot read
        raise CheckFailed(f"{shown} has a sheet that cannot be read: {type(exc).__name__}: {exc}", path=shown) from exc
    finally:
        book.close()
    if not records:
        return Table([], [])
    columns = [str(c).strip() for c in records[0]]
    while columns and columns[-1] == "":
        columns.pop()
    width = len(columns)
    return Table(columns, [row[:width] + [""] * (width - len(row)) for row in records[1:]])


def _refuse_zip_bomb(data: bytes, shown: str) -> None:
    """Fail unless `data` is a zip whose members unpack to a bounded size (zipfile stops a member
    at its declared size, so the declaration is a bound)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        raise CheckFailed(f"{shown} is not an XLSX workbook (not a zip archive: {exc})", path=shown) from exc
    unpacked = sum(member.file_size for member in members)
    if len(members) > XLSX_MAX_MEMBERS or unpacked > XLSX_MAX_UNPACKED:
        raise CheckFailed(
            f"{shown} would unpack to {unpacked} bytes in {len(members)} members, more than this check "
            f"reads ({XLSX_MAX_UNPACKED} bytes, {XLSX_MAX_MEMBERS} members)",
            path=shown,
            unpacked_bytes=unpacked,
            max_unpacked_bytes=XLSX_MAX_UNPACKED,
        )


def _sheet_records(rows: Iterable[tuple[Any, ...]], shown: str) -> list[list[Any]]:
    """The non-blank rows of a sheet (blank cells as ''), within the row and cell budgets."""
    records = []
    cells = 0
    for number, row in enumerate(rows, start=1):
        cells += len(row) + 1
        if number > XLSX_MAX_ROWS or cells > XLSX_MAX_CELLS:
            raise CheckFailed(
                f"{shown} has more than this check reads ({XLSX_MAX_ROWS} rows, {XLSX_MAX_CELLS} cells)",
                path=shown,
                max_rows=XLSX_MAX_ROWS,
                max_cells=XLSX_MAX_CELLS,
            )
        if any(v is not None and v != "" for v in row):
            records.append(["" if v is None else v for v in row])
    return records


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


def read_table(workspace: Path, params: Mapping[str, Any], name: str = "path", *, xlsx: bool | None = None) -> Table:
    """The workspace table named by param `name`: `.xlsx` through openpyxl, anything else as
    delimited text (`delimiter`, default tab for `.tsv` and comma otherwise); `xlsx` overrides
    what the name's suffix says."""
    path = param(params, name, str)
    limit = max_bytes_param(params)
    if xlsx is None:
        xlsx = path.lower().endswith((".xlsx", ".xlsm"))
    options = ("xlsx", param(params, "sheet", str)) if xlsx else ("csv", delimiter_of(params, path))
    with open_workspace_file(workspace, path) as handle:
        stat = os.fstat(handle.fileno())
        key = (handle.name, stat.st_dev, stat.st_ino, stat.st_mtime_ns, *options, limit, stat.st_size)

        def load() -> Table:
            data = read_limited(handle, limit)
            if xlsx:
                return _xlsx(data, options[1], path)
            return parse_csv(decode_text(data, path), options[1], source=path)

        return _cached(key, stat.st_size, load)


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
