"""The ledger goes to the lake's `llm_calls` in bulk; failures are rows too."""

from __future__ import annotations

import polars as pl
import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, status, text

from skill2env.lake.lake import Lake
from skill2env.llm.errors import ModelUnavailable
from skill2env.llm.ledger import LLM_CALLS_SCHEMA, Ledger


def test_calls_and_failures_are_flushed_to_llm_calls_in_one_append(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, lake: Lake
) -> None:
    server.script(text("a"), status(500), status(500))
    client = make_client(max_attempts=2)
    client.complete("one")
    client.complete("one")  # a cache hit
    with pytest.raises(ModelUnavailable):
        client.complete("two")

    assert ledger.flush(lake) == 3
    assert len(ledger) == 0
    rows = lake.query("SELECT status, cache_hit, error_class, attempts FROM llm_calls ORDER BY called_at")
    assert rows.rows() == [("ok", False, None, 1), ("ok", True, None, 1), ("error", False, "ModelUnavailable", 2)]
    assert ledger.flush(lake) == 0


def test_a_failed_flush_keeps_the_rows(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, lake: Lake, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script(text("a"))
    make_client().complete("one")

    def broken(table: str, frame: pl.DataFrame) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(lake, "append", broken)
    with pytest.raises(OSError, match="disk full"):
        ledger.flush(lake)
    monkeypatch.undo()

    assert len(ledger) == 1
    assert ledger.flush(lake) == 1


def test_the_frame_has_the_table_schema(server: ScriptedServer, make_client: ClientFactory, ledger: Ledger) -> None:
    server.script(text("a"))
    make_client().complete("one")
    assert ledger.frame().schema == LLM_CALLS_SCHEMA


def test_every_round_keeps_its_raw_answer_linked_to_the_call(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger, lake: Lake
) -> None:
    """A user can read what the model said in each round of a call: the failed try, the invalid
    answer that went back for repair and the accepted one, in order, joined to the call's row."""
    from pydantic import BaseModel

    class Pick(BaseModel):
        name: str

    server.script(status(500), text("not json at all"), text('{"name": "ok"}'))
    assert make_client(max_attempts=2).structured("pick one", Pick).value.name == "ok"

    assert ledger.flush(lake) == 1
    rounds = lake.query(
        "SELECT r.round, r.source, r.error_class, r.content, r.content_chars, c.status "
        "FROM llm_call_rounds AS r JOIN llm_calls AS c USING (call_id) ORDER BY r.round"
    )
    assert rounds.rows() == [
        (1, "endpoint", "InternalServerError", None, 0, "ok"),
        (2, "endpoint", None, "not json at all", 15, "ok"),
        (3, "endpoint", None, '{"name": "ok"}', 14, "ok"),
    ]
    keys = lake.query("SELECT count(DISTINCT request_key) FROM llm_call_rounds").item()
    assert keys == 2  # the retry repeats the request; the repair round is a new one
