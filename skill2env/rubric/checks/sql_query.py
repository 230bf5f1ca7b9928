"""A query on a produced SQLite (or DuckDB, where the module is installed) database returns the
expected rows. The database is opened read-only: a check never changes the deliverable."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import date, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from .base import CheckFailed, CheckResult, CheckSpecError, check, diff_lines, param, show, workspace_file
from .values import COMPARISON_PARAMS, Comparison, comparison_from, values_equal

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"
MAX_ROWS = 100_000
ENGINES = ("auto", "sqlite", "duckdb")


def engine_of(path: Path, given: str) -> str:
    if given not in ENGINES:
        raise CheckSpecError(f"engine must be one of {ENGINES}, not {given!r}")
    if given != "auto":
        return given
    with path.open("rb") as handle:
        head = handle.read(16)
    if head == SQLITE_MAGIC:
        return "sqlite"
    if head[8:12] == DUCKDB_MAGIC:
        return "duckdb"
    raise CheckFailed(f"{path.name} is neither a SQLite nor a DuckDB database", head=head.hex())


def query_sqlite(path: Path, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise CheckFailed(f"{path.name} cannot be opened as SQLite: {exc}") from exc
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("PRAGMA trusted_schema = OFF")
        cursor = connection.execute(query)
        columns = [d[0] for d in cursor.description or ()]
        return columns, cursor.fetchmany(MAX_ROWS + 1)
    except sqlite3.DatabaseError as exc:
        raise CheckFailed(f"the query failed on {path.name}: {exc}", query=query) from exc
    finally:
        connection.close()


def query_duckdb(path: Path, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        import duckdb
    except ImportError as exc:
        raise CheckSpecError("the duckdb module is not installed in this environment") from exc
    try:
        connection = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise CheckFailed(f"{path.name} cannot be opened as DuckDB: {exc}") from exc
    try:
        cursor = connection.execute(query)
        columns = [d[0] for d in cursor.description or ()]
        return columns, cursor.fetchmany(MAX_ROWS + 1)
    except duckdb.Error as exc:
        raise CheckFailed(f"the query failed on {path.name}: {exc}", query=query) from exc
    finally:
        connection.close()


def plain(value: Any) -> Any:
    """A database value as JSON-ready data: decimals as floats, dates as ISO text, bytes as hex."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return value


def _expected_rows(expected: Any) -> list[list[Any]]:
    """`expected` as rows: a scalar is one row of one value; a list of scalars is one column."""
    if not isinstance(expected, list):
        return [[expected]]
    if all(isinstance(row, list) for row in expected):
        return [list(row) for row in expected]
    if any(isinstance(row, (list, dict)) for row in expected):
        raise CheckSpecError("expected must be a scalar, a list of scalars, or a list of rows")
    return [[value] for value in expected]


def _differences(
    expected: list[list[Any]], actual: list[list[Any]], comparison: Comparison, any_order: bool
) -> list[str]:
    def same(left: list[Any], right: list[Any]) -> bool:
        return len(left) == len(right) and all(
            values_equal(a, b, comparison) for a, b in zip(left, right, strict=False)
        )

    diff = []
    if any_order:
        left = list(range(len(actual)))
        for row in expected:
            hit = next((p for p, i in enumerate(left) if same(row, actual[i])), None)
            if hit is None:
                diff.append(f"expected row not returned: {show(row)}")
            else:
                del left[hit]
        diff += [f"unexpected row: {show(actual[i])}" for i in left]
        return diff
    for number, (row, got) in enumerate(zip(expected, actual, strict=False), start=1):
        if not same(row, got):
            diff.append(f"row {number}: expected {show(row)}, got {show(got)}")
    if len(expected) != len(actual):
        diff.append(f"expected {len(expected)} row(s), got {len(actual)}")
    return diff


@check(
    "sql_query",
    "A SQL query on a produced SQLite / DuckDB file (opened read-only) returns the expected rows "
    "(a scalar for a one-value answer; `ignore_row_order`; numeric tolerance).",
    required=("path", "query", "expected"),
    optional=("engine", "ignore_row_order", *COMPARISON_PARAMS),
)
def sql_query(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    query = param(params, "query", str)
    expected = _expected_rows(params["expected"])
    comparison = comparison_from(params)
    database = workspace_file(workspace, path)
    engine = engine_of(database, param(params, "engine", str, "auto"))
    run = query_sqlite if engine == "sqlite" else query_duckdb
    columns, fetched = run(database, query)
    actual = [[plain(v) for v in row] for row in fetched[:MAX_ROWS]]
    diff = _differences(expected, actual, comparison, param(params, "ignore_row_order", bool, False))
    if len(fetched) > MAX_ROWS:
        diff.append(f"the query returned more than {MAX_ROWS} rows")
    return CheckResult(
        not diff,
        {
            "summary": f"{len(actual)} row(s) returned; "
            + ("as expected" if not diff else f"{len(diff)} difference(s)"),
            "compared": {
                "database": f"{path} ({engine})",
                "query": query,
                "columns": columns,
                "actual": actual[:10],
                "expected": expected[:10],
            },
            **diff_lines(diff, len(diff)),
        },
    )
