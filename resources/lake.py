"""The lake as a Dagster resource: a thin, configurable handle on `skill2env.lake.Lake`."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from skill2env.home import Home
from skill2env.lake.lake import Lake


class LakeResource(dg.ConfigurableResource):
    """The DuckDB lake under the skill2env home. Holds no connection: every call locks, connects, closes."""

    home: str = ""
    """skill2env home; '' means `$SKILL2ENV_HOME` or `./.skill2env`."""
    lock_timeout_seconds: float = 600.0

    @property
    def path(self) -> Path:
        return Home.resolve(self.home or None).lake_path

    def lake(self) -> Lake:
        return Lake(self.path, lock_timeout=self.lock_timeout_seconds)
