"""`llm_calls` and the `llm_usage` view, from hand-written ledger rows."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import polars as pl
import pytest

from skill2env.lake.lake import Lake, UnknownTableError
from skill2env.llm.ledger import LLM_CALLS_SCHEMA


def call(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {column: None for column in LLM_CALLS_SCHEMA}
    row.update(
        call_id=f"c{len(overrides)}-{sorted(overrides.items())}",
        called_at=datetime(2025, 3, 1, 12, 0, tzinfo=UTC),
        role="curator",
        model="m1",
        endpoint_host="127.0.0.1:8000",
        operation="structured",
        prompt_hash="p" * 16,
        input_tokens=100,
        output_tokens=10,
        cached_input_tokens=0,
        cached_output_tokens=0,
        cost_usd=0.5,
        latency_ms=20.0,
        cache_hit=False,
        attempts=1,
        endpoint_requests=1,
        status="ok",
        asset_key="curated_skills",
    )
    row.update(overrides)
    return row


def append(lake: Lake, *rows: dict[str, Any]) -> None:
    lake.append("llm_calls", pl.DataFrame(list(rows), schema=LLM_CALLS_SCHEMA))


def test_usage_per_day_role_model_and_asset(lake: Lake) -> None:
    append(
        lake,
        call(),
        call(latency_ms=40.0, input_tokens=50, output_tokens=5, cost_usd=0.25),
        call(cache_hit=True, input_tokens=0, output_tokens=0, cost_usd=0.0, cached_input_tokens=100,
             cached_output_tokens=10, endpoint_requests=0, latency_ms=0.4),
        call(status="error", error_class="ModelUnavailable", error_kind="infrastructure", input_tokens=0,
             output_tokens=0, cost_usd=0.0, attempts=4, endpoint_requests=4),
        call(status="error", error_class="ModelOutputInvalid", error_kind="output", attempts=3, endpoint_requests=3),
        call(role="judge", model="m2"),
        call(called_at=datetime(2025, 3, 2, 0, 30, tzinfo=UTC)),
        call(asset_key=None),
    )  # fmt: skip

    usage = lake.query("SELECT * FROM llm_usage")

    assert usage.select("day", "role", "model", "asset_key", "calls").rows() == [
        (datetime(2025, 3, 1).date(), "curator", "m1", "", 1),
        (datetime(2025, 3, 1).date(), "curator", "m1", "curated_skills", 5),
        (datetime(2025, 3, 1).date(), "judge", "m2", "curated_skills", 1),
        (datetime(2025, 3, 2).date(), "curator", "m1", "curated_skills", 1),
    ]
    main = usage.row(1, named=True)
    assert (main["cache_hits"], main["errors"], main["infrastructure_errors"]) == (1, 2, 1)
    assert (main["input_tokens"], main["output_tokens"], main["tokens_spent"]) == (250, 25, 275)
    assert main["tokens_saved"] == 110
    assert main["cost_usd"] == pytest.approx(1.25)
    assert main["endpoint_requests"] == 9
    assert main["median_latency_ms"] == 20.0


def test_the_day_is_the_utc_day(lake: Lake) -> None:
    append(lake, call(called_at=datetime(2025, 3, 1, 23, 59, tzinfo=UTC)))
    assert lake.query("SELECT day FROM llm_usage").item() == datetime(2025, 3, 1).date()


def test_an_empty_ledger_has_no_usage(lake: Lake) -> None:
    assert lake.query("SELECT count(*) FROM llm_usage").item() == 0


def test_llm_calls_is_a_log_table_not_a_versioned_one(lake: Lake) -> None:
    from skill2env.lake.lake import TableWrite

    with pytest.raises(UnknownTableError):
        lake.write([TableWrite("llm_calls", pl.DataFrame([call()], schema=LLM_CALLS_SCHEMA))], run_id="r",
                   code_version="v")  # fmt: skip
