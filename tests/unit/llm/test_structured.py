"""Structured output: validated instances, repair rounds, format step-downs, truncation, refusals."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, refusal, status, text, truncated
from pydantic import BaseModel, Field

from skill2env.llm.errors import ModelOutputInvalid, ModelRefused, ModelRequestRejected, ModelTruncated
from skill2env.llm.ledger import Ledger
from skill2env.llm.structured import extract_json, response_schema


class Step(BaseModel):
    command: str
    timeout: int = Field(ge=1)


class Plan(BaseModel):
    title: str
    level: Literal["easy", "hard"]
    steps: list[Step]


GOOD = {"title": "t", "level": "easy", "steps": [{"command": "ls", "timeout": 5}]}


def test_json_schema_is_requested_and_the_answer_validated(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(json_answer(GOOD))

    result = make_client().structured("plan it", Plan)

    assert result.value == Plan.model_validate(GOOD)
    assert result.mode == "json_schema"
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Plan" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["title", "level", "steps"]
    assert schema["$defs"]["Step"]["required"] == ["command", "timeout"]


def test_strict_schema_keeps_no_defaults_and_closes_every_object() -> None:
    class WithDefault(BaseModel):
        name: str = "x"
        nested: Step | None = None

    schema = response_schema(WithDefault, strict=True)
    assert "default" not in json.dumps(schema)
    assert schema["required"] == ["name", "nested"]
    assert schema["$defs"]["Step"]["additionalProperties"] is False


def test_malformed_json_is_sent_back_and_the_repair_accepted(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text('{"title": "t", "level": "easy", "steps": [{"command": '), json_answer(GOOD))

    result = make_client().structured("plan it", Plan)

    assert result.value.title == "t"
    repair = server.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"title": "t", "level": "easy", "steps": [{"command": '}
    assert "not valid JSON" in repair[-1]["content"]
    (row,) = ledger.rows()
    assert (row["status"], row["attempts"], row["endpoint_requests"]) == ("ok", 2, 2)


def test_schema_violations_go_back_with_their_errors(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(json_answer({"title": "t", "level": "medium", "steps": [{"command": "ls", "timeout": 0}]}),
                  json_answer(GOOD))  # fmt: skip

    make_client().structured("plan it", Plan)

    feedback = server.requests[1]["messages"][-1]["content"]
    assert "level: Input should be 'easy' or 'hard'" in feedback
    assert "steps.0.timeout: Input should be greater than or equal to 1" in feedback


def test_invalid_after_every_repair_round_is_model_output_invalid(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(text("nope"), text("still not"), text("never"))

    with pytest.raises(ModelOutputInvalid) as caught:
        make_client(max_repairs=2).structured("plan it", Plan)

    assert caught.value.attempts == 3
    assert not caught.value.infrastructure
    assert len(server.requests) == 3
    (row,) = ledger.rows()
    assert (row["status"], row["error_class"], row["error_kind"]) == ("error", "ModelOutputInvalid", "output")


def test_a_semantic_check_is_repaired_like_a_schema_error(server: ScriptedServer, make_client: ClientFactory) -> None:
    two_steps = {**GOOD, "steps": [{"command": "ls", "timeout": 1}, {"command": "pwd", "timeout": 1}]}
    server.script(json_answer(GOOD), json_answer(two_steps))

    def at_least_two(plan: Plan) -> list[str]:
        return [] if len(plan.steps) >= 2 else ["steps: give at least two steps"]

    result = make_client().structured("plan it", Plan, check=at_least_two)

    assert len(result.value.steps) == 2
    assert "give at least two steps" in server.requests[1]["messages"][-1]["content"]


def test_auto_steps_down_to_json_mode_then_plain_text_when_rejected(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(
        status(400, "response_format json_schema is not supported"),
        status(400, "response_format json_object is not supported"),
        text("Sure! Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nAnything else?"),
        json_answer(GOOD),
    )
    client = make_client()

    first = client.structured("plan it", Plan)
    second = client.structured("plan it again", Plan)

    assert first.value == second.value == Plan.model_validate(GOOD)
    assert first.mode == second.mode == client.structured_mode == "text"
    formats = [request.get("response_format", {}).get("type") for request in server.requests]
    assert formats == ["json_schema", "json_object", None, None]
    instruction = server.requests[1]["messages"][-1]
    assert instruction["role"] == "system" and "JSON schema" in instruction["content"]


def test_a_fixed_mode_is_not_stepped_down(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(status(400, "unsupported response_format"))
    with pytest.raises(ModelRequestRejected, match="HTTP 400"):
        make_client(structured_mode="json_schema").structured("plan it", Plan)
    assert len(server.requests) == 1


def test_json_object_mode(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(json_answer(GOOD))
    make_client(structured_mode="json_object").structured("plan it", Plan)
    assert server.requests[0]["response_format"] == {"type": "json_object"}


def test_truncation_is_retried_with_twice_the_room(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(truncated('{"title": "t", "lev'), json_answer(GOOD))

    make_client(max_tokens=100, max_tokens_ceiling=1000).structured("plan it", Plan)

    assert [request["max_tokens"] for request in server.requests] == [100, 200]
    assert server.requests[0]["messages"] == server.requests[1]["messages"]
    assert ledger.rows()[0]["finish_reason"] == "stop"


def test_truncation_at_the_ceiling_is_model_truncated(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(truncated("a"), truncated("ab"), truncated("abc"))

    with pytest.raises(ModelTruncated, match="cut off at 400 tokens") as caught:
        make_client(max_tokens=100, max_tokens_ceiling=400).complete("write a lot")

    assert caught.value.partial == "abc"
    assert [request["max_tokens"] for request in server.requests] == [100, 200, 400]
    assert ledger.rows()[0]["error_class"] == "ModelTruncated"


def test_a_refusal_is_model_refused_and_not_retried(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(refusal("I can't help with that."))

    with pytest.raises(ModelRefused, match="can't help"):
        make_client().structured("plan it", Plan)

    assert len(server.requests) == 1
    assert (ledger.rows()[0]["error_class"], ledger.rows()[0]["error_kind"]) == ("ModelRefused", "output")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Here: ```json\n{"a": 2}\n``` done', {"a": 2}),
        ('<think>hmm {not json}</think> The answer is {"a": [3]} as asked.', {"a": [3]}),
        ("[1, 2]", [1, 2]),
    ],
)
def test_json_is_extracted_from_prose_and_fences(reply: str, expected: object) -> None:
    assert extract_json(reply) == expected


def test_no_json_at_all_raises() -> None:
    with pytest.raises(ValueError, match="no JSON"):
        extract_json("I would rather not.")
