"""What the library may see of the lake: a read-only snapshot, and appends to a log table.

Stages take the rows their asset read and return the writes their asset makes; only assets (and the
command line, the other composition root) hold a `Lake`. Two logs cannot wait for the end of a
stage: rollout start and end markers (so a killed run's attempts are found and closed) and the
model-call ledger (so no call is lost with a crash). The asset hands the stage an `AppendLog` for
them. Exports read several views from one consistent snapshot through a `Snapshot`. The lake
satisfies both; nothing else in the library writes.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

import polars as pl

from skill2env.lake.lake import Reader


class AppendLog(Protocol):
    def append(self, table: str, frame: pl.DataFrame) -> int:
        """Append `frame`'s rows to the log table `table` in one transaction; returns how many."""
        ...


class Snapshot(Protocol):
    @property
    def location(self) -> str:
        """Where the lake is (for the record: a report names the lake it read)."""
        ...

    def reading(self) -> AbstractContextManager[Reader]:
        """Several read-only queries on one consistent view of the lake."""
        ...
