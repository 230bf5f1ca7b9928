"""Tool calls: specs sent, calls parsed and validated, parallel calls, invalid calls sent back."""

from __future__ import annotations

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, text, tool_calls
from pydantic import BaseModel, Field

from skill2env.llm.errors import ModelOutputInvalid
from skill2env.llm.ledger import Ledger
from skill2env.llm.tools import Tool, tool_result_message


class RunArgs(BaseModel):
    command: str
    timeout: int = Field(default=30, ge=1, le=600)


class ReadArgs(BaseModel):
    path: str


RUN = Tool.from_model("run", "Run a shell command in the sandbox.", RunArgs)
READ = Tool.from_model("read_file", "Read a file from the workspace.", ReadArgs)
WRITE = Tool(
    "write_file",
    "Write a file.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)


def test_tools_are_sent_as_json_schemas_and_a_call_comes_back_validated(
    server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    server.script(tool_calls(("run", {"command": "ls -la", "timeout": 10})))

    turn = make_client(role="solver").call_tools("list the files", [RUN, READ])

    (call,) = turn.calls
    assert (call.id, call.name, call.arguments) == ("call_0", "run", {"command": "ls -la", "timeout": 10})
    assert call.value == RunArgs(command="ls -la", timeout=10)
    sent = server.requests[0]
    assert [tool["function"]["name"] for tool in sent["tools"]] == ["run", "read_file"]
    assert sent["tools"][0]["function"]["parameters"]["properties"]["command"] == {"title": "Command", "type": "string"}
    assert sent["tool_choice"] == "auto"
    assert ledger.rows()[0]["operation"] == "tools"


def test_parallel_tool_calls_come_back_in_order(server: ScriptedServer, make_client: ClientFactory) -> None:
    calls = [("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"}), ("run", {"command": "wc -l a.txt"})]
    server.script(tool_calls(*calls))

    turn = make_client(role="solver").call_tools("read both", [RUN, READ], parallel=True)

    assert [(c.id, c.name) for c in turn.calls] == [("call_0", "read_file"), ("call_1", "read_file"), ("call_2", "run")]
    assert [c.arguments.get("path") for c in turn.calls[:2]] == ["a.txt", "b.txt"]
    assert server.requests[0]["parallel_tool_calls"] is True


def test_malformed_arguments_go_back_as_tool_errors_and_the_retry_is_accepted(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(
        tool_calls(("run", '{"command": "ls", "timeout": '), ("read_file", {"path": "a"})),
        tool_calls(("run", {"command": "ls"}), ("read_file", {"path": "a"})),
    )

    turn = make_client(role="solver").call_tools("go", [RUN, READ])

    assert [c.name for c in turn.calls] == ["run", "read_file"] and turn.repaired == 1
    messages = server.requests[1]["messages"]
    assert messages[1]["role"] == "assistant" and len(messages[1]["tool_calls"]) == 2
    assert messages[2]["tool_call_id"] == "call_0" and "arguments are not valid JSON" in messages[2]["content"]
    assert messages[3] == tool_result_message("call_1", "not run: another call in this turn was invalid")


def test_schema_violations_and_unknown_tools_are_invalid(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(
        tool_calls(("run", {"command": "ls", "timeout": 9999}), ("delete_everything", {})),
        tool_calls(("write_file", {"path": "x"})),
        tool_calls(("write_file", {"path": "x", "content": "y", "mode": "0777"})),
    )

    with pytest.raises(ModelOutputInvalid) as caught:
        make_client(role="solver", max_repairs=2).call_tools("go", [RUN, READ, WRITE])

    assert caught.value.errors == ["call_0: mode: unknown argument"]
    first_feedback = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "timeout: Input should be less than or equal to 600" in first_feedback[0]
    assert "unknown tool 'delete_everything'" in first_feedback[1]
    assert (
        "content: Field required" in [m["content"] for m in server.requests[2]["messages"] if m["role"] == "tool"][-1]
    )


def test_a_text_answer_is_a_final_turn_unless_a_call_is_required(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    server.script(text("All done."), text("I am done."), tool_calls(("run", {"command": "true"})))
    client = make_client(role="solver")

    final = client.call_tools("go", [RUN])
    forced = client.call_tools("go", [RUN], tool_choice="required")

    assert final.calls == [] and final.reply.content == "All done."
    assert [c.name for c in forced.calls] == ["run"]
    assert server.requests[2]["messages"][-1]["content"].startswith("Call one of the tools")


def test_a_conversation_continues_with_tool_results(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(tool_calls(("read_file", {"path": "a.txt"})), text("a.txt says hello"))
    client = make_client(role="solver")
    messages: list[dict[str, object]] = [{"role": "user", "content": "what does a.txt say?"}]

    turn = client.call_tools(messages, [READ])
    messages += [turn.reply.assistant_message(), tool_result_message(turn.calls[0].id, "hello")]
    final = client.call_tools(messages, [READ])

    assert final.reply.content == "a.txt says hello"
    assert server.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_0", "content": "hello"}
