"""A DuckLake whose data path is an S3-compatible object store (moto's S3 server on loopback): the
schema, concurrent writers from several processes, readers in others; every data file is an object
in the bucket and nothing is written to a local directory."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from lake_backends import DUCKLAKE, LakeMaker, free_port, lake_argument
from moto.server import ThreadedMotoServer

from skill2env.cluster.postgres import LocalPostgres
from skill2env.lake.ducklake import S3CredentialsError, S3Settings

WRITER = Path(__file__).resolve().parents[1] / "lake_writer.py"
BUCKET = "skill2env-lake"
WRITERS = 4
WRITES_PER_PROCESS = 5
ROWS_PER_WRITE = 50


@pytest.fixture
def s3_lakes(postgres_server: LocalPostgres, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LakeMaker, object]]:
    """Lakes on a bucket of a fresh S3 server, and a client of that server; the credentials only in the
    environment, as the writers (child processes) get them."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        for name, value in (("AWS_ACCESS_KEY_ID", "writer"), ("AWS_SECRET_ACCESS_KEY", "secret")):
            monkeypatch.setenv(name, value)
        client = boto3.client("s3", endpoint_url=f"http://{host}:{port}", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        store = S3Settings(endpoint=f"{host}:{port}", region="us-east-1", url_style="path", use_ssl=False)
        yield LakeMaker(DUCKLAKE, postgres_server, (BUCKET, store)), client
    finally:
        server.stop()


def test_writers_at_once_on_an_s3_data_path_lose_nothing(s3_lakes: tuple[LakeMaker, object], tmp_path: Path) -> None:
    make_lake, client = s3_lakes
    lake = make_lake(tmp_path / "lake.duckdb")
    lake.ensure_schema()
    assert lake.ducklake is not None and lake.ducklake.data_path.startswith(f"s3://{BUCKET}/")

    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), lake_argument(lake), f"w{n}", str(WRITES_PER_PROCESS)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    errors = [writer.communicate(timeout=300)[1] for writer in writers]

    assert [writer.returncode for writer in writers] == [0] * WRITERS, errors
    assert lake.query("SELECT count(*) FROM materializations").item() == WRITERS * WRITES_PER_PROCESS
    assert lake.query("SELECT count(*) FROM skills_versions").item() == WRITERS * WRITES_PER_PROCESS * ROWS_PER_WRITE
    assert lake.query("SELECT count(DISTINCT run_id) FROM skills_versions").item() == WRITERS * WRITES_PER_PROCESS
    prefix = lake.ducklake.data_path.removeprefix(f"s3://{BUCKET}/")
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])]  # type: ignore[attr-defined]
    assert len(keys) >= WRITERS * WRITES_PER_PROCESS and all(key.endswith(".parquet") for key in keys)
    assert list(tmp_path.iterdir()) == []  # no local data directory, no DuckDB file


def test_without_credentials_an_s3_lake_says_which_are_missing(
    s3_lakes: tuple[LakeMaker, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_lake, _ = s3_lakes
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(S3CredentialsError, match="needs AWS_SECRET_ACCESS_KEY in the environment"):
        make_lake(tmp_path / "lake.duckdb").ensure_schema()
