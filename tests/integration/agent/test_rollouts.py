"""Rollouts in real sandboxes: a solver driven by the scripted model server, scripted policies, and a
rollout process killed with SIGKILL mid-run — on the docker and the bwrap backend."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from atif import atif_problems
from harbor_tasks import CSV_AGGREGATION, fixture_task, require_backend, tree
from llm_server import ScriptedServer, tool_calls
from rollout_lake import DOMAIN, register_tasks, roll_out_domain

from skill2env.agent.actors import SolverPolicy, policy_from_name
from skill2env.agent.markers import AttemptLog
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.sandbox import docker_backend
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir

pytestmark = pytest.mark.integration

EXPECTED = "region,revenue\neast,11.00\nnorth,27.50\nsouth,42.50\n"
OUTPUT = "output/revenue_by_region.csv"
WORKER = Path(__file__).with_name("rollout_worker.py")


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path / "home")


@pytest.fixture
def lake(home: Home) -> Lake:
    return Lake(home.lake_path, lock_timeout=60)


def solver(server: ScriptedServer, home: Home) -> SolverPolicy:
    config = RoleConfig(base_url=server.base_url, model="scripted-model", max_attempts=1)
    return SolverPolicy(ModelClient("solver", config, cache=ResponseCache(home.root / "cache", CacheMode.off)))


def verify(backend: BackendName, task: TaskDir, workspace: Path) -> float:
    """The task's own verifier on a final workspace, in a fresh sandbox."""
    sandbox = make_sandbox(backend, SandboxLimits.for_task(task))
    try:
        sandbox.start(task)
        sandbox.copy_in(workspace / "output", f"{sandbox.workspace}/output")
        sandbox.copy_in(task.tests_dir, "/tests")
        result = sandbox.exec(["bash", "/tests/test.sh"], user="root", timeout=task.verifier_timeout_sec)
        assert result.ok, result.stderr
        return float(json.loads(sandbox.read_file("/logs/verifier/reward.json"))["reward"])
    finally:
        sandbox.stop()


def test_a_solver_completes_a_multi_turn_rollout_with_tool_calls(
    backend: BackendName, server: ScriptedServer, home: Home, lake: Lake
) -> None:
    task = fixture_task(CSV_AGGREGATION)
    register_tasks(lake, home, task)
    server.script(
        tool_calls(("bash", {"command": "cat /workspace/sales.csv"}), ("list_dir", {"path": "."}), content="Look."),
        tool_calls(("write_file", {"path": OUTPUT, "content": EXPECTED})),
        tool_calls(("read_file", {"path": f"/workspace/{OUTPUT}"})),
        tool_calls(("finish", {"message": "revenue_by_region.csv written"})),
    )
    runner = RolloutRunner(solver(server, home), backend=backend, run_id="run-1", home=home, attempts=AttemptLog(lake))

    outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=1, run_id="run-1", code_version="test")

    (done,) = outcome.trajectories
    assert (done.status, done.error, done.turns, done.backend) == ("completed", None, 4, backend)
    first = done.steps[2]
    assert first.observations[0].content == (task.workspace_dir / "sales.csv").read_text() + "[exit code 0]"
    assert "sales.csv" in first.observations[1].content
    assert done.steps[4].observations[0].content == EXPECTED
    # The final workspace: the fixture's files plus the output, and the task's verifier gives it full reward.
    workspace = home.root / str(done.workspace_path)
    assert tree(workspace) == {**tree(task.workspace_dir), OUTPUT: EXPECTED.encode()}
    assert verify(backend, task, workspace) == 1.0
    # Stored as rows …
    row = lake.query("SELECT * FROM rollouts").row(0, named=True)
    assert (row["status"], row["turns"], row["tool_calls"], row["tool_errors"]) == ("completed", 4, 5, 0)
    assert (row["policy"], row["model"], row["backend"], row["task_id"]) == ("solver", "scripted-model", backend,
                                                                             "csv-aggregation-i0")  # fmt: skip
    assert row["workspace_digest"] == done.workspace_digest and row["input_tokens"] == 44
    # … with how the sandbox ran: the fast path, over the base image's file system under bwrap.
    fast = {"docker": "docker:attach", "bwrap": "bwrap:image-rootfs"}[backend]
    assert row["sandbox_mode"] == done.sandbox_mode == fast
    steps = lake.query("SELECT step_id, source, tool_calls FROM trajectory_steps ORDER BY step_id")
    assert steps.get_column("source").to_list() == ["system", "user", "agent", "agent", "agent", "agent"]
    assert json.loads(steps.get_column("tool_calls")[3])[0]["arguments"] == {"path": OUTPUT, "content": EXPECTED}
    # … and as an ATIF file.
    document = json.loads((home.root / str(row["trajectory_path"])).read_text())
    assert atif_problems(document) == []
    assert [len(s.get("tool_calls", [])) for s in document["steps"]] == [0, 0, 2, 1, 1, 1]


@pytest.mark.parametrize(("policy", "expected"), [("oracle", {OUTPUT: EXPECTED.encode()}), ("nop", {})])
def test_scripted_policies_are_rollouts_like_any_other(
    backend: BackendName, home: Home, lake: Lake, policy: str, expected: dict[str, bytes]
) -> None:
    task = fixture_task(CSV_AGGREGATION)
    runner = RolloutRunner(policy_from_name(policy), backend=backend, run_id="r", home=home, attempts=AttemptLog(lake))
    register_tasks(lake, home, task)

    outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=2, run_id="r", code_version="test")

    assert [t.status for t in outcome.trajectories] == ["completed", "completed"]
    for done in outcome.trajectories:
        assert tree(home.root / str(done.workspace_path)) == {**tree(task.workspace_dir), **expected}
        assert atif_problems(json.loads((home.root / str(done.trajectory_path)).read_text())) == []
    if policy == "oracle":
        bash = outcome.trajectories[0].steps[2]
        assert bash.tool_calls[0].arguments["command"] == "bash /solution/.policy.sh"
        assert bash.observations[0].exit_code == 0


@pytest.mark.docker
def test_the_docker_exec_fallback_is_logged_and_recorded_on_the_rollout_row(
    home: Home, lake: Lake, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    require_backend("docker")
    monkeypatch.setattr(docker_backend, "SERVER_PYTHON", "no-such-python3")  # the command server cannot start
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))
    runner = RolloutRunner(policy_from_name("oracle"), backend="docker", run_id="r", home=home,
                           attempts=AttemptLog(lake))  # fmt: skip

    with caplog.at_level(logging.WARNING, logger="skill2env.sandbox.docker_backend"):
        outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=1, run_id="r", code_version="test")

    (done,) = outcome.trajectories
    assert (done.status, done.sandbox_mode) == ("completed", "docker:exec-fallback")
    row = lake.query("SELECT rollout_id, backend, sandbox_mode FROM rollouts").row(0, named=True)
    assert row == {"rollout_id": done.rollout_id, "backend": "docker", "sandbox_mode": "docker:exec-fallback"}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(done.rollout_id in message and "docker exec" in message for message in warnings)


def test_a_rollout_killed_mid_run_is_recorded_as_an_infra_error(
    backend: BackendName, server: ScriptedServer, home: Home, lake: Lake
) -> None:
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))
    server.script(tool_calls(("bash", {"command": "sleep 300", "timeout": 600})))
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), str(home.root), server.base_url, backend, DOMAIN],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        killed_id = _wait_for_running_command(lake, server, worker, backend)
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == -signal.SIGKILL
    assert lake.query("SELECT rollout_id FROM open_rollout_attempts").to_series().to_list() == [killed_id]

    # Start again: the interrupted attempt is closed as infra_error, and a new one runs.
    server.script(tool_calls(("finish", {"message": "done"})))
    runner = RolloutRunner(solver(server, home), backend=backend, run_id="run-2", home=home, attempts=AttemptLog(lake))
    outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=1, run_id="run-2", code_version="test")

    assert [t.rollout_id for t in outcome.recovered] == [killed_id]
    rows = lake.query("SELECT rollout_id, status, attempt_run_id, error FROM rollouts ORDER BY started_at").rows()
    assert [(r[1], r[2]) for r in rows] == [("infra_error", "killed-run"), ("completed", "run-2")]
    assert rows[0][0] == killed_id and rows[0][3].startswith("interrupted: the process running the attempt")
    assert lake.query("SELECT count(*) FROM open_rollout_attempts").item() == 0
    kept = lake.query("SELECT source FROM trajectory_steps WHERE rollout_id = $id ORDER BY step_id", {"id": killed_id})
    assert kept.to_series().to_list() == ["system", "user"]  # what its partial trajectory held
    assert atif_problems(json.loads((home.root / f"trajectories/{killed_id}/trajectory.json").read_text())) == []
    # The restart reaped what the killed process left behind (the engine may take a moment to finish).
    deadline = time.monotonic() + 30
    while _sandbox_left(backend, killed_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _sandbox_left(backend, killed_id)


def _wait_for_running_command(
    lake: Lake, server: ScriptedServer, worker: subprocess.Popen[bytes], backend: BackendName
) -> str:
    """The rollout id once the worker's agent is inside its `sleep 300`."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise AssertionError(f"the worker ended early: {worker.stderr.read().decode() if worker.stderr else ''}")
        if server.requests and lake.path.exists():
            opened = lake.query("SELECT rollout_id FROM open_rollout_attempts").to_series().to_list()
            if opened and _sandbox_left(backend, opened[0]):
                time.sleep(1.0)  # the model's answer is in; the command is running
                return str(opened[0])
        time.sleep(0.2)
    raise AssertionError("the worker never started its rollout")


def _sandbox_left(backend: str, rollout_id: str) -> bool:
    if backend == "bwrap":
        from skill2env.sandbox.bwrap_backend import bwrap_root

        return (bwrap_root() / rollout_id).exists()
    from skill2env.sandbox.engine import docker_client
    from skill2env.sandbox.labels import ROLLOUT_LABEL

    client = docker_client()
    try:  # a container started ahead keeps its warm label, and is renamed after the rollout that took it
        labelled = client.containers.list(all=True, filters={"label": f"{ROLLOUT_LABEL}={rollout_id}"})
        return bool(labelled or client.containers.list(all=True, filters={"name": f"skill2env-{rollout_id}"}))
    finally:
        client.close()


def test_file_tools_act_with_the_agents_own_permissions(
    backend: BackendName, server: ScriptedServer, home: Home
) -> None:
    task = fixture_task(CSV_AGGREGATION)
    server.script(
        tool_calls(("write_file", {"path": "/tests/verify.py", "content": "print('planted')"})),
        tool_calls(("bash", {"command": "ln -s /tests planted"})),
        tool_calls(("write_file", {"path": "planted/verify.py", "content": "print('planted')"})),
        tool_calls(("read_file", {"path": "/etc/shadow"})),
        tool_calls(("finish", {})),
    )
    runner = RolloutRunner(solver(server, home), backend=backend, run_id="r", home=home)

    (done,) = runner.run_all(attempt_specs([TaskRef(task, "csv-i0", DOMAIN)], 1))

    assert done.status == "completed"
    direct, _, through_link, shadow = (step.observations[0] for step in done.steps[2:6])
    assert direct.is_error and direct.content.startswith("error: writing /tests/verify.py failed")
    assert through_link.is_error and through_link.content.startswith("error: writing planted/verify.py failed")
    assert shadow.is_error


@pytest.mark.docker
def test_docker_attempts_take_containers_started_ahead_and_leave_none_behind(
    home: Home, lake: Lake, caplog: pytest.LogCaptureFixture
) -> None:
    require_backend("docker")
    task = fixture_task(CSV_AGGREGATION)
    register_tasks(lake, home, task)
    runner = RolloutRunner(policy_from_name("oracle"), backend="docker", run_id="r", home=home,
                           attempts=AttemptLog(lake), concurrency=2)  # fmt: skip

    with caplog.at_level(logging.INFO, logger="skill2env.agent.rollout"):
        outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=4, run_id="r", code_version="test")

    assert [t.status for t in outcome.trajectories] == ["completed"] * 4
    assert all(tree(home.root / str(t.workspace_path)) == {**tree(task.workspace_dir), OUTPUT: EXPECTED.encode()}
               for t in outcome.trajectories)  # fmt: skip
    assert "warm sandboxes: 4 started ahead, 4 taken by attempts" in caplog.messages
    client = docker_backend.docker_client()
    try:  # every container and volume of the run is gone, the unclaimed warm ones with them
        label = {"label": f"{docker_backend.OWNER_LABEL}={docker_backend.owner_token()}"}
        assert client.containers.list(all=True, filters=label) == client.volumes.list(filters=label) == []
    finally:
        client.close()
