"""The `llm_calls` ledger: one row per model call — cache hits and failures included.

Rows are buffered in memory (thread-safe, cheap enough to take on every call) and written to
the lake in bulk by `flush`, at the end of the asset that made the calls. A row holds the
endpoint's host, never its URL's credentials, and never the API key.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import polars as pl

from skill2env.lake.ports import AppendLog

LLM_CALLS_SCHEMA = pl.Schema(
    {
        "call_id": pl.String(),
        "called_at": pl.Datetime("us", "UTC"),
        "role": pl.String(),
        "model": pl.String(),
        "endpoint_host": pl.String(),
        "operation": pl.String(),
        "prompt_hash": pl.String(),
        "request_key": pl.String(),
        "template_id": pl.String(),
        "template_version": pl.String(),
        "input_tokens": pl.Int64(),
        "output_tokens": pl.Int64(),
        "cached_input_tokens": pl.Int64(),
        "cached_output_tokens": pl.Int64(),
        "cost_usd": pl.Float64(),
        "latency_ms": pl.Float64(),
        "cache_hit": pl.Boolean(),
        "attempts": pl.Int64(),
        "endpoint_requests": pl.Int64(),
        "finish_reason": pl.String(),
        "status": pl.String(),
        "error_class": pl.String(),
        "error_kind": pl.String(),
        "error_message": pl.String(),
        "asset_key": pl.String(),
        "partition_key": pl.String(),
        "run_id": pl.String(),
    }
)
TABLE = "llm_calls"


@dataclass(frozen=True)
class CallContext:
    """Who is calling: the asset, partition and run recorded with each call."""

    asset_key: str | None = None
    partition_key: str | None = None
    run_id: str | None = None


class Ledger:
    """A buffer of `llm_calls` rows."""

    def __init__(self) -> None:
        self._rows: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, row: dict[str, Any]) -> None:
        with self._lock:
            self._rows.append(row)

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._rows)

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows(), schema=LLM_CALLS_SCHEMA)

    def flush(self, log: AppendLog) -> int:
        """Append the buffered rows to `llm_calls` in one transaction and empty the buffer.

        On a failed write the rows stay buffered, so a later flush can still write them.
        """
        with self._lock:
            taken, self._rows = self._rows, []
        try:
            return log.append(TABLE, pl.DataFrame(taken, schema=LLM_CALLS_SCHEMA))
        except BaseException:
            with self._lock:
                self._rows = taken + self._rows
            raise
