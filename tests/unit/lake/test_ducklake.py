"""What the DuckLake lake changes in the embedded lake's SQL, and how it fails without its extensions."""

from __future__ import annotations

import pytest

from skill2env.lake import ducklake
from skill2env.lake.ducklake import DuckLakeCatalog, DuckLakeUnavailableError, S3CredentialsError, S3Settings
from skill2env.lake.lake import schema_statements


def test_the_ducklake_schema_differs_only_where_ducklake_needs_it() -> None:
    embedded, lake = schema_statements(), schema_statements(ducklake.DIALECT)

    assert len(lake) == len(embedded) - 1  # no sequence
    assert not any("SEQUENCE" in s or "PRIMARY KEY" in s or "UNIQUE" in s for s in lake)
    assert not any("USING COMPRESSION" in s for s in lake)
    assert any("USING COMPRESSION" in s for s in embedded)
    changed = {s for s in lake if s not in embedded}
    assert len(changed) == 3  # materializations, latest_materializations, the compressed catalog table
    assert any("ORDER BY snapshot_id DESC" in s for s in changed)


def test_a_description_never_shows_the_catalog_password() -> None:
    catalog = DuckLakeCatalog("host=db password=s3cret dbname=lake", "s3://bucket/lake/")
    assert "s3cret" not in catalog.describe()
    assert catalog.describe() == "ducklake (catalog host=db password=*** dbname=lake, data s3://bucket/lake/)"


def test_without_the_extension_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ducklake.EXTENSION_PACKAGES, "ducklake", "duckdb_extension_not_installed")
    with pytest.raises(DuckLakeUnavailableError, match=r"pip install 'skill2env\[cluster\]'"):
        ducklake.extension_path("ducklake")


def test_the_s3_secret_takes_the_credentials_from_the_environment_only() -> None:
    settings = S3Settings(endpoint="127.0.0.1:9000", region="us-east-1", url_style="path", use_ssl=False)
    keys = {"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "it's"}

    statement = ducklake.s3_secret(settings, keys)

    assert statement == (
        "CREATE OR REPLACE SECRET lake_s3 (TYPE s3, KEY_ID 'id', SECRET 'it''s', REGION 'us-east-1', "
        "ENDPOINT '127.0.0.1:9000', URL_STYLE 'path', USE_SSL false)"
    )
    assert "SESSION_TOKEN 't'" in ducklake.s3_secret(S3Settings(), keys | {"AWS_SESSION_TOKEN": "t"})
    with pytest.raises(S3CredentialsError, match="needs AWS_SECRET_ACCESS_KEY in the environment"):
        ducklake.s3_secret(settings, {"AWS_ACCESS_KEY_ID": "id"})
