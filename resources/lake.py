"""The lake as a Dagster resource: a thin, configurable handle on `skill2env.lake.Lake`."""

from __future__ import annotations

import dagster as dg

from skill2env.home import Home
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import Lake


class LakeResource(dg.ConfigurableResource):
    """The lake of the skill2env home (its DuckDB file, or the cluster's DuckLake). Holds no connection:
    every call connects and closes."""

    home: str = ""
    """skill2env home; '' means `$SKILL2ENV_HOME` or `./.skill2env`."""
    lock_timeout_seconds: float = 600.0

    def lake(self) -> Lake:
        """The home's lake under the active profile (`skill2env.cluster.profile`)."""
        return lake_of(Home.resolve(self.home or None), lock_timeout=self.lock_timeout_seconds)
