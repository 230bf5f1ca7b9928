"""Trajectories: the ATIF export's shape, the trajectory files, and the lake's rollout tables."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
from atif import atif_problems

from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.tables import (
    ROLLOUTS_SCHEMA,
    TRAJECTORY_STEPS_SCHEMA,
    attempt_event_frame,
    rollouts_frame,
    trajectory_steps_frame,
)
from skill2env.agent.tools import AGENT_TOOLS
from skill2env.agent.trajectory import ATIF_SCHEMA_VERSION, Observation, StepMetrics, StepToolCall, Trajectory
from skill2env.lake.lake import Lake, TableWrite


def sample(rollout_id: str = "r1", *, domain: str = "data-analysis") -> Trajectory:
    trajectory = Trajectory(
        rollout_id=rollout_id, group_id="g1", run_id="run-1", task_id="csv-i0", task_name="csv", domain=domain,
        policy="solver", model="m", attempt=2, backend="docker", status="completed", turns=2, input_tokens=30,
        output_tokens=12, wall_s=1.5, final_message="done", tools=[t.spec() for t in AGENT_TOOLS],
    )  # fmt: skip
    trajectory.add_step("system", "You are an agent.")
    trajectory.add_step("user", "Aggregate sales.csv.")
    trajectory.add_step(
        "agent",
        "Reading the input.",
        reasoning="I should look first.",
        model_name="m",
        tool_calls=[
            StepToolCall(tool_call_id="c1", function_name="bash", arguments={"command": "cat sales.csv"}),
            StepToolCall(tool_call_id="c2", function_name="bash", arguments={"cmd": "bad"}),
        ],
        observations=[
            Observation(source_call_id="c1", content="region,units\n[exit code 0]", exit_code=0, duration_s=0.05),
            Observation(source_call_id="c2", content="error: invalid arguments", is_error=True),
        ],
        metrics=StepMetrics(prompt_tokens=15, completion_tokens=6, latency_ms=201.5),
    )
    trajectory.add_step(
        "agent",
        "",
        model_name="m",
        tool_calls=[StepToolCall(tool_call_id="c3", function_name="finish", arguments={"message": "done"})],
        observations=[Observation(source_call_id="c3", content="done")],
        metrics=StepMetrics(prompt_tokens=15, completion_tokens=6),
    )
    return trajectory


def test_the_atif_export_matches_the_schema() -> None:
    document = sample().to_atif()

    assert atif_problems(document) == []
    assert document["schema_version"] == ATIF_SCHEMA_VERSION == "ATIF-v1.8"
    assert document["session_id"] == document["trajectory_id"] == "r1"
    assert document["agent"]["name"] == "skill2env" and document["agent"]["model_name"] == "m"
    assert [t["function"]["name"] for t in document["agent"]["tool_definitions"]] == [
        "bash", "read_file", "write_file", "list_dir", "finish"
    ]  # fmt: skip
    assert document["final_metrics"] == {
        "total_prompt_tokens": 30,
        "total_completion_tokens": 12,
        "total_steps": 4,
        "extra": {"turns": 2, "wall_s": 1.5},
    }
    system, user, agent, last = document["steps"]
    assert system == {
        "step_id": 1,
        "timestamp": system["timestamp"],
        "source": "system",
        "message": "You are an agent.",
    }
    assert system["timestamp"].endswith("Z")
    assert user["source"] == "user" and "tool_calls" not in user
    assert agent["reasoning_content"] == "I should look first."
    assert agent["tool_calls"][0] == {
        "tool_call_id": "c1",
        "function_name": "bash",
        "arguments": {"command": "cat sales.csv"},
    }
    assert [{k: r[k] for k in ("source_call_id", "content")} for r in agent["observation"]["results"]] == [
        {"source_call_id": "c1", "content": "region,units\n[exit code 0]"},
        {"source_call_id": "c2", "content": "error: invalid arguments"},
    ]
    assert agent["metrics"] == {
        "prompt_tokens": 15,
        "completion_tokens": 6,
        "extra": {"latency_ms": 201.5, "repaired": 0},
    }
    assert [r["extra"]["is_error"] for r in agent["observation"]["results"]] == [False, True]
    assert "reasoning_content" not in last
    assert document["extra"]["status"] == "completed" and document["extra"]["task_id"] == "csv-i0"
    json.dumps(document)  # plain JSON all the way down


def test_the_checker_catches_departures_from_the_schema() -> None:
    document = sample().to_atif()
    document["steps"][1]["tool_calls"] = []
    document["steps"][2]["observation"]["results"][0]["source_call_id"] = "nope"
    document["steps"][3]["step_id"] = 9

    assert atif_problems(document) == [
        "step 2: tool_calls on a user step",
        "step 3: observation refers to unknown call 'nope'",
        "step 4: step_id 9 is not 4",
    ]


def test_trajectory_files_write_the_atif_file_and_drop_the_partial(tmp_path: Path) -> None:
    files = TrajectoryFiles(tmp_path)
    trajectory = sample()
    files.write_partial(trajectory)
    assert files.read_partial("r1") == trajectory

    path = files.write_atif(trajectory)

    assert path == tmp_path / "trajectories/r1/trajectory.json" == tmp_path / files.relative_atif("r1")
    assert json.loads(path.read_text()) == json.loads(json.dumps(trajectory.to_atif()))
    assert files.read_partial("r1") is None
    assert sorted(p.name for p in path.parent.iterdir()) == ["trajectory.json"]


def test_frames_follow_their_schemas() -> None:
    trajectories = [sample("r1"), sample("r2")]

    rollouts = rollouts_frame(trajectories)
    steps = trajectory_steps_frame(trajectories)

    assert rollouts.schema == ROLLOUTS_SCHEMA and steps.schema == TRAJECTORY_STEPS_SCHEMA
    row = rollouts.row(0, named=True)
    assert (row["attempt_run_id"], row["tool_calls"], row["tool_errors"], row["status"]) == ("run-1", 3, 1, "completed")
    assert steps.height == 8 and steps.get_column("step_id").to_list() == [1, 2, 3, 4] * 2
    calls = json.loads(steps.filter(pl.col("step_id") == 3).get_column("tool_calls")[0])
    assert calls[1] == {"tool_call_id": "c2", "function_name": "bash", "arguments": {"cmd": "bad"}}


def test_rollout_tables_version_per_domain_partition(lake: Lake) -> None:
    def write(domain: str, *trajectories: Trajectory, run_id: str) -> None:
        lake.write(
            [
                TableWrite("rollouts", rollouts_frame(trajectories), partition_key=domain),
                TableWrite("trajectory_steps", trajectory_steps_frame(trajectories), partition_key=domain),
            ],
            run_id=run_id,
            code_version="test",
        )

    write("data-analysis", sample("r1"), run_id="first")
    write("finance", sample("f1", domain="finance"), run_id="first")
    write("data-analysis", sample("r2"), sample("r3"), run_id="second")

    rollouts = lake.query("SELECT rollout_id, run_id, attempt_run_id FROM rollouts ORDER BY rollout_id")
    assert rollouts.rows() == [("f1", "first", "run-1"), ("r2", "second", "run-1"), ("r3", "second", "run-1")]
    steps = lake.query(
        "SELECT rollout_id, count(*) AS n, any_value(domain) AS d FROM trajectory_steps GROUP BY 1 ORDER BY 1"
    )
    assert steps.rows() == [("f1", 4, "finance"), ("r2", 4, "data-analysis"), ("r3", 4, "data-analysis")]
    arguments = lake.query(
        "SELECT tool_calls->>'$[0].arguments.command' FROM trajectory_steps WHERE rollout_id = 'r2' AND step_id = 3"
    ).item()
    assert arguments == "cat sales.csv"
    summary = lake.query("SELECT domain, attempts, completed, infra_error FROM rollout_summary ORDER BY domain")
    assert summary.rows() == [("data-analysis", 2, 2, 0), ("finance", 1, 1, 0)]
    assert lake.query("SELECT count(*) FROM rollouts_versions").item() == 4


def test_open_attempts_are_started_without_finished(lake: Lake) -> None:
    started, finished = sample("a").model_copy(update={"status": "started"}), sample("b")
    for trajectory in (started, finished):
        lake.append("rollout_attempts", attempt_event_frame("started", trajectory, "boot:1:2"))
    lake.append("rollout_attempts", attempt_event_frame("finished", finished, "boot:1:2"))

    opened = lake.query("SELECT rollout_id, owner, status FROM rollout_attempts WHERE event = 'started' ORDER BY 1")
    assert opened.rows() == [("a", "boot:1:2", "started"), ("b", "boot:1:2", "completed")]
    assert lake.query("SELECT rollout_id FROM open_rollout_attempts").rows() == [("a",)]
    recorded = lake.query("SELECT max(recorded_at) FROM rollout_attempts").item()
    assert recorded.tzinfo is not None and recorded <= datetime.now(UTC)
