"""The lake: append-only versioned tables in DuckDB, embedded in one file or in a DuckLake.

Embedded (the default): DuckDB allows a single writing process per file, and Dagster's multiprocess
executor runs steps in separate processes, so every access takes an OS file lock (exclusive to write,
shared to read), connects, does its work in one transaction, and closes.

DuckLake (the cluster profile, `skill2env.lake.ducklake`): the catalog in Postgres arbitrates, so
there is no file lock and many writers commit at once; a transaction that loses a race with another
writer is rolled back and run again. Either way nothing holds a connection between calls, and the
same SQL (with the few statements `sql/ducklake/` replaces) runs on both.
"""

from __future__ import annotations

import fcntl
import hashlib
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl

from skill2env.lake import ducklake as ducklake_lake
from skill2env.lake.ducklake import DuckLakeCatalog, DuckLakeMissingError
from skill2env.lake.sqlfiles import SQL_DIR, load_sql, ordered_statements
from skill2env.thresholds import sql_macros

VERSIONED_TABLES = frozenset(
    p.name[len("insert_") : -len("_versions.sql")] for p in SQL_DIR.glob("dml/insert_*_versions.sql")
)
"""Tables written through `Lake.write`: each has `sql/dml/insert_<table>_versions.sql`."""
LOG_TABLES = frozenset(p.name[len("append_") : -len(".sql")] for p in SQL_DIR.glob("dml/append_*.sql"))
"""Append-only logs (no partitions, no versions, e.g. the model-call ledger): `sql/dml/append_<table>.sql`."""
LOCK_POLL_SECONDS = 0.05
WRITE_MEMORY_LIMIT = "512MB"
"""DuckDB's buffer for a write; beyond it, it spills to disk instead of growing the process."""
INSERT_SLICE_ROWS = 4096
CONFLICT_ATTEMPTS = 8
"""How often a DuckLake transaction that lost a race with another writer is run again."""
CONFLICT_BACKOFF_SECONDS = 0.05
T = TypeVar("T")


class LakeError(RuntimeError):
    """Base class of lake failures."""


class LakeLockTimeoutError(LakeError):
    """Another process held the lake longer than the lock timeout."""


class UnknownTableError(LakeError, ValueError):
    """A write named a table the lake does not version."""


class ReadOnlyQueryError(LakeError, ValueError):
    """A read-only query tried to change the lake."""


@dataclass(frozen=True)
class TableWrite:
    """The complete new version of one partition of one table."""

    table: str
    frame: pl.DataFrame
    partition_key: str = ""
    """'' for unpartitioned tables."""


@dataclass(frozen=True)
class WriteReceipt:
    table: str
    partition_key: str
    write_id: str
    row_count: int


class Lake:
    """All access to the lake goes through this class."""

    def __init__(self, path: Path, *, lock_timeout: float = 600.0, ducklake: DuckLakeCatalog | None = None) -> None:
        """`path`: the embedded lake's file; with `ducklake`, that lake instead (`path` is then unused)."""
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")
        self.write_wanted_path = path.with_name(path.name + ".write-wanted")
        """Touched by a writer waiting for the lock: a process holding the lake open (`held_open`) lets go."""
        self.lock_timeout = lock_timeout
        self.ducklake = ducklake
        self._dialect = ducklake_lake.DIALECT if ducklake else None
        self._schema_current = False

    @property
    def location(self) -> str:
        """Where the lake is, for the record (a report names the lake it read)."""
        return self.ducklake.describe() if self.ducklake else str(self.path)

    def exists(self) -> bool:
        """Whether anything was ever written here (a DuckLake's catalog is asked by connecting)."""
        if self.ducklake is None:
            return self.path.exists()
        try:
            with self._connection(read_only=True) as con:
                return bool(con.execute(_HAS_SCHEMA_TABLE).fetchall())
        except DuckLakeMissingError:
            return False

    @contextmanager
    def _connection(self, *, read_only: bool) -> Iterator[duckdb.DuckDBPyConnection]:
        memory = None if read_only else WRITE_MEMORY_LIMIT
        if self.ducklake:
            con = ducklake_lake.connect(self.ducklake, read_only=read_only, memory_limit=memory)
        else:
            con = duckdb.connect(str(self.path), read_only=read_only, config={"memory_limit": memory} if memory else {})
        try:
            yield con
        finally:
            con.close()

    @contextmanager
    def _locked(self, *, exclusive: bool) -> Iterator[None]:
        if self.ducklake:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        with self.lock_path.open("a+") as handle:
            deadline = time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if exclusive:
                        self.write_wanted_path.touch()
                    if time.monotonic() > deadline:
                        raise LakeLockTimeoutError(
                            f"lake {self.path} stayed locked by another process for {self.lock_timeout:.0f} s"
                        ) from None
                    time.sleep(LOCK_POLL_SECONDS)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _in_transaction(self, work: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """`work` in one transaction under the write lock: committed whole, or rolled back and raised.
        On a DuckLake, a transaction that lost a race with another writer runs again from the start."""
        for attempt in range(1, CONFLICT_ATTEMPTS + 1):
            try:
                with self._locked(exclusive=True), self._connection(read_only=False) as con:
                    con.begin()
                    try:
                        result = work(con)
                    except BaseException:
                        con.rollback()
                        raise
                    con.commit()
                    return result
            except duckdb.Error as exc:
                if self.ducklake is None or not ducklake_lake.is_conflict(exc) or attempt == CONFLICT_ATTEMPTS:
                    raise
                # Jittered, so writers that collided do not collide again in step.
                time.sleep(CONFLICT_BACKOFF_SECONDS * attempt * (1 + random.random()))  # noqa: S311
        raise AssertionError("unreachable: the last attempt returns or raises")

    def ensure_schema(self) -> None:
        """Create every table (idempotent DDL) and (re)create every view."""
        self._in_transaction(self._apply_schema)

    def _apply_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        _apply_schema(con, self._dialect)

    def write(self, writes: Sequence[TableWrite], *, run_id: str, code_version: str) -> list[WriteReceipt]:
        """Append new versions of several table partitions in one transaction: all become visible, or none."""
        for item in writes:
            if item.table not in VERSIONED_TABLES:
                raise UnknownTableError(f"{item.table!r} is not a versioned lake table")
        materialized_at = datetime.now(UTC)

        def append_all(con: duckdb.DuckDBPyConnection) -> list[WriteReceipt]:
            self._apply_schema(con)
            return [_append(con, item, run_id, code_version, materialized_at) for item in writes]

        return self._in_transaction(append_all)

    def append(self, table: str, frame: pl.DataFrame) -> int:
        """Append rows to a log table in one transaction; returns the number of rows appended."""
        if table not in LOG_TABLES:
            raise UnknownTableError(f"{table!r} is not a log table of the lake")
        if frame.is_empty():
            return 0

        def append_rows(con: duckdb.DuckDBPyConnection) -> int:
            self._apply_schema(con)
            for _ in _incoming_slices(con, frame):
                con.execute(load_sql(f"dml/append_{table}"))
            return frame.height

        return self._in_transaction(append_rows)

    def query(self, sql: str, params: Mapping[str, Any] | Sequence[Any] | None = None) -> pl.DataFrame:
        """Run one read-only query; the lake's schema must exist (an empty lake has no views yet)."""
        with self.reading() as reader:
            return reader.query(sql, params)

    def query_rows(self, sql: str, params: Mapping[str, Any] | Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """`query`'s rows as dicts (`Reader.query_rows`)."""
        with self.reading() as reader:
            return reader.query_rows(sql, params)

    @contextmanager
    def reading(self) -> Iterator[Reader]:
        """Several read-only queries on one connection, under one shared lock (cheaper than `query` each).

        A lake made by an older version first gains this version's tables and views (the schema only,
        never data), so read-only commands such as the exports see every view they query."""
        if not self._schema_current:
            if (self.ducklake is None and not self.path.exists()) or not self._has_schema():
                self.ensure_schema()
            self._schema_current = True
        with self._locked(exclusive=False), self._connection(read_only=True) as con:
            # One transaction: every query of this reading sees the same snapshot (a DuckLake's
            # writers do not wait for readers).
            con.begin()
            yield Reader(con)

    @contextmanager
    def held_open(self) -> Iterator[None]:
        """Keep the database open for reading (a read-only connection under the shared lock) while
        `query` runs many times: DuckDB keeps one database per file and process while a connection to
        it is open, so the blocks one query read stay cached for the next (curation reading the catalog
        chunk by chunk: 0.20 → 0.08 ms per skill). Writers wait until it is closed; a waiting writer
        touches `write_wanted_path`. A DuckLake is left as is."""
        if self.ducklake:
            yield
            return
        with self._locked(exclusive=False), self._connection(read_only=True):
            yield

    def write_wanted_since(self, since_ns: int) -> bool:
        """Whether a writer has waited for the lock since `since_ns` (`time.time_ns()`)."""
        try:
            return self.write_wanted_path.stat().st_mtime_ns >= since_ns
        except FileNotFoundError:
            return False

    def _has_schema(self) -> bool:
        """Whether the lake's newest applied schema is this version's."""
        try:
            with self._locked(exclusive=False), self._connection(read_only=True) as con:
                if not con.execute(_HAS_SCHEMA_TABLE).fetchall():
                    return False
                current = con.execute("SELECT digest FROM lake_schema ORDER BY applied_at DESC LIMIT 1").fetchall()
        except DuckLakeMissingError:
            return False
        return bool(current) and current[0][0] == schema_digest(self._dialect)


class Reader:
    """Read-only queries on an open connection; only valid inside `Lake.reading()`."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def query(self, sql: str, params: Mapping[str, Any] | Sequence[Any] | None = None) -> pl.DataFrame:
        try:
            return self._con.sql(sql, params=params).pl()
        except duckdb.Error as exc:
            raise _read_error(exc) from exc

    def query_rows(self, sql: str, params: Mapping[str, Any] | Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """`query(...).iter_rows(named=True)` as a list, the same values without the frame: for rows read
        one by one, about half the cost (no Arrow export, no frame)."""
        try:
            cursor = self._con.execute(sql, params)
            names = [column[0] for column in cursor.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        except duckdb.Error as exc:
            raise _read_error(exc) from exc


def _read_error(exc: duckdb.Error) -> Exception:
    """A write attempted on a read-only connection as `ReadOnlyQueryError`; any other error as it is."""
    if "read-only" in str(exc).lower():
        return ReadOnlyQueryError(f"the lake is read-only here: {exc}")
    return exc


_HAS_SCHEMA_TABLE = (
    "SELECT 1 FROM duckdb_tables() WHERE table_name = 'lake_schema' AND database_name = current_database()"
)


def _apply_schema(con: duckdb.DuckDBPyConnection, dialect: str | None) -> None:
    """Create the tables and (re)create the views, unless this lake already has this exact schema:
    every write checks, and re-running forty statements per write made small writes slow."""
    digest = schema_digest(dialect)
    con.execute("CREATE TABLE IF NOT EXISTS lake_schema (digest VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)")
    current = con.execute("SELECT digest FROM lake_schema ORDER BY applied_at DESC LIMIT 1").fetchall()
    if current and current[0][0] == digest:
        return
    for statement in schema_statements(dialect):
        con.execute(statement)
    con.execute("INSERT INTO lake_schema VALUES ($digest, now())", {"digest": digest})


def threshold_macros() -> list[str]:
    """`CREATE OR REPLACE MACRO full_credit_at() AS …`, one per threshold in `skill2env.thresholds`:
    views cannot take parameters, so the constants reach them as macros written from Python."""
    return [f"CREATE OR REPLACE MACRO {name}() AS CAST({value!r} AS DOUBLE)" for name, value in sql_macros().items()]


def schema_statements(dialect: str | None = None) -> list[str]:
    """The tables, then the threshold macros, then the views: in the order they are applied."""
    ddl = [statement for _, statement in ordered_statements("ddl", dialect=dialect)]
    views = [statement for _, statement in ordered_statements("views", dialect=dialect)]
    statements = [*ddl, *threshold_macros(), *views]
    return [ducklake_lake.adapt(s) for s in statements] if dialect == ducklake_lake.DIALECT else statements


@cache
def schema_digest(dialect: str | None = None) -> str:
    """sha256 of every statement `schema_statements` applies (a changed threshold re-applies the schema)."""
    return hashlib.sha256("\0".join(schema_statements(dialect)).encode()).hexdigest()


def _incoming_slices(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> Iterator[None]:
    """Registers `frame` as `incoming` slice by slice, for an INSERT per slice.

    One Arrow copy of the frame, handed over in zero-copy slices (registering again under the same
    name replaces the previous one), so DuckDB's scan buffers stay small however large the frame.
    Converting each polars slice instead left a higher peak: +1.25 GB against +0.97 GB writing the
    48K-skill catalog, and 20 % slower."""
    incoming = frame.to_arrow()
    for start in range(0, incoming.num_rows, INSERT_SLICE_ROWS):
        con.register("incoming", incoming.slice(start, INSERT_SLICE_ROWS))
        yield


def _append(
    con: duckdb.DuckDBPyConnection,
    item: TableWrite,
    run_id: str,
    code_version: str,
    materialized_at: datetime,
) -> WriteReceipt:
    write_id = uuid.uuid4().hex
    bound = {
        "write_id": write_id,
        "run_id": run_id,
        "materialized_at": materialized_at,
        "code_version": code_version,
        "partition_key": item.partition_key,
    }
    for _ in _incoming_slices(con, item.frame):
        con.execute(load_sql(f"dml/insert_{item.table}_versions"), bound)
    con.execute(
        load_sql("dml/record_materialization"),
        {**bound, "table_name": item.table, "row_count": item.frame.height},
    )
    return WriteReceipt(item.table, item.partition_key, write_id, item.frame.height)
