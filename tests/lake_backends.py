"""The two lakes the SQL suite runs on: the embedded DuckDB file, and a DuckLake whose catalog is a
private Postgres server of this machine's installation (started once per session)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from skill2env.cluster.postgres import LocalPostgres
from skill2env.home import Home
from skill2env.lake import ducklake
from skill2env.lake.ducklake import DuckLakeCatalog, S3Settings
from skill2env.lake.lake import Lake

EMBEDDED, DUCKLAKE = "embedded", "ducklake"
LAKE_KINDS = (EMBEDDED, DUCKLAKE)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def private_postgres() -> Iterator[LocalPostgres]:
    # Not under pytest's tmp_path: as root the server runs as `postgres`, which cannot enter it.
    root = Path(tempfile.mkdtemp(prefix="skill2env-test-pg-"))
    root.chmod(0o755)
    server = LocalPostgres(root / "server", free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class LakeMaker:
    """Makes lakes of one kind; the same path always gives the same lake."""

    kind: str
    postgres: LocalPostgres | None = None
    s3: tuple[str, S3Settings] | None = None
    """A bucket and its store: the DuckLake's data path goes there instead of a local directory."""

    def __call__(self, path: Path, *, lock_timeout: float = 60) -> Lake:
        return Lake(path, lock_timeout=lock_timeout, ducklake=self.catalog(path))

    def catalog(self, path: Path) -> DuckLakeCatalog | None:
        if self.postgres is None:
            return None
        database = "lake_" + hashlib.sha256(str(path).encode()).hexdigest()[:16]
        self.postgres.create_database(database)
        if self.s3 is not None:
            bucket, store = self.s3
            return DuckLakeCatalog(self.postgres.dsn(database), f"s3://{bucket}/{database}/", store)
        return DuckLakeCatalog(self.postgres.dsn(database), str(path.with_name(path.stem + "-ducklake-data")) + "/")

    def home(self, root: Path) -> Home:
        """A home whose lake is of this kind (a DuckLake through its `cluster.toml`, as users set it)."""
        home = Home(root)
        catalog = self.catalog(home.lake_path)
        if catalog is not None:
            root.mkdir(parents=True, exist_ok=True)
            (root / "cluster.toml").write_text(
                f"[lake]\ncatalog = {json.dumps(catalog.catalog)}\ndata_path = {json.dumps(catalog.data_path)}\n",
                encoding="utf-8",
            )
        return home


def lake_argument(lake: Lake) -> str:
    """A lake as one command-line argument, for writer processes (`lake_from_argument`)."""
    catalog = lake.ducklake
    store = catalog.s3 if catalog else None
    return json.dumps({"path": str(lake.path), "catalog": catalog.catalog if catalog else None,
                       "data_path": catalog.data_path if catalog else None,
                       "s3": dataclasses.asdict(store) if store else None})  # fmt: skip


def lake_from_argument(argument: str, *, lock_timeout: float = 300) -> Lake:
    spec = json.loads(argument)
    store = S3Settings(**spec["s3"]) if spec["s3"] else None
    catalog = DuckLakeCatalog(spec["catalog"], spec["data_path"], store) if spec["catalog"] else None
    return Lake(Path(spec["path"]), lock_timeout=lock_timeout, ducklake=catalog)


@contextmanager
def raw_connection(lake: Lake) -> Iterator[duckdb.DuckDBPyConnection]:
    """A writable connection past the lake's API, to make a lake look as an older version left it."""
    con = ducklake.connect(lake.ducklake, read_only=False) if lake.ducklake else duckdb.connect(str(lake.path))
    try:
        yield con
    finally:
        con.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[LocalPostgres]:
    with private_postgres() as server:
        yield server


@pytest.fixture(params=LAKE_KINDS)
def make_lake(request: pytest.FixtureRequest) -> LakeMaker:
    if request.param == EMBEDDED:
        return LakeMaker(EMBEDDED)
    return LakeMaker(DUCKLAKE, request.getfixturevalue("postgres_server"))
