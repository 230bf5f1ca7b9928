"""The trajectories the project writes are ATIF documents Harbor itself accepts: validated against
Harbor's own `Trajectory` model, at the version Harbor writes by default."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from atif import atif_problems
from harbor_client import harbor_python

from skill2env.agent.actors import ScriptActor
from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.loop import LoopLimits, run_agent
from skill2env.agent.tools import ToolOutcome
from skill2env.agent.trajectory import ATIF_SCHEMA_VERSION, StepMetrics, StepToolCall, Trajectory

HARBOR_CHECK = """
import json, sys
from pydantic import ValidationError
from harbor.models.trajectories.trajectory import Trajectory
out = {"default": Trajectory.model_fields["schema_version"].default, "problems": {}}
for path in sys.argv[1:]:
    try:
        Trajectory.model_validate_json(open(path, "rb").read())
        out["problems"][path] = []
    except ValidationError as exc:
        out["problems"][path] = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
print(json.dumps(out))
"""


class Tools:
    """A tool host without a sandbox: every call answers at once."""

    async def ready(self) -> None:
        return None

    async def run(self, name: str, arguments: dict[str, Any], *, time_left: float) -> ToolOutcome:
        if name == "finish":
            return ToolOutcome("done", finished=True)
        if "command" not in arguments:
            return ToolOutcome("error: invalid arguments", is_error=True)
        return ToolOutcome("region,units\n[exit code 0]", exit_code=0, duration_s=0.01)


def looped(rollout_id: str) -> Trajectory:
    """A trajectory recorded by the project's agent loop (system, user, agent steps and their tool calls)."""
    actor = ScriptActor(
        [[("bash", {"command": "cat sales.csv"}), ("bash", {"cmd": "bad"})], [("finish", {"message": "done"})]]
    )
    trajectory = Trajectory(rollout_id=rollout_id, group_id="g", run_id="run", task_id="csv-i0", task_name="csv",
                            domain="data", policy="oracle", attempt=0, backend="bwrap")  # fmt: skip
    return asyncio.run(
        run_agent(actor, trajectory, "Aggregate sales.csv.", Tools(), limits=LoopLimits(), system_prompt="Be brief.")
    )


def with_model_fields(rollout_id: str) -> Trajectory:
    """A model's agent step: reasoning, metrics, a model name; and the totals of the header."""
    trajectory = Trajectory(rollout_id=rollout_id, group_id="g", run_id="run", task_id="csv-i0", task_name="csv",
                            domain="data", policy="solver", model="m", attempt=1, backend="docker",
                            status="completed", turns=1, input_tokens=15, output_tokens=6, wall_s=0.5)  # fmt: skip
    trajectory.add_step("user", "Aggregate sales.csv.")
    trajectory.add_step(
        "agent", "", reasoning="Nothing to do.", model_name="m",
        tool_calls=[StepToolCall(tool_call_id="c1", function_name="finish", arguments={"message": "done"})],
        metrics=StepMetrics(prompt_tokens=15, completion_tokens=6, latency_ms=12.5),
    )  # fmt: skip
    return trajectory


def test_written_trajectories_validate_against_harbors_trajectory_model(tmp_path: Path) -> None:
    files = TrajectoryFiles(tmp_path)
    paths = [files.write_atif(looped("loop-1")), files.write_atif(with_model_fields("model-1"))]
    broken = tmp_path / "broken.json"
    document = json.loads(paths[0].read_text())
    document["steps"][0]["tool_calls"] = [{"tool_call_id": "x", "function_name": "bash", "arguments": {}}]
    broken.write_text(json.dumps(document))  # tool calls on a system step: Harbor must refuse it

    report = harbor_python(HARBOR_CHECK, *paths, broken)

    assert report["default"] == ATIF_SCHEMA_VERSION  # the version Harbor writes by default
    assert {str(p): report["problems"][str(p)] for p in paths} == {str(p): [] for p in paths}
    assert report["problems"][str(broken)], "Harbor accepted a step it must refuse"
    for path in paths:
        written = json.loads(path.read_text())
        assert written["schema_version"] == ATIF_SCHEMA_VERSION and atif_problems(written) == []
    loop_document = json.loads(paths[0].read_text())
    assert [step["source"] for step in loop_document["steps"]][:3] == ["system", "user", "agent"]
    assert [r["extra"]["is_error"] for r in loop_document["steps"][2]["observation"]["results"]] == [False, True]
    assert loop_document["agent"]["tool_definitions"]
