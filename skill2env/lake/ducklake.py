"""The cluster lake: DuckLake, its catalog in Postgres and its data files on shared storage.

Several processes on several machines write at once: each write is one DuckDB transaction, which
DuckLake commits as one snapshot in the catalog (all its rows, or none). Two writers that touch the
same catalog object at once (the first schema, a view) conflict; the loser's transaction is rolled
back and `Lake` runs it again.

DuckDB cannot download extensions here, so the DuckLake and Postgres extensions come from their
PyPI packages (the `cluster` extra) and are loaded by path.
"""

from __future__ import annotations

import importlib.util
import re
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

DIALECT = "ducklake"
"""The folder under `sql/` whose files replace the embedded lake's statements of the same name."""
ATTACHED_AS = "lake"
EXTENSION_PACKAGES = {
    "postgres_scanner": "duckdb_extension_postgres_scanner",
    "ducklake": "duckdb_extension_ducklake",
}
INIT_ATTEMPTS = 5
INIT_BACKOFF_SECONDS = 0.2
_COLUMN_COMPRESSION = re.compile(r"\s+USING\s+COMPRESSION\s+\w+", re.IGNORECASE)
_PASSWORD = re.compile(r"(password\s*=\s*)\S+", re.IGNORECASE)


class DuckLakeUnavailableError(RuntimeError):
    """The DuckLake extensions are not installed (the `cluster` extra) or do not match DuckDB."""


class DuckLakeMissingError(RuntimeError):
    """A read-only attach of a DuckLake nobody has written yet (reads cannot create one)."""


@dataclass(frozen=True)
class DuckLakeCatalog:
    """Where a DuckLake lives: a libpq connection string for its Postgres catalog, and its data path
    (a directory every worker mounts at the same place, or an s3:// prefix)."""

    catalog: str
    data_path: str

    def describe(self) -> str:
        """For logs and reports: the catalog without its password."""
        catalog = _PASSWORD.sub(r"\1***", self.catalog)
        return f"ducklake (catalog {catalog}, data {self.data_path})"


def extension_path(name: str) -> Path:
    """The extension file its PyPI package ships for this DuckDB version."""
    package = EXTENSION_PACKAGES[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DuckLakeUnavailableError(
            f"the cluster lake needs the {package.replace('_', '-')} package: pip install 'skill2env[cluster]'"
        )
    path = (
        Path(spec.submodule_search_locations[0]) / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    )
    if not path.is_file():
        raise DuckLakeUnavailableError(
            f"{package} has no extension for DuckDB {duckdb.__version__} (looked for {path})"
        )
    return path


def connect(lake: DuckLakeCatalog, *, read_only: bool, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the DuckLake attached and in use, so the lake's SQL runs unchanged."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "allow_unsigned_extensions": True,
        "autoinstall_known_extensions": False,
    }
    if memory_limit:
        config["memory_limit"] = memory_limit
    con = duckdb.connect(config=config)
    try:
        for name in EXTENSION_PACKAGES:
            con.execute(f"LOAD '{extension_path(name)}'")
        _attach(con, lake, read_only=read_only)
        con.execute(f"USE {ATTACHED_AS}")
    except BaseException:
        con.close()
        raise
    return con


def _attach(con: duckdb.DuckDBPyConnection, lake: DuckLakeCatalog, *, read_only: bool) -> None:
    """Attach the lake. The first attach of a new catalog creates DuckLake's own tables in Postgres;
    two processes doing that at once collide in Postgres, and the loser attaches again to the tables
    the winner made."""
    options = "READ_ONLY" if read_only else f"DATA_PATH '{_quoted(lake.data_path)}'"
    statement = f"ATTACH 'ducklake:postgres:{_quoted(lake.catalog)}' AS {ATTACHED_AS} ({options})"
    for attempt in range(1, INIT_ATTEMPTS + 1):
        try:
            con.execute(statement)
            return
        except duckdb.Error as exc:
            if read_only and "does not exist" in str(exc):
                raise DuckLakeMissingError(f"no lake yet at {lake.describe()}") from exc
            if attempt == INIT_ATTEMPTS or not _lost_init_race(exc):
                raise
            time.sleep(INIT_BACKOFF_SECONDS * attempt)


def _lost_init_race(exc: duckdb.Error) -> bool:
    text = str(exc).lower()
    return "already exists" in text or "duplicate key" in text


def adapt(statement: str) -> str:
    """An embedded-lake statement as DuckLake takes it: no per-column compression (its Parquet files
    are compressed anyway). Statements DuckLake needs written otherwise are files under `sql/ducklake/`."""
    return _COLUMN_COMPRESSION.sub("", statement)


def is_conflict(exc: BaseException) -> bool:
    """Whether a failed commit lost a race with another writer (worth running again)."""
    text = str(exc).lower()
    return isinstance(exc, duckdb.Error) and ("conflict" in text or "concurrent" in text)


def _quoted(value: str) -> str:
    return value.replace("'", "''")
