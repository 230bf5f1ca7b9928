from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from skill2env.lake.lake import Lake

pytest_plugins = ["llm_fixtures", "lake_backends"]

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "skills-dev"


@pytest.fixture
def lake(tmp_path: Path) -> Lake:
    store = Lake(tmp_path / "lake.duckdb", lock_timeout=60)
    store.ensure_schema()
    return store


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"development corpus not found at {CORPUS}")
    return CORPUS
