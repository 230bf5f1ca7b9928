"""Every SQL test runs on both lakes: the embedded DuckDB file and DuckLake on Postgres."""

from __future__ import annotations

from pathlib import Path

import pytest
from lake_backends import LakeMaker

from skill2env.lake.lake import Lake


@pytest.fixture
def lake(make_lake: LakeMaker, tmp_path: Path) -> Lake:
    store = make_lake(tmp_path / "lake.duckdb")
    store.ensure_schema()
    return store
