"""A query on a produced SQLite (or DuckDB, where the module is installed) database returns the
expected rows. The query runs on a private copy of the database (and of its write-ahead log):
a check never changes the deliverable, and the database engine never opens a workspace path
itself (one swapped for a FIFO would block it beyond the reach of the time limit)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Mapping
from datetime import date, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from .base import (
    CheckFailed,
    CheckResult,
    CheckSpecError,
    WorkspaceFile,
    check,
    diff_lines,
    open_workspace_file,
    param,
    relative_path,
    show,
)
from .values import COMPARISON_PARAMS, Comparison, comparison_from, values_equal

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"
MAX_ROWS = 100_000
ENGINES = ("auto", "sqlite", "duckdb")
DATABASE_MAX_BYTES = 256 << 20
"""A database file (or its log) bigger than this (param `max_bytes` may only lower it) fails the
check uncopied."""
LOGS = {"sqlite": "-wal", "duckdb": ".wal"}
"""The write-ahead log beside a database, copied with it: committed rows may still be there."""
COPY_CHUNK = 1 << 20


def engine_of(head: bytes, given: str, shown: str) -> str:
    if given not in ENGINES:
        raise CheckSpecError(f"engine must be one of {ENGINES}, not {given!r}")
    if given != "auto":
        return given
    if head[:16] == SQLITE_MAGIC:
        return "sqlite"
    if head[8:12] == DUCKDB_MAGIC:
        return "duckdb"
    raise CheckFailed(f"{shown} is neither a SQLite nor a DuckDB database", path=shown, head=head[:16].hex())


def copy_capped(handle: WorkspaceFile, target: Path, max_bytes: int) -> None:
    """Copy an opened workspace file to `target`, failing past `max_bytes` (recorded as evidence)."""
    shown = handle.shown
    size = os.fstat(handle.fileno()).st_size
    if size > max_bytes:
        raise CheckFailed(
            f"{shown} is {size} bytes, more than this check reads ({max_bytes})",
            path=shown,
            size=size,
            max_bytes=max_bytes,
        )
    copied = 0
    with target.open("wb") as out:
        while True:
            try:
                chunk = handle.read(COPY_CHUNK)
            except OSError as exc:
                raise CheckFailed(f"{shown} cannot be read: {exc.strerror or exc}", path=shown) from exc
            if not chunk:
                return
            copied += len(chunk)
            if copied > max_bytes:
                raise CheckFailed(
                    f"{shown} grew past what this check reads ({max_bytes} bytes)", path=shown, max_bytes=max_bytes
                )
            out.write(chunk)


def private_copy(workspace: Path, path: str, engine_given: str, max_bytes: int, into: Path) -> tuple[Path, str]:
    """The database `path` copied into the directory `into` (with its log, if any), and its engine."""
    with open_workspace_file(workspace, path) as handle:
        head = handle.read(16)
        handle.seek(0)
        engine = engine_of(head, engine_given, handle.shown)
        copy = into / "database"
        copy_capped(handle, copy, max_bytes)
    log = str(relative_path(workspace, path)) + LOGS[engine]
    if os.path.lexists(workspace / log):
        with open_workspace_file(workspace, log) as handle:
            copy_capped(handle, into / f"database{LOGS[engine]}", max_bytes)
    return copy, engine


def query_sqlite(path: Path, query: str, shown: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        connection = sqlite3.connect(path, check_same_thread=False)
    except sqlite3.Error as exc:
        raise CheckFailed(f"{shown} cannot be opened as SQLite: {exc}", path=shown) from exc

    def run() -> tuple[list[str], list[tuple[Any, ...]]]:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("PRAGMA trusted_schema = OFF")
        # Read the schema before the query: a query that touches no table would otherwise pass on
        # a file that only starts like a database.
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        cursor = connection.execute(query)
        columns = [d[0] for d in cursor.description or ()]
        return columns, cursor.fetchmany(MAX_ROWS + 1)

    try:
        return _interruptible(run, connection.interrupt)
    except sqlite3.Error as exc:
        raise CheckFailed(f"the query failed on {shown}: {exc}", path=shown, query=query) from exc
    finally:
        with contextlib.suppress(Exception):
            connection.close()


def query_duckdb(path: Path, query: str, shown: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        import duckdb
    except ImportError as exc:
        raise CheckSpecError("the duckdb module is not installed in this environment") from exc
    try:
        connection = duckdb.connect(str(path), read_only=True)
    except Exception as exc:  # duckdb raises its own types, and others, for a damaged file
        raise CheckFailed(f"{shown} cannot be opened as DuckDB: {type(exc).__name__}: {exc}", path=shown) from exc

    try:
        cursor = connection.cursor()  # DuckDB interrupts a query through its own cursor only
    except Exception as exc:
        connection.close()
        raise CheckFailed(f"{shown} cannot be queried: {type(exc).__name__}: {exc}", path=shown) from exc

    def run() -> tuple[list[str], list[tuple[Any, ...]]]:
        result = cursor.execute(query)
        columns = [d[0] for d in result.description or ()]
        return columns, result.fetchmany(MAX_ROWS + 1)

    try:
        return _interruptible(run, cursor.interrupt)
    except Exception as exc:
        raise CheckFailed(f"the query failed on {shown}: {type(exc).__name__}: {exc}", path=shown, query=query) from exc
    finally:
        with contextlib.suppress(Exception):  # still busy when a time-out left the query running
            cursor.close()
            connection.close()


def _interruptible(work: Callable[[], Any], interrupt: Callable[[], Any]) -> Any:
    """`work()` in a helper thread while this one waits: a native call blocks signal handling in its
    own thread, so the verifier's time limit is delivered here and interrupts the work."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, daemon=True).start()
    # An Event, not Thread.join: a join cut short by the time-out may report a live thread stopped.
    try:
        while not done.wait(0.05):
            pass
    except BaseException:
        with contextlib.suppress(Exception):
            interrupt()
        done.wait(5)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


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
    optional=("engine", "ignore_row_order", "max_bytes", *COMPARISON_PARAMS),
)
def sql_query(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    path = param(params, "path", str)
    query = param(params, "query", str)
    expected = _expected_rows(params["expected"])
    comparison = comparison_from(params)
    given = param(params, "engine", str, "auto")
    if given not in ENGINES:
        raise CheckSpecError(f"engine must be one of {ENGINES}, not {given!r}")
    max_bytes = min(max(0, param(params, "max_bytes", int, DATABASE_MAX_BYTES)), DATABASE_MAX_BYTES)
    scratch = Path(tempfile.mkdtemp(prefix="sql_query_"))
    try:
        database, engine = private_copy(workspace, path, given, max_bytes, scratch)
        run = query_sqlite if engine == "sqlite" else query_duckdb
        columns, fetched = run(database, query, str(relative_path(workspace, path)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
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
