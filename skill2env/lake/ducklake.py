"""The cluster lake: DuckLake, its catalog in Postgres and its data files on shared storage.

Several processes on several machines write at once: each write is one DuckDB transaction, which
DuckLake commits as one snapshot in the catalog (all its rows, or none). Two writers that touch the
same catalog object at once (the first schema, a view) conflict; the loser's transaction is rolled
back and `Lake` runs it again.

DuckDB cannot download extensions here, so the DuckLake and Postgres extensions (and httpfs, for an
`s3://` data path) come from their PyPI packages (the `cluster` extra) and are loaded by path.

An `s3://` data path is read and written through httpfs with a DuckDB secret made from `S3Settings`
(endpoint, region, URL style, TLS; for any S3-compatible store) and the standard credentials in the
environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, optionally `AWS_SESSION_TOKEN`), which
never go into `cluster.toml`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

DIALECT = "ducklake"
"""The folder under `sql/` whose files replace the embedded lake's statements of the same name."""
ATTACHED_AS = "lake"
EXTENSION_PACKAGES = {
    "postgres_scanner": "duckdb_extension_postgres_scanner",
    "ducklake": "duckdb_extension_ducklake",
    "httpfs": "duckdb_extension_httpfs",
}
LAKE_EXTENSIONS = ("postgres_scanner", "ducklake")
S3_EXTENSION = "httpfs"
S3_SCHEME = "s3://"
S3_KEY_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
S3_TOKEN_VARIABLE = "AWS_SESSION_TOKEN"  # noqa: S105 (the variable's name)
URL_STYLES = ("vhost", "path")
INIT_ATTEMPTS = 5
INIT_BACKOFF_SECONDS = 0.2
_COLUMN_COMPRESSION = re.compile(r"\s+USING\s+COMPRESSION\s+\w+", re.IGNORECASE)
_PASSWORD = re.compile(r"(password\s*=\s*)\S+", re.IGNORECASE)


class DuckLakeUnavailableError(RuntimeError):
    """The DuckLake extensions are not installed (the `cluster` extra) or do not match DuckDB."""


class DuckLakeMissingError(RuntimeError):
    """A read-only attach of a DuckLake nobody has written yet (reads cannot create one)."""


class S3CredentialsError(RuntimeError):
    """An `s3://` data path without the credentials to write it."""


@dataclass(frozen=True)
class S3Settings:
    """How to reach the object store of an `s3://` data path (`[lake.s3]` in `cluster.toml`); the
    defaults are AWS's."""

    endpoint: str | None = None
    """`host:port` of an S3-compatible store (MinIO, Ceph, …); None: AWS."""
    region: str | None = None
    url_style: str = "vhost"
    """`vhost` (bucket in the host name, AWS) or `path` (bucket in the path, most other stores)."""
    use_ssl: bool = True


@dataclass(frozen=True)
class DuckLakeCatalog:
    """Where a DuckLake lives: a libpq connection string for its Postgres catalog, and its data path
    (a directory every worker mounts at the same place, or an s3:// prefix reached with `s3`)."""

    catalog: str
    data_path: str
    s3: S3Settings | None = None

    @property
    def on_s3(self) -> bool:
        return self.data_path.startswith(S3_SCHEME)

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
        for name in LAKE_EXTENSIONS:
            con.execute(f"LOAD '{extension_path(name)}'")
        if lake.on_s3:
            con.execute(f"LOAD '{extension_path(S3_EXTENSION)}'")
            con.execute(s3_secret(lake.s3 or S3Settings()))
        _attach(con, lake, read_only=read_only)
        con.execute(f"USE {ATTACHED_AS}")
    except BaseException:
        con.close()
        raise
    return con


def s3_secret(settings: S3Settings, environment: Mapping[str, str] | None = None) -> str:
    """The `CREATE SECRET` statement for the lake's object store, with the credentials from the environment.

    Raises: S3CredentialsError: `AWS_ACCESS_KEY_ID` or `AWS_SECRET_ACCESS_KEY` is not set."""
    environment = os.environ if environment is None else environment
    missing = [name for name in S3_KEY_VARIABLES if not environment.get(name)]
    if missing:
        raise S3CredentialsError(f"an s3:// lake data path needs {' and '.join(missing)} in the environment")
    options = {"KEY_ID": environment[S3_KEY_VARIABLES[0]], "SECRET": environment[S3_KEY_VARIABLES[1]],
               "SESSION_TOKEN": environment.get(S3_TOKEN_VARIABLE), "REGION": settings.region,
               "ENDPOINT": settings.endpoint, "URL_STYLE": settings.url_style}  # fmt: skip
    listed = [f"{name} '{_quoted(value)}'" for name, value in options.items() if value]
    listed.append(f"USE_SSL {str(settings.use_ssl).lower()}")
    return f"CREATE OR REPLACE SECRET {ATTACHED_AS}_s3 (TYPE s3, {', '.join(listed)})"


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
