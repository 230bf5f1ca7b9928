"""Output budgets sized to the answer: the bound a schema puts on an answer's length, and the room a
structured call asks for with it."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, truncated
from pydantic import BaseModel, Field

from skill2env.llm.budget import CHARS_PER_TOKEN, answer_tokens
from skill2env.llm.errors import ModelTruncated


class Pick(BaseModel):
    pattern: Literal["stale_cache", "timezone_drift"]
    rationale: str = Field(max_length=300)
    weight: float | None = None


class Choice(BaseModel):
    picks: list[Pick] = Field(min_length=1, max_length=4)
    note: str = Field("", max_length=40)
    done: bool = True


class Essay(BaseModel):
    sections: list[str] = Field(max_length=3)  # strings without a bound: so is the answer


class Free(BaseModel):
    extra: dict[str, int]


def test_the_longest_answer_a_schema_allows_fits_its_bound() -> None:
    worst = Choice(
        picks=[Pick(pattern="timezone_drift", rationale='"' * 300, weight=-1.2345678901234567e-300)] * 4,
        note="\\" * 40,
        done=False,
    )
    bound = answer_tokens(Choice.model_json_schema())
    assert bound is not None
    assert len(json.dumps(worst.model_dump(mode="json"))) <= (bound - 64) * CHARS_PER_TOKEN
    assert bound < 2048  # a small answer: far less than a flat default


@pytest.mark.parametrize("model", [Essay, Free])
def test_an_unbounded_part_leaves_the_answer_unbounded(model: type[BaseModel]) -> None:
    assert answer_tokens(model.model_json_schema()) is None


def test_a_small_answer_keeps_the_configured_room_and_a_cut_off_one_is_not_given_more(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(truncated('{"picks": [{"pattern": "stale_cache", "rationale": "again and again and again'))

    with pytest.raises(ModelTruncated, match="runs past what the schema allows"):
        make_client(max_tokens=2048, max_tokens_ceiling=8192).structured("choose", Choice)

    assert [request["max_tokens"] for request in server.requests] == [2048]


def test_a_long_bounded_answer_gets_its_room_at_once(server: ScriptedServer, make_client: ClientFactory) -> None:
    class Report(BaseModel):
        body: str = Field(max_length=9_000)

    bound = answer_tokens(Report.model_json_schema())
    assert bound is not None and 2048 < bound < 8192
    server.script(json_answer({"body": "ok"}))
    make_client(max_tokens=2048, max_tokens_ceiling=8192).structured("report", Report)
    server.script(json_answer({"body": "ok"}))
    make_client(max_tokens=2048, max_tokens_ceiling=4096).structured("report", Report)
    server.script(json_answer({"body": "ok"}))
    make_client(max_tokens=2048, max_tokens_ceiling=8192).structured("report", Report, max_tokens=1000)

    assert [request["max_tokens"] for request in server.requests] == [bound, 4096, 1000]


def test_an_unbounded_answer_keeps_the_configured_room_and_doubles_when_cut_off(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(truncated('{"sections": ["a'), json_answer({"sections": ["a"]}))
    make_client(max_tokens=100, max_tokens_ceiling=1000).structured("write", Essay)
    assert [request["max_tokens"] for request in server.requests] == [100, 200]
