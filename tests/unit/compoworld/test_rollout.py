"""CompoWorld rollouts through the agent loop: a scripted model discovers the services through the
four meta-tools and completes a cross-service task; wrong calls score low; failures are statuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from harbor_tasks import require_backend
from llm_fixtures import ClientFactory
from llm_server import Scripted, ScriptedServer, status, text, tool_calls

from skill2env.agent.actors import ModelActor
from skill2env.agent.loop import LoopLimits
from skill2env.compoworld.gateway import META_TOOLS
from skill2env.compoworld.gateway_main import answer
from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.hosts import BwrapHost, GatewayHostError, InProcessHost, make_host
from skill2env.compoworld.rollout import (
    COMPO_SYSTEM_PROMPT,
    CompoAttempt,
    compo_actor,
    meta_tool_counts,
    oracle_turns,
    roll_out_compo,
    run_compo_attempt,
)
from skill2env.compoworld.rollout_tables import COMPO_ROLLOUTS_SCHEMA, compo_rollouts_frame
from skill2env.compoworld.tasks import CompoTask, generate_tasks
from skill2env.exports.chat import chat_example
from skill2env.llm.cache import CacheMode


@pytest.fixture(scope="module")
def task(graph: ToolGraph) -> CompoTask:
    """A cross-service task of three or more tools whose reply must report something."""
    for seed in range(5):
        for made in generate_tasks(graph, "operations", 6, seed=seed, min_length=3).tasks:
            reports = any(i.check and i.check.check == "output_contains" for i in made.rubric.items)
            if len(made.chain) >= 3 and len(made.services) >= 2 and reports:
                return made
    raise AssertionError("no reporting cross-service task of length >= 3")


def discovering_solver(task: CompoTask, *, final: str) -> list[Scripted]:
    """The turns of a model that finds its way: list the services, then per step list the
    service's tools, describe the tool and call it; then the final answer."""
    turns = [tool_calls(*[(name, arguments) for name, arguments in turn]) for turn in oracle_turns(task)]
    return [*turns, text(final)]


async def attempt_of(make_client: ClientFactory, task: CompoTask, **client: Any) -> CompoAttempt:
    actor = ModelActor(make_client(role="solver", cache=CacheMode.off, **client))
    return await run_compo_attempt(
        task, actor, InProcessHost(task), policy="solver", model="scripted-model", run_id="run-1",
        limits=LoopLimits(max_turns=40, wall_clock_s=60),
    )  # fmt: skip


async def test_a_scripted_solver_discovers_the_services_and_completes_the_task(
    server: ScriptedServer, make_client: ClientFactory, task: CompoTask
) -> None:
    server.script(*discovering_solver(task, final=f"All done. {task.oracle_answer}"))

    done = await attempt_of(make_client, task)

    trajectory = done.trajectory
    assert (trajectory.status, trajectory.error, done.reward) == ("completed", None, 1.0)
    assert all(q == 1.0 for q in done.items.values()) and set(done.items) == {i.id for i in task.rubric.items}
    counts = meta_tool_counts(trajectory)
    assert counts["list_services"] == 1 and counts["call_tool"] == len(task.chain) >= 3
    assert counts["list_tools"] == len(task.services) and counts["describe_tool"] == len(set(task.chain))
    assert trajectory.turns == sum(counts.values()) + 1 and trajectory.backend == "in_process"
    assert (trajectory.task_id, trajectory.domain, trajectory.policy) == (task.task_id, task.domain, "solver")
    # The model was offered the four meta-tools, with the system prompt and the goal as the request.
    first = server.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == list(META_TOOLS)
    assert first["messages"][0]["content"] == COMPO_SYSTEM_PROMPT and first["messages"][1]["content"] == task.goal
    # Each call's envelope came back as the tool message, and the services the task needs were listed.
    listing = json.loads(server.requests[1]["messages"][-1]["content"])
    assert listing["ok"] and {s["name"] for s in listing["result"]} == set(task.services)
    assert all(not o.is_error for step in trajectory.steps for o in step.observations)
    assert [t["function"]["name"] for t in trajectory.tools] == list(META_TOOLS)
    assert chat_example(trajectory).messages[-1].content == f"All done. {task.oracle_answer}"


async def test_a_wrong_call_sequence_scores_low(
    server: ScriptedServer, make_client: ClientFactory, task: CompoTask
) -> None:
    first, last = task.oracle[0], task.oracle[-1]
    server.script(
        tool_calls(("list_services", {})),
        tool_calls(("call_tool", {"service": first.service, "tool": first.tool, "arguments": first.arguments})),
        tool_calls(("call_tool", {"service": last.service, "tool": last.tool, "arguments": {}})),
        tool_calls(("call_tool", {"service": "nowhere", "tool": "nothing"})),
        text("I could not finish."),
    )

    done = await attempt_of(make_client, task)

    assert done.trajectory.status == "completed" and done.reward is not None and done.reward < 0.5
    errors = [o for step in done.trajectory.steps for o in step.observations if o.is_error]
    kinds = [json.loads(o.content)["error"]["type"] for o in errors]
    assert len(errors) == 2 and "invalid_argument" in kinds[0] and kinds[1] == "unknown_service"


async def test_an_unavailable_model_is_an_infra_error_and_not_scored(
    server: ScriptedServer, make_client: ClientFactory, task: CompoTask
) -> None:
    server.script(tool_calls(("list_services", {})), status(503), status(503))

    done = await attempt_of(make_client, task, max_attempts=2)

    assert done.trajectory.status == "infra_error" and not done.scored and done.items == {}
    assert done.trajectory.error is not None and done.trajectory.error.startswith("ModelUnavailable:")
    row = compo_rollouts_frame([done]).row(0, named=True)
    assert row["status"] == "infra_error" and row["reward"] is None and row["item_results"] is None


async def test_a_host_that_does_not_start_is_an_infra_error(task: CompoTask) -> None:
    class Broken(InProcessHost):
        def start(self) -> None:
            raise GatewayHostError("no room for the world")

    done = await run_compo_attempt(task, compo_actor("oracle", task), Broken(task), policy="oracle")

    assert done.trajectory.status == "infra_error" and "no room for the world" in (done.trajectory.error or "")
    assert not done.scored and done.trajectory.turns == 0


def test_scripted_policies_score_as_the_gates_say(task: CompoTask) -> None:
    done = {p: roll_out_compo([task], p, attempts=2, host="in_process") for p in ("oracle", "partial", "nop")}

    assert [a.reward for a in done["oracle"]] == [1.0, 1.0]
    assert all(a.reward is not None and a.reward < 0.7 for a in done["partial"])
    assert [a.reward for a in done["nop"]] == [0.0, 0.0]
    oracle = done["oracle"]
    assert oracle[0].trajectory.group_id == oracle[1].trajectory.group_id
    assert [a.trajectory.attempt for a in oracle] == [1, 2] and [a.group_reward for a in oracle] == [1.0, 1.0]
    assert oracle[0].trajectory.final_message == task.oracle_answer
    frame = compo_rollouts_frame([*done["oracle"], *done["nop"]])
    assert frame.schema == COMPO_ROLLOUTS_SCHEMA and frame.height == 4
    assert frame.get_column("tool_calls").to_list()[:2] == [sum(meta_tool_counts(oracle[0].trajectory).values())] * 2


def test_a_script_file_policy_and_unknown_policies(task: CompoTask, tmp_path: Path) -> None:
    script = tmp_path / "look.json"
    script.write_text(json.dumps([[["list_services", {}]], [["list_tools", {"service": task.services[0]}]]]))

    [done] = roll_out_compo([task], f"script:{script}", host="in_process")

    assert done.trajectory.policy == "script:look" and done.trajectory.turns == 3 and done.reward == 0.0
    with pytest.raises(ValueError, match="unknown policy"):
        roll_out_compo([task], "guess", host="in_process")
    with pytest.raises(ValueError, match="model client"):
        roll_out_compo([task], "solver", host="in_process")
    with pytest.raises(ValueError, match="gateway host"):
        make_host("cloud", task)


def test_the_gateway_program_answers_one_call_and_keeps_the_world(task: CompoTask, tmp_path: Path) -> None:
    world = tmp_path / "world.json"
    world.write_text(json.dumps({"states": task.initial_states, "simulations": []}))
    for action in task.oracle:
        request = {"meta_tool": "call_tool", "arguments": action.model_dump()}
        assert answer(world, request)["ok"], action
    listing = answer(world, {"meta_tool": "list_tools", "arguments": {"service": task.services[0]}})
    assert listing["ok"] and listing["result"]
    host = InProcessHost(task)
    host.start()
    for action in task.oracle:
        host.dispatch("call_tool", action.model_dump())
    assert json.loads(world.read_text())["states"] == host.states()


@pytest.mark.bwrap
def test_the_services_run_inside_a_bwrap_sandbox(task: CompoTask) -> None:
    require_backend("bwrap")

    [done] = roll_out_compo([task], "oracle", host="bwrap")

    assert (done.trajectory.status, done.trajectory.backend, done.reward) == ("completed", "bwrap", 1.0)
    [nop] = roll_out_compo([task], "nop", host=BwrapHost)
    assert nop.reward == 0.0 and nop.trajectory.backend == "bwrap"
