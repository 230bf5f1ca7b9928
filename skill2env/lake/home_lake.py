"""The lake of a skill2env home, as the active profile has it: the home's DuckDB file (embedded), or the
cluster's DuckLake (`cluster.toml`)."""

from __future__ import annotations

from skill2env.cluster.profile import cluster_settings
from skill2env.home import Home
from skill2env.lake.lake import Lake


def lake_of(home: Home, *, lock_timeout: float = 600.0) -> Lake:
    settings = cluster_settings(home)
    return Lake(home.lake_path, lock_timeout=lock_timeout, ducklake=settings.lake if settings else None)
