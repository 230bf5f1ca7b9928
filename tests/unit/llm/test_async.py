"""The async API: same behaviour as sync, concurrency bounded by the role's limit."""

from __future__ import annotations

import asyncio

from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, slow, status, text, tool_calls
from pydantic import BaseModel

from skill2env.llm.cache import CacheMode
from skill2env.llm.ledger import Ledger
from skill2env.llm.tools import Tool


class Answer(BaseModel):
    value: int


class Args(BaseModel):
    path: str


async def test_async_complete_structured_and_tools(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("hello"), text("{oops"), json_answer({"value": 7}), tool_calls(("read", {"path": "x"})))
    client = make_client()

    reply = await client.acomplete("hi")
    answer = await client.astructured("n?", Answer)
    turn = await client.acall_tools("read x", [Tool.from_model("read", "Read a file.", Args)])

    assert reply.content == "hello"
    assert answer.value == Answer(value=7)
    assert turn.calls[0].value == Args(path="x")
    assert [row["operation"] for row in ledger.rows()] == ["complete", "structured", "tools"]
    assert [row["attempts"] for row in ledger.rows()] == [1, 2, 1]


async def test_async_retries_and_cache(server: ScriptedServer, make_client: ClientFactory, ledger: Ledger) -> None:
    server.script(status(429, retry_after=0.01), text("ok"))
    client = make_client()
    assert (await client.acomplete("hi")).content == "ok"
    assert (await client.acomplete("hi")).content == "ok"
    assert len(server.requests) == 2
    assert [row["cache_hit"] for row in ledger.rows()] == [False, True]


async def test_concurrency_is_bounded_by_the_role(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.respond = lambda request: slow(0.15, text("done"))
    client = make_client(max_concurrency=3, cache=CacheMode.off)

    replies = await asyncio.gather(*(client.acomplete(f"question {i}") for i in range(9)))

    assert [r.content for r in replies] == ["done"] * 9
    assert server.max_in_flight == 3
    assert len(ledger) == 9


async def test_concurrent_calls_all_run_at_once_within_the_limit(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.respond = lambda request: slow(0.3, text("done"))
    client = make_client(max_concurrency=16, cache=CacheMode.off)

    started = asyncio.get_running_loop().time()
    await asyncio.gather(*(client.acomplete(f"q{i}") for i in range(16)))

    assert server.max_in_flight == 16
    assert asyncio.get_running_loop().time() - started < 0.3 * 4


def test_threads_are_bounded_too(server: ScriptedServer, make_client: ClientFactory) -> None:
    from concurrent.futures import ThreadPoolExecutor

    server.respond = lambda request: slow(0.1, text("done"))
    client = make_client(max_concurrency=2, cache=CacheMode.off)
    with ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(lambda i: client.complete(f"q{i}"), range(6)))
    assert len(replies) == 6 and server.max_in_flight == 2


async def test_one_client_serves_several_event_loops(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.respond = lambda request: text("ok")
    client = make_client(cache=CacheMode.off)
    assert (await client.acomplete("in this loop")).content == "ok"

    def in_another_loop() -> str | None:
        return asyncio.run(client.acomplete("in another loop")).content

    assert await asyncio.to_thread(in_another_loop) == "ok"
