"""The agent loop against the scripted model server: turns, tool calls, limits and failure statuses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, completion, slow, status, text, tool_calls
from local_sandbox import LocalSandbox

from skill2env.agent.actors import ModelActor, split_reasoning
from skill2env.agent.loop import SYSTEM_PROMPT, LoopLimits, ThreadedTools, run_agent
from skill2env.agent.tools import ToolRunner
from skill2env.agent.trajectory import Trajectory
from skill2env.llm.cache import CacheMode
from skill2env.sandbox.errors import SandboxUnavailable

INSTRUCTION = "Count the lines of input.txt and write the number to count.txt."


@pytest.fixture
def sandbox() -> Iterator[LocalSandbox]:
    box = LocalSandbox()
    box.start()
    (box.host_workspace / "input.txt").write_text("a\nb\nc\n")
    yield box
    box.stop()


def trajectory() -> Trajectory:
    return Trajectory(
        rollout_id="r1", group_id="g1", run_id="run-1", task_id="count-i0", task_name="count", domain="data",
        policy="solver", model="scripted-model", attempt=1, backend="local",
    )  # fmt: skip


async def run(
    make_client: ClientFactory, sandbox: LocalSandbox, limits: LoopLimits | None = None, **client: Any
) -> Trajectory:
    actor = ModelActor(make_client(role="solver", cache=CacheMode.off, **client))
    tools = ThreadedTools(ToolRunner(sandbox, observation_chars=1_000))
    return await run_agent(
        actor,
        trajectory(),
        INSTRUCTION,
        tools,
        limits=limits or LoopLimits(wall_clock_s=30),
        system_prompt=SYSTEM_PROMPT.format(workdir="/workspace"),
    )


async def test_a_multi_turn_rollout_with_tool_calls_completes(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(
        tool_calls(("bash", {"command": "wc -l < input.txt"}), content="Let me count."),
        tool_calls(("write_file", {"path": "count.txt", "content": "3\n"})),
        tool_calls(("finish", {"message": "wrote 3"})),
    )

    done = await run(make_client, sandbox)

    assert (done.status, done.error, done.turns, done.final_message) == ("completed", None, 3, "wrote 3")
    assert (sandbox.host_workspace / "count.txt").read_text() == "3\n"
    assert [s.source for s in done.steps] == ["system", "user", "agent", "agent", "agent"]
    assert [s.step_id for s in done.steps] == [1, 2, 3, 4, 5]
    assert done.steps[1].message == INSTRUCTION
    first = done.steps[2]
    assert first.message == "Let me count."
    assert [(c.tool_call_id, c.function_name, c.arguments) for c in first.tool_calls] == [
        ("call_0", "bash", {"command": "wc -l < input.txt"})
    ]
    assert first.observations[0].content == "3\n[exit code 0]" and first.observations[0].exit_code == 0
    assert first.metrics is not None and first.metrics.prompt_tokens == 11
    assert done.input_tokens == 33 and done.model_s > 0 and done.tool_s > 0
    # The conversation the model saw: system, the instruction, its turn, the tool result — in order.
    third = server.requests[2]["messages"]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert third[3] == {"role": "tool", "tool_call_id": "call_0", "content": "3\n[exit code 0]"}
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == [
        "bash", "read_file", "write_file", "list_dir", "finish"
    ]  # fmt: skip


async def test_parallel_tool_calls_run_in_order_with_one_result_each(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(
        tool_calls(
            ("write_file", {"path": "a.txt", "content": "A"}),
            ("bash", {"command": "cat a.txt input.txt | wc -c"}),
            ("list_dir", {}),
        ),
        text("Done: a.txt written."),
    )

    done = await run(make_client, sandbox)

    assert done.status == "completed" and done.final_message == "Done: a.txt written."
    step = done.steps[2]
    assert [o.source_call_id for o in step.observations] == ["call_0", "call_1", "call_2"]
    assert step.observations[1].content == "7\n[exit code 0]"
    assert "a.txt" in step.observations[2].content
    tools = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_0", "call_1", "call_2"]


async def test_calls_after_finish_in_the_same_turn_are_not_run(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("finish", {"message": "ok"}), ("bash", {"command": "touch late.txt"})))

    done = await run(make_client, sandbox)

    assert done.status == "completed" and done.turns == 1
    assert done.steps[-1].observations[1].content.startswith("not run")
    assert not (sandbox.host_workspace / "late.txt").exists()


async def test_bad_tool_arguments_become_an_error_observation(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(
        tool_calls(("bash", {"cmd": "ls"})),
        tool_calls(("read_file", {"path": "missing.txt"})),
        tool_calls(("finish", {})),
    )

    done = await run(make_client, sandbox)

    assert done.status == "completed" and done.turns == 3
    bad_args, missing = done.steps[2].observations[0], done.steps[3].observations[0]
    assert bad_args.is_error and "command: Field required" in bad_args.content
    assert missing.is_error and "reading missing.txt failed" in missing.content
    assert server.requests[1]["messages"][-1]["content"] == bad_args.content
    assert sandbox.commands == [["cat", "--", "missing.txt"]]


async def test_max_turns_stops_an_agent_that_never_finishes(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.respond = lambda _: tool_calls(("bash", {"command": "true"}))

    done = await run(make_client, sandbox, LoopLimits(max_turns=3, wall_clock_s=30))

    assert (done.status, done.turns, len(server.requests)) == ("max_turns", 3, 3)


async def test_max_tokens_stops_at_the_token_budget(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.respond = lambda _: tool_calls(("bash", {"command": "true"}))  # 11 prompt tokens + 1 each

    done = await run(make_client, sandbox, LoopLimits(max_tokens=30, wall_clock_s=30))

    assert (done.status, done.turns, done.input_tokens + done.output_tokens) == ("max_tokens", 3, 36)


async def test_the_wall_clock_stops_a_slow_model(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("bash", {"command": "true"})), slow(2.0, text("too late")))

    done = await run(make_client, sandbox, LoopLimits(wall_clock_s=0.8))

    assert done.status == "agent_timeout" and done.turns == 1
    assert "wall clock of 0.8 s ran out" in (done.error or "")


async def test_the_wall_clock_stops_a_long_command(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("bash", {"command": "sleep 10", "timeout": 60})))

    done = await run(make_client, sandbox, LoopLimits(wall_clock_s=0.8))

    assert done.status == "agent_timeout" and done.turns == 1
    assert done.steps[-1].observations[0].is_error and done.tool_s < 3


async def test_an_unavailable_model_is_an_infra_error(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("bash", {"command": "true"})), status(503), status(503))

    done = await run(make_client, sandbox, max_attempts=2)

    assert done.status == "infra_error" and done.turns == 1
    assert done.error is not None and done.error.startswith("ModelUnavailable:") and "503" in done.error


async def test_unusable_model_output_is_a_model_error(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("bash", "{not json")), tool_calls(("no_such_tool", {})))

    done = await run(make_client, sandbox, max_repairs=1)

    assert done.status == "model_error" and done.error is not None and "ModelOutputInvalid" in done.error
    assert len(server.requests) == 2


async def test_a_sandbox_dying_under_a_command_is_an_infra_error(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    sandbox.crash_on = "boom"
    server.script(tool_calls(("bash", {"command": "echo boom"})))

    done = await run(make_client, sandbox)

    assert done.status == "infra_error" and done.error == "SandboxCrashed: the sandbox died under the command"


async def test_reasoning_in_think_tags_is_split_from_the_message(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(completion({"content": "<think>It is 3 lines.</think>\nThe answer is 3."}))

    done = await run(make_client, sandbox)

    assert (done.steps[-1].reasoning, done.steps[-1].message) == ("It is 3 lines.", "The answer is 3.")
    assert split_reasoning("plain") == ("plain", None)


async def test_each_attempt_sends_its_own_seed(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(text("one"), text("two"))
    actor = ModelActor(make_client(role="solver", seed=100))
    tools = ThreadedTools(ToolRunner(sandbox))
    for attempt in (1, 2):
        await run_agent(actor, trajectory().model_copy(update={"attempt": attempt}), "hi", tools, limits=LoopLimits())

    assert [r["seed"] for r in server.requests] == [101, 102]  # distinct requests: the cache cannot merge them
    assert json.dumps(server.requests[0]["messages"]) == json.dumps(server.requests[1]["messages"])


async def test_tool_calls_without_ids_get_the_ids_their_results_answer(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    call = {"type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": "true"})}}
    server.script(completion({"content": None, "tool_calls": [call]}, finish_reason="tool_calls"), text("done"))

    done = await run(make_client, sandbox)

    assert done.status == "completed"
    assistant, result = server.requests[1]["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == result["tool_call_id"] == "call_0"


async def test_waiting_for_the_sandbox_to_start_is_not_the_agents_time(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    server.script(tool_calls(("bash", {"command": "true"})), tool_calls(("finish", {})))
    started = asyncio.ensure_future(asyncio.sleep(3.0))
    tools = ThreadedTools(ToolRunner(sandbox), started=started)
    actor = ModelActor(make_client(role="solver", cache=CacheMode.off))

    done = await run_agent(actor, trajectory(), INSTRUCTION, tools, limits=LoopLimits(wall_clock_s=2.0))

    # The 3 s waited for the sandbox would have spent the 2 s wall clock: they were not charged.
    assert done.status == "completed" and done.turns == 2
    assert started.done()


async def test_a_sandbox_that_fails_to_start_fails_the_tool_calls_as_infra(
    server: ScriptedServer, make_client: ClientFactory, sandbox: LocalSandbox
) -> None:
    async def broken() -> None:
        raise SandboxUnavailable("no engine")

    server.script(tool_calls(("bash", {"command": "true"})))
    tools = ThreadedTools(ToolRunner(sandbox), started=asyncio.ensure_future(broken()))
    actor = ModelActor(make_client(role="solver", cache=CacheMode.off))

    done = await run_agent(actor, trajectory(), INSTRUCTION, tools, limits=LoopLimits())

    assert (done.status, done.error) == ("infra_error", "SandboxUnavailable: no engine")
