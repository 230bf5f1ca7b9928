"""Streamed answers: a slow model that keeps writing is not cut off, one that stalls after it started
is the model's failure (tokens counted, partial kept) and is retried warmer, never as the same
request; a looping answer is not blamed on the budget."""

from __future__ import annotations

import time

import pytest
from llm_fixtures import ClientFactory
from llm_server import (
    ScriptedServer,
    cut_stream,
    failing_stream,
    paced,
    slow,
    stalling,
    text,
    tool_calls,
    truncated,
)

from skill2env.llm import (
    ModelLooping,
    ModelOverBudget,
    ModelRequestRejected,
    ModelStalled,
    ModelTruncated,
    ModelUnavailable,
    Tool,
)
from skill2env.llm.flow import repeats_itself
from skill2env.llm.ledger import Ledger
from skill2env.llm.streaming import stuck_in_a_loop

ANSWER = "a steady answer that arrives in many small pieces, four characters at a time"


def test_answers_are_streamed_and_assembled(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text(ANSWER))
    reply = make_client().complete("hi")
    assert reply.content == ANSWER and reply.finish_reason == "stop"
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["stream_options"] == {"include_usage": True}


def test_tool_calls_arrive_in_pieces_and_are_put_together(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(tool_calls(("lookup", {"query": "a fairly long argument value", "limit": 3})))
    lookup = Tool(
        "lookup",
        "Look something up.",
        {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}},
    )
    turn = make_client().call_tools("find it", [lookup])
    assert [(c.name, c.arguments) for c in turn.calls] == [("lookup", {"query": "a fairly long argument value",
                                                                       "limit": 3})]  # fmt: skip


def test_a_slow_model_that_keeps_writing_is_not_cut_off(server: ScriptedServer, make_client: ClientFactory) -> None:
    # 20 chunks, 0.05 s apart: a second in all, five times the idle timeout, never silent that long.
    server.script(paced(text(ANSWER), 0.05))
    reply = make_client(timeout_seconds=0.25).complete("hi")
    assert reply.content == ANSWER


def test_a_stall_after_tokens_is_the_models_and_is_retried_warmer(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(stalling(text(ANSWER), after=4, seconds=1.0), text("second try"))
    reply = make_client(timeout_seconds=0.2, temperature=0.0).complete("hi")

    assert reply.content == "second try"
    assert [r["temperature"] for r in server.requests] == [0.0, 0.4]  # the retry changed something
    (row,) = ledger.rows()
    assert row["status"] == "ok" and row["output_tokens"] > 0
    first, second = ledger.round_rows()
    assert first["error_class"] == "ModelStalled" and first["content"] == ANSWER[:12]
    assert first["output_tokens"] == 3 and second["content"] == "second try"


def test_a_model_that_stalls_again_fails_as_output_with_its_tokens(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(*[stalling(text(ANSWER), after=6, seconds=1.0)] * 2)
    with pytest.raises(ModelStalled, match=r"went silent for 0\.2 s after 5 tokens") as stalled:
        make_client(timeout_seconds=0.2).complete("hi")
    assert stalled.value.partial == ANSWER[:20]
    (row,) = ledger.rows()
    assert (row["error_kind"], row["output_tokens"], row["endpoint_requests"]) == ("output", 10, 2)


def test_an_endpoint_that_ends_the_answer_with_an_error_is_an_output_failure(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    overflow = failing_stream(text(ANSWER), "the request exceeds the available context size", after=5)
    server.script(overflow, overflow)
    with pytest.raises(ModelStalled, match=r"stopped by the endpoint .*exceeds the available context size"):
        make_client().complete("hi")


def test_silence_before_the_first_token_is_still_an_infrastructure_timeout(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(slow(1.0, text("late")), slow(1.0, text("late")))
    with pytest.raises(ModelUnavailable, match="timed out"):
        make_client(timeout_seconds=0.2, max_attempts=2).complete("hi")
    (row,) = ledger.rows()
    assert (row["error_kind"], row["output_tokens"]) == ("infrastructure", 0)


def test_a_looping_answer_is_retried_warmer_and_then_named_a_loop(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    # not streamed: the loop is seen only once the answer has run out of room
    loop = "- challenge: find the total of the rows\n" * 30
    server.script(truncated(loop), truncated(loop))
    with pytest.raises(ModelTruncated, match="repeats itself: the model is looping, and more room would not help"):
        make_client(temperature=0.0, stream=False).complete("hi")
    assert [r["temperature"] for r in server.requests] == [0.0, 0.4]
    assert [r["max_tokens"] for r in server.requests] == [server.requests[0]["max_tokens"]] * 2


def test_a_loop_is_stopped_while_it_streams_not_when_the_room_runs_out(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    item = '{"id": "c", "statement": "the total of the rows is the total"}, '
    endless = '{"facts": [' + item * 400  # 25,000 characters: what a looping model writes until its room is gone
    server.script(text(endless), text(endless))

    with pytest.raises(ModelLooping, match=rf"one stretch of {len(item)} characters written 10 times in a row") as loop:
        make_client(temperature=0.0, max_tokens=8000).complete("hi")

    assert [r["temperature"] for r in server.requests] == [0.0, 0.4], "retried warmer, once"
    assert len(loop.value.partial) < 1_000 and item * 9 in loop.value.partial
    (row,) = ledger.rows()
    assert row["error_kind"] == "output" and row["error_class"] == "ModelLooping"
    assert 0 < row["output_tokens"] < 2 * 1_000 // 4 + 2, "the tokens written before each stop are counted"
    rounds = ledger.round_rows()
    assert [r["error_class"] for r in rounds] == ["ModelLooping", "ModelLooping"] and rounds[0]["content"]


def test_long_answers_with_repeated_layout_are_not_taken_for_loops(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    rows = "\n".join(f"2024-05-{1 + i % 28:02d},sensor-{i % 7},{i * 13 % 97}.{i % 10}" for i in range(300))
    layout = "=" * 800 + "\n" + " " * 700 + "\n" + rows + "\n" + "-" * 900
    server.script(text(layout))
    assert make_client(max_tokens=8000).complete("hi").content == layout
    assert stuck_in_a_loop(layout) is None
    assert stuck_in_a_loop("a,b\n" + "the same row of cells, again\n" * 30) == (29, 21)


def test_no_request_starts_after_the_calls_deadline(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text("never asked"))
    with pytest.raises(ModelOverBudget, match="deadline passed before request 1 was sent"):
        make_client().complete("hi", deadline=time.monotonic() - 1)
    assert server.requests == []


def test_repetition_is_told_from_an_answer_that_is_merely_long() -> None:
    assert repeats_itself("intro " + "the same twenty-odd chars " * 5)
    assert not repeats_itself(" ".join(f"row {i} holds value {i * 7}" for i in range(100)))


def test_an_endpoint_that_does_not_stream_can_be_told_so(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(text("whole"))
    assert make_client(stream=False).complete("hi").content == "whole"
    assert "stream" not in server.requests[0]


def test_a_connection_cut_mid_answer_is_the_transports_and_retried_as_is(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(cut_stream(text(ANSWER), after=5), text("whole"))
    reply = make_client(temperature=0.0).complete("hi")
    assert reply.content == "whole"
    assert [r["temperature"] for r in server.requests] == [0.0, 0.0]  # the model never failed: the same request
    (row,) = ledger.rows()
    assert row["endpoint_requests"] == 2 and row["output_tokens"] > 0


def test_an_error_event_before_the_first_token_is_a_rejected_request(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(failing_stream(text(ANSWER), "the request exceeds the available context size", after=0))
    with pytest.raises(ModelRequestRejected, match="before its first token: the request exceeds"):
        make_client().complete("hi")
