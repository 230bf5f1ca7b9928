"""The `llm_calls` ledger: one row per model call — cache hits and failures included.

Rows are buffered in memory (thread-safe, cheap enough to take on every call) and written to
the lake in bulk by `flush`, at the end of the asset that made the calls. A row holds the
endpoint's host, never its URL's credentials, and never the API key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
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
ROUNDS_TABLE = "llm_call_rounds"
LLM_CALL_ROUNDS_SCHEMA = pl.Schema(
    {
        "call_id": pl.String(),
        "round": pl.Int64(),
        "request_key": pl.String(),
        "source": pl.String(),
        "max_tokens": pl.Int64(),
        "temperature": pl.Float64(),
        "finish_reason": pl.String(),
        "input_tokens": pl.Int64(),
        "output_tokens": pl.Int64(),
        "content": pl.String(),
        "content_chars": pl.Int64(),
        "tool_calls": pl.String(),
        "error_class": pl.String(),
        "error_message": pl.String(),
    }
)


@dataclass(frozen=True)
class CallContext:
    """Who is calling: the asset, partition and run recorded with each call."""

    asset_key: str | None = None
    partition_key: str | None = None
    run_id: str | None = None
    narrate: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
    """Where a slow or failed call is said as it ends (the run's log), besides its ledger row."""


class Ledger:
    """A buffer of `llm_calls` rows and their `llm_call_rounds`."""

    def __init__(self) -> None:
        self._rows: list[dict[str, Any]] = []
        self._rounds: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def record(self, row: dict[str, Any], rounds: list[dict[str, Any]] | None = None) -> None:
        with self._lock:
            self._rows.append(row)
            self._rounds.extend({**r, "call_id": row["call_id"]} for r in rounds or ())

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._rows)

    def round_rows(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._rounds)

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows(), schema=LLM_CALLS_SCHEMA)

    def flush(self, log: AppendLog) -> int:
        """Append the buffered calls to `llm_calls`, then their rounds to `llm_call_rounds` (one
        transaction each), and empty the buffer; returns the calls written.

        On a failed write the rows not yet written stay buffered, so a later flush can still write them.
        """
        with self._lock:
            calls, self._rows = self._rows, []
            rounds, self._rounds = self._rounds, []
        written = 0
        try:
            written = log.append(TABLE, pl.DataFrame(calls, schema=LLM_CALLS_SCHEMA))
            log.append(ROUNDS_TABLE, pl.DataFrame(rounds, schema=LLM_CALL_ROUNDS_SCHEMA))
        except BaseException:
            with self._lock:
                self._rows = ([] if written else calls) + self._rows
                self._rounds = rounds + self._rounds
            raise
        return written
