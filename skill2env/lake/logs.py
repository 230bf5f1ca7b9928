"""The one thing a library stage may do to the lake while it runs: append to a log table.

Stages take the rows their asset read and return the writes their asset makes. Two logs cannot
wait for the end of a stage: rollout start and end markers (so a killed run's attempts are found
and closed) and the model-call ledger (so no call is lost with a crash). The asset hands the stage
an `AppendLog` for them (the lake itself satisfies it); nothing else in the library writes.
"""

from __future__ import annotations

from typing import Protocol

import polars as pl


class AppendLog(Protocol):
    def append(self, table: str, frame: pl.DataFrame) -> int:
        """Append `frame`'s rows to the log table `table` in one transaction; returns how many."""
        ...
