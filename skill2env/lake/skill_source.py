"""The lake as curation's `SkillSource`: each process reads its own chunk under a shared lock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from skill2env.lake.ducklake import DuckLakeCatalog
from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql


@dataclass(frozen=True)
class LakeSkillSource:
    """The newest catalog's `skills` rows in the lake at `lake_path`, or in the DuckLake `ducklake`
    (plain values, so it pickles)."""

    lake_path: Path
    lock_timeout: float = 600.0
    ducklake: DuckLakeCatalog | None = None

    def keys(self, domains: Sequence[str]) -> pl.DataFrame:
        return self._lake().query(load_sql("queries/skill_keys_of_domains"), {"domains": list(domains)})

    def rows(self, domain: str, first_path: str, last_path: str) -> pl.DataFrame:
        bound = {"domain": domain, "first_path": first_path, "last_path": last_path}
        return self._lake().query(load_sql("queries/skills_of_domain"), bound)

    def _lake(self) -> Lake:
        # One Lake per process and path: it checks the lake's schema once, not once per chunk.
        lake = _LAKES.get(self)
        if lake is None:
            lake = _LAKES[self] = Lake(self.lake_path, lock_timeout=self.lock_timeout, ducklake=self.ducklake)
        return lake


_LAKES: dict[LakeSkillSource, Lake] = {}
