"""The lake as curation's `SkillSource`: each process reads its own chunk under a shared lock."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    keep_open: bool | None = None
    """Keep the lake open between chunks (`_Keeper`); by default only in worker processes, which never
    write to the lake (a process that also writes would wait for its own keeper to let go)."""

    def keys(self, domains: Sequence[str]) -> pl.DataFrame:
        return self._lake().query(load_sql("queries/skill_keys_of_domains"), {"domains": list(domains)})

    def rows(self, domain: str, first_path: str, last_path: str) -> list[dict[str, Any]]:
        bound = {"domain": domain, "first_path": first_path, "last_path": last_path}
        lake, sql = self._lake(), load_sql("queries/skills_of_domain")
        keep_open = multiprocessing.parent_process() is not None if self.keep_open is None else self.keep_open
        if not keep_open:
            return lake.query_rows(sql, bound)
        keeper = _KEEPERS.setdefault(self, _Keeper(lake))
        keeper.hold()
        try:
            return lake.query_rows(sql, bound)
        finally:
            keeper.release_later()

    def _lake(self) -> Lake:
        # One Lake per process and path: it checks the lake's schema once, not once per chunk.
        lake = _LAKES.get(self)
        if lake is None:
            lake = _LAKES[self] = Lake(self.lake_path, lock_timeout=self.lock_timeout, ducklake=self.ducklake)
        return lake


KEEP_OPEN_S = 5.0
"""How long a process keeps the lake open after reading a chunk, waiting for its next chunk; it lets
go at once when a writer waits for the lake."""
_WATCH_S = 0.05


class _Keeper:
    """`Lake.held_open()` between the chunks a process reads: closed `KEEP_OPEN_S` after the last read,
    or as soon as a writer waits for the lake (`Lake.write_wanted_since`).

    Closing never disturbs a read (each read has its own connection and lock): the keeper only keeps
    DuckDB's cache warm from one chunk to the next.
    """

    def __init__(self, lake: Lake) -> None:
        self._lake = lake
        self._guard = threading.Lock()
        self._held: ExitStack | None = None
        self._held_since = 0
        self._file: tuple[int, int] | None = None
        self._reading = 0
        self._last_read = 0.0

    def hold(self) -> None:
        with self._guard:
            self._reading += 1
            if self._held is not None and self._file != _identity(self._lake.path):
                # the lake was replaced (removed and made again): DuckDB would go on serving the old file
                self._held.close()
                self._held = None
            if self._held is None:
                held = ExitStack()
                held.enter_context(self._lake.held_open())
                self._held, self._held_since, self._file = held, time.time_ns(), _identity(self._lake.path)
                threading.Thread(target=self._watch, args=(held,), name="lake-keeper", daemon=True).start()

    def release_later(self) -> None:
        with self._guard:
            self._reading -= 1
            self._last_read = time.monotonic()

    def _watch(self, held: ExitStack) -> None:
        """Close `held` when it is time; return once it is closed (here, or by `hold` for a replaced lake)."""
        while True:
            time.sleep(_WATCH_S)
            with self._guard:
                if self._held is not held:
                    return
                idle = self._reading == 0
                expired = time.monotonic() - self._last_read > KEEP_OPEN_S
                if idle and (expired or self._lake.write_wanted_since(self._held_since)):
                    held.close()
                    self._held = None
                    return


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


_LAKES: dict[LakeSkillSource, Lake] = {}
_KEEPERS: dict[LakeSkillSource, _Keeper] = {}
