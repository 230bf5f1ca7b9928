"""An answer's room fits the model's context window: configured, or read from the endpoint's model
listing once; without either the budget is the configured one."""

from __future__ import annotations

from llm_fixtures import ClientFactory
from llm_server import MODEL, ScriptedServer, text, truncated

LONG_PROMPT = "Describe every row of this table in turn. " + "row | value | note\n" * 500  # ~9,500 characters


def test_the_endpoints_listed_window_bounds_the_answer(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.listing = {"object": "list", "data": [{"id": MODEL, "max_model_len": 4096}]}
    server.script(text("ok"), text("ok"))
    client = make_client(max_tokens=2048, max_tokens_ceiling=8192)
    client.complete(LONG_PROMPT)
    client.complete("short")
    fitted, roomy = (r["max_tokens"] for r in server.requests)
    assert 256 <= fitted < 2048 - 500 and fitted + len(LONG_PROMPT) // 4 < 4096
    assert roomy == 2048


def test_a_truncated_answer_is_not_given_room_the_model_does_not_have(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.listing = {"object": "list", "data": [{"id": "other"}, {"id": MODEL, "meta": {"n_ctx_train": 3072}}]}
    server.script(truncated("part one, then part two"), text("whole"))
    make_client(max_tokens=1024, max_tokens_ceiling=8192).complete("write it")
    first, second = (r["max_tokens"] for r in server.requests)
    assert first == 1024 and 1024 < second < 3072


def test_a_configured_window_wins_and_without_one_the_budget_stands(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.listing = {"object": "list", "data": [{"id": MODEL, "max_model_len": 100_000}]}
    server.script(text("ok"), text("ok"))
    make_client(max_tokens=4000, context_tokens=2048).complete(LONG_PROMPT)
    server.listing = {"object": "list", "data": [{"id": MODEL}]}
    make_client(max_tokens=4000).complete(LONG_PROMPT)
    assert [r["max_tokens"] for r in server.requests] == [256, 4000]  # the prompt fills 2,048: the least room
