"""SFT rows of CompoWorld rollouts: valid chat examples carrying the samples' metadata, in the lake."""

from __future__ import annotations

import json

import pytest

from skill2env.compoworld.gateway import META_TOOLS
from skill2env.compoworld.graph import ToolGraph
from skill2env.compoworld.rollout import CompoAttempt, roll_out_compo
from skill2env.compoworld.rollout_tables import compo_rollouts_frame
from skill2env.compoworld.sft import COMPO_SFT_SCHEMA, compo_sft_frame, compo_sft_rows
from skill2env.compoworld.tasks import CompoTask, generate_tasks
from skill2env.exports.chat import ChatExample
from skill2env.lake.lake import Lake, TableWrite


@pytest.fixture(scope="module")
def tasks(graph: ToolGraph) -> list[CompoTask]:
    return generate_tasks(graph, "commerce", 2, seed=4, min_length=3).tasks


@pytest.fixture(scope="module")
def attempts(tasks: list[CompoTask]) -> list[CompoAttempt]:
    return roll_out_compo(tasks, "oracle", attempts=2, host="in_process") + roll_out_compo(
        tasks, "nop", host="in_process"
    )


def test_rows_carry_the_samples_metadata(tasks: list[CompoTask], attempts: list[CompoAttempt]) -> None:
    rows, skipped = compo_sft_rows(attempts)

    assert len(rows) == 6 and skipped == []
    row = rows[0]
    task = tasks[0]
    assert (row["task_id"], row["domain"], row["policy"], row["reward"]) == (task.task_id, "commerce", "oracle", 1.0)
    assert row["services"] == task.services and row["capability_tags"] == task.capability_tags
    assert row["length"] == len(task.chain) >= 3 and row["chain"] == task.chain
    per_tool = {name: row[f"{name}_calls"] for name in META_TOOLS}
    assert per_tool["list_services"] == 1 and per_tool["call_tool"] == len(task.chain)
    assert row["tool_calls"] == sum(per_tool.values()) and row["tool_errors"] == 0
    metadata = json.loads(row["metadata"])
    assert metadata["services"] == task.services and metadata["domain"] == "commerce"
    assert metadata["capability_tags"] == task.capability_tags and metadata["rubric_score"] == 1.0
    assert metadata["tool_call_counts"] == {**per_tool, "total": row["tool_calls"]}
    example = ChatExample.model_validate({"messages": json.loads(row["messages"]), "tools": json.loads(row["tools"])})
    assert [m.role for m in example.messages[:2]] == ["system", "user"] and example.messages[1].content == task.goal
    assert [t["function"]["name"] for t in example.tools] == list(META_TOOLS)
    assert example.messages[-1].role == "assistant" and not example.messages[-1].tool_calls


def test_unfinished_attempts_are_not_examples(attempts: list[CompoAttempt]) -> None:
    broken = attempts[0]
    failed = CompoAttempt(broken.task, broken.trajectory.model_copy(update={"status": "infra_error"}))

    rows, skipped = compo_sft_rows([failed])

    assert rows == [] and "infra_error" in skipped[0]


def test_the_lake_tables_and_views(lake: Lake, attempts: list[CompoAttempt]) -> None:
    examples, _ = compo_sft_frame(attempts)
    assert examples.schema == COMPO_SFT_SCHEMA
    lake.write(
        [
            TableWrite("compo_rollouts", compo_rollouts_frame(attempts), partition_key="commerce"),
            TableWrite("compo_sft_examples", examples, partition_key="commerce"),
        ],
        run_id="run-1",
        code_version="test",
    )

    assert lake.query("SELECT count(*) FROM compo_sft_examples").item() == 6
    kept = lake.query("SELECT policy, reward, services, capability_tags, metadata FROM compo_sft")
    assert kept.height == 4 and set(kept.get_column("policy")) == {"oracle"}
    assert json.loads(kept.row(0, named=True)["metadata"])["tool_call_counts"]["total"] > 0
    columns = "policy, attempts, tasks, completed, mean_reward, full_credit"
    summary = lake.query(f"SELECT {columns} FROM compo_rollout_summary")
    assert sorted(summary.rows()) == [("nop", 2, 2, 2, 0.0, 0), ("oracle", 4, 2, 4, 1.0, 4)]
    steps = lake.query("SELECT trajectory FROM compo_rollouts LIMIT 1").item()
    assert json.loads(steps)["steps"][0]["source"] == "system"
