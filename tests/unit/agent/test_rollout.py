"""Running attempts: groups under a concurrency bound, markers, snapshots, infra errors, recovery."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, slow, tool_calls
from local_sandbox import LocalSandbox
from rollout_lake import open_attempts, register_tasks, roll_out_domain

from skill2env.agent.actors import ScriptPolicy, SolverPolicy, policy_from_name
from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.markers import AttemptLog, close_attempts, interrupted_attempts
from skill2env.agent.rollout import AttemptSpec, RolloutRunner, TaskRef, attempt_specs, sandbox_slots
from skill2env.agent.tables import attempt_event_frame
from skill2env.agent.trajectory import Trajectory
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.llm.cache import CacheMode
from skill2env.sandbox.base import SandboxLimits, owner_token
from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.harbor import task_digest
from skill2env.tasks.store import TaskStore

SCRIPT = [
    [("bash", {"command": "mkdir -p output && sleep 0.2"})],
    [("write_file", {"path": "output/revenue_by_region.csv", "content": "region,revenue\n"})],
    [("finish", {"message": "done"})],
]


class Sandboxes:
    """A sandbox factory for the runner: local sandboxes, counting how many run at once."""

    def __init__(self, configure: Callable[[LocalSandbox], None] | None = None) -> None:
        self.configure = configure
        self.made: list[LocalSandbox] = []
        self.running = self.peak = 0
        self._lock = threading.Lock()

    def __call__(self, limits: SandboxLimits, rollout_id: str) -> LocalSandbox:
        sandboxes = self

        class Counted(LocalSandbox):
            def start(self, task: TaskDir | None = None) -> None:
                super().start(task)
                with sandboxes._lock:
                    sandboxes.running += 1
                    sandboxes.peak = max(sandboxes.peak, sandboxes.running)

            def stop(self) -> None:
                if self.root is not None:
                    with sandboxes._lock:
                        sandboxes.running -= 1
                super().stop()

        sandbox = Counted(limits, rollout_id=rollout_id)
        if self.configure:
            self.configure(sandbox)
        self.made.append(sandbox)
        return sandbox


def specs(attempts: int, tasks: int = 1) -> list[AttemptSpec]:
    refs = [TaskRef(fixture_task(CSV_AGGREGATION), f"csv-{n}-i0", "data-analysis") for n in range(tasks)]
    return attempt_specs(refs, attempts)


def test_attempt_specs_make_one_group_per_task() -> None:
    made = specs(3, tasks=2)

    assert [(s.task_id, s.attempt) for s in made] == [(f"csv-{t}-i0", a) for t in range(2) for a in (1, 2, 3)]
    assert len({s.group_id for s in made[:3]}) == 1 and made[0].group_id != made[3].group_id


def test_sandbox_slots_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILL2ENV_SANDBOX_SLOTS", raising=False)
    assert sandbox_slots() == 2
    monkeypatch.setenv("SKILL2ENV_SANDBOX_SLOTS", "16")
    assert sandbox_slots() == 16


def test_a_group_runs_under_the_concurrency_bound_with_markers_snapshots_and_files(lake: Lake, tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    sandboxes = Sandboxes()
    runner = RolloutRunner(
        ScriptPolicy("script:three-steps", SCRIPT), backend="bwrap", run_id="run-1", home=home,
        attempts=AttemptLog(lake), concurrency=2, sandbox_factory=sandboxes,
    )  # fmt: skip

    done = runner.run_all(specs(attempts=5))

    assert [t.status for t in done] == ["completed"] * 5 and [t.attempt for t in done] == [1, 2, 3, 4, 5]
    assert sandboxes.peak == 2 and sandboxes.running == 0 and len(sandboxes.made) == 5
    assert len({t.rollout_id for t in done}) == 5 and len({t.group_id for t in done}) == 1
    first = done[0]
    assert (first.turns, first.policy, first.model, first.backend) == (3, "script:three-steps", None, "bwrap")
    assert first.wall_s is not None and first.tool_s > 0.2 and first.finished_at is not None
    # The final workspace, content-addressed in the store: every attempt did the same, so one snapshot.
    assert len({t.workspace_digest for t in done}) == 1
    snapshot = home.root / str(first.workspace_path)
    assert task_digest(snapshot) == first.workspace_digest
    assert (snapshot / "output/revenue_by_region.csv").read_text() == "region,revenue\n"
    assert (snapshot / "sales.csv").is_file()
    assert (home.root / str(first.trajectory_path)).is_file()
    events = lake.query("SELECT event, count(*) AS n FROM rollout_attempts GROUP BY 1 ORDER BY 1")
    assert events.rows() == [("finished", 5), ("started", 5)]
    assert lake.query("SELECT count(*) FROM open_rollout_attempts").item() == 0
    statuses = lake.query("SELECT DISTINCT status FROM rollout_attempts WHERE event = 'finished'").rows()
    assert statuses == [("completed",)]


def test_a_partial_trajectory_that_cannot_be_written_makes_the_attempt_an_infra_error(
    lake: Lake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last partial write is awaited beside the snapshot, not before it: its failure still counts."""
    from skill2env.agent import rollout

    def full_disk(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rollout, "write_atomically", full_disk)
    runner = RolloutRunner(
        ScriptPolicy("script:three-steps", SCRIPT), backend="bwrap", run_id="run-1", home=Home(tmp_path),
        attempts=AttemptLog(lake), sandbox_factory=Sandboxes(),
    )  # fmt: skip

    (done,) = runner.run_all(specs(attempts=1))

    assert done.status == "infra_error"
    assert done.error == "OSError: [Errno 28] No space left on device"
    assert lake.query("SELECT status FROM rollout_attempts WHERE event = 'finished'").item() == "infra_error"


def test_a_sandbox_that_cannot_start_is_an_infra_error(lake: Lake, tmp_path: Path) -> None:
    def broken(sandbox: LocalSandbox) -> None:
        sandbox.start_error = SandboxUnavailable("no engine here")

    runner = RolloutRunner(
        ScriptPolicy("script:three-steps", SCRIPT), backend="docker", run_id="run-1", home=Home(tmp_path),
        attempts=AttemptLog(lake), sandbox_factory=Sandboxes(broken),
    )  # fmt: skip

    (done,) = runner.run_all(specs(attempts=1))

    assert (done.status, done.error) == ("infra_error", "SandboxUnavailable: no engine here")
    assert done.workspace_digest is None and done.trajectory_path is not None
    assert lake.query("SELECT status FROM rollout_attempts WHERE event = 'finished'").item() == "infra_error"


def test_an_agent_answering_without_tools_still_needs_its_sandbox(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    def broken(sandbox: LocalSandbox) -> None:
        sandbox.start_error = SandboxUnavailable("no engine here")

    server.script(tool_calls(("finish", {"message": "nothing to do"})))
    policy = SolverPolicy(make_client(role="solver", cache=CacheMode.off))
    runner = RolloutRunner(policy, backend="docker", run_id="r", sandbox_factory=Sandboxes(broken))

    (done,) = runner.run_all(specs(attempts=1))

    assert done.status == "infra_error" and "no engine here" in (done.error or "")


def test_the_sandbox_starts_while_the_model_thinks(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    def slow_start(sandbox: LocalSandbox) -> None:
        sandbox.start_delay = 0.5

    server.script(slow(0.5, tool_calls(("bash", {"command": "true"}))), tool_calls(("finish", {})))
    policy = SolverPolicy(make_client(role="solver", cache=CacheMode.off))
    runner = RolloutRunner(policy, backend="bwrap", run_id="r", sandbox_factory=Sandboxes(slow_start))

    (done,) = runner.run_all(specs(attempts=1))

    assert done.status == "completed" and done.model == "scripted-model"
    assert done.wall_s is not None and done.wall_s < 0.9  # not 0.5 + 0.5: the start hid behind the model call
    assert done.steps[0].source == "system" and "/workspace" in done.steps[0].message


def test_interrupted_attempts_are_recovered_as_infra_errors_with_their_steps(lake: Lake, tmp_path: Path) -> None:
    files = TrajectoryFiles(tmp_path)
    dead, alive, other = (_started("dead"), _started("alive"), _started("other", domain="finance"))
    dead.add_step("user", "Aggregate sales.csv.")
    files.write_partial(dead)
    for trajectory, owner in ((dead, "another-boot:4242:1"), (alive, owner_token()), (other, "another-boot:1:1")):
        lake.append("rollout_attempts", attempt_event_frame("started", trajectory, owner))

    (recovered,) = interrupted_attempts(open_attempts(lake), files)

    assert (recovered.rollout_id, recovered.status, recovered.run_id) == ("dead", "infra_error", "killed-run")
    assert recovered.error is not None and recovered.error.startswith("interrupted: the process running the attempt")
    assert [s.message for s in recovered.steps] == ["Aggregate sales.csv."]
    assert files.atif_path("dead").is_file() and files.read_partial("dead") is None
    close_attempts(lake, [recovered])
    assert sorted(lake.query("SELECT rollout_id FROM open_rollout_attempts").to_series()) == ["alive", "other"]
    assert interrupted_attempts(open_attempts(lake), files) == []


def test_a_recovered_attempt_without_a_partial_file_keeps_its_marker_facts(lake: Lake, tmp_path: Path) -> None:
    lake.append("rollout_attempts", attempt_event_frame("started", _started("gone"), "another-boot:9:9"))

    (recovered,) = interrupted_attempts(open_attempts(lake), TrajectoryFiles(tmp_path))

    assert (recovered.task_id, recovered.attempt, recovered.policy, recovered.steps) == ("csv-i0", 3, "oracle", [])


def test_rolling_out_a_domain_writes_its_rows_and_closes_interrupted_attempts(lake: Lake, tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))
    stored = TaskStore.of(home).put_dir(fixture_task(CSV_AGGREGATION).root)
    lake.append("rollout_attempts", attempt_event_frame("started", _started("killed"), "another-boot:9:9"))
    runner = RolloutRunner(
        policy_from_name("nop"), backend="bwrap", run_id="run-2", home=home, attempts=AttemptLog(lake),
        sandbox_factory=Sandboxes(),
    )  # fmt: skip

    outcome = roll_out_domain(lake, home, "data-analysis", runner, attempts=2, run_id="run-2", code_version="t")

    assert (outcome.tasks, len(outcome.trajectories), len(outcome.recovered), outcome.rows) == (1, 2, 1, 3)
    rows = lake.query("SELECT rollout_id, status, policy, run_id, attempt_run_id, task_digest FROM rollouts ORDER BY 1")
    assert rows.filter(pl.col("rollout_id") == "killed").row(0)[1:5] == ("infra_error", "oracle", "run-2", "killed-run")
    completed = rows.filter(pl.col("status") == "completed")
    assert completed.height == 2 and set(completed.get_column("policy")) == {"nop"}
    assert set(completed.get_column("task_digest")) == {stored.digest}
    assert lake.query("SELECT count(*) FROM open_rollout_attempts").item() == 0
    steps = lake.query("SELECT source, count(*) FROM trajectory_steps GROUP BY 1 ORDER BY 1").rows()
    assert steps == [("agent", 2), ("system", 2), ("user", 2)]


def _started(rollout_id: str, *, domain: str = "data-analysis") -> Trajectory:
    return Trajectory(
        rollout_id=rollout_id, group_id="g", run_id="killed-run", task_id="csv-i0", task_name="csv", domain=domain,
        policy="oracle", attempt=3, backend="docker",
    )  # fmt: skip


async def test_a_cancelled_run_stops_its_sandboxes_and_leaves_the_attempts_open(lake: Lake, tmp_path: Path) -> None:
    sandboxes = Sandboxes()
    runner = RolloutRunner(
        ScriptPolicy("script:slow", [[("bash", {"command": "sleep 1.5"})]]), backend="bwrap", run_id="run-1",
        home=Home(tmp_path), attempts=AttemptLog(lake), sandbox_factory=sandboxes,
    )  # fmt: skip
    running = asyncio.ensure_future(runner.run(specs(attempts=2)))
    while sandboxes.running < 2:
        await asyncio.sleep(0.05)

    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running

    assert sandboxes.running == 0
    opened = lake.query("SELECT rollout_id FROM open_rollout_attempts").to_series().to_list()
    assert len(opened) == 2  # closed as infra_error by the next run, once this process is gone
    assert all(TrajectoryFiles(tmp_path).read_partial(rollout_id) is not None for rollout_id in opened)
