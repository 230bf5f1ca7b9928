"""How each attempt's sandbox ran (`Sandbox.mode`) reaches its `rollouts` row as `sandbox_mode`,
in new lakes and in lakes made before the column."""

from __future__ import annotations

from pathlib import Path

import duckdb
from harbor_tasks import CSV_AGGREGATION, fixture_task
from local_sandbox import LocalSandbox
from rollout_lake import register_tasks, roll_out_domain

from skill2env.agent.actors import policy_from_name
from skill2env.agent.markers import AttemptLog
from skill2env.agent.rollout import RolloutRunner
from skill2env.agent.tables import rollouts_frame
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.task import TaskDir

DOMAIN = "data-analysis"


class FallbackSandbox(LocalSandbox):
    """A local sandbox that says it fell back, as the docker backend does without its command server."""

    backend = "docker"

    def start(self, task: TaskDir | None = None) -> None:
        super().start(task)
        self.mode = "docker:exec-fallback"


def roll_out(lake: Lake, home: Home, factory: type[LocalSandbox], run_id: str = "run-1") -> list[dict[str, object]]:
    runner = RolloutRunner(
        policy_from_name("nop"), backend="docker", run_id=run_id, home=home, attempts=AttemptLog(lake),
        sandbox_factory=lambda limits, rollout_id: factory(limits, rollout_id=rollout_id),
    )  # fmt: skip
    outcome = roll_out_domain(lake, home, DOMAIN, runner, attempts=2, run_id=run_id, code_version="t")
    assert len(outcome.trajectories) == 2
    return lake.query("SELECT rollout_id, status, backend, sandbox_mode FROM rollouts ORDER BY 1").to_dicts()


def test_the_rollouts_row_carries_the_sandbox_mode(lake: Lake, tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))

    rows = roll_out(lake, home, FallbackSandbox)

    assert [(r["status"], r["backend"], r["sandbox_mode"]) for r in rows] == [
        ("completed", "docker", "docker:exec-fallback")
    ] * 2


def test_an_attempt_whose_sandbox_never_started_has_no_sandbox_mode(lake: Lake, tmp_path: Path) -> None:
    class Unavailable(LocalSandbox):
        def __init__(self, limits: SandboxLimits | None = None, *, rollout_id: str | None = None) -> None:
            super().__init__(limits, rollout_id=rollout_id)
            self.start_error = SandboxUnavailable("bwrap runs over the base image's unpacked file system …")

    home = Home(tmp_path / "home")
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))

    rows = roll_out(lake, home, Unavailable)

    assert [(r["status"], r["sandbox_mode"]) for r in rows] == [("infra_error", None)] * 2


def test_a_lake_made_before_the_column_gains_it(tmp_path: Path) -> None:
    path = tmp_path / "lake.duckdb"
    Lake(path, lock_timeout=60).ensure_schema()
    con = duckdb.connect(str(path))
    con.execute("DROP VIEW IF EXISTS rollouts")  # rebuilt with the schema
    con.execute("ALTER TABLE rollouts_versions DROP COLUMN sandbox_mode")
    con.execute("DELETE FROM lake_schema")  # as an older version left it
    con.close()
    home = Home(tmp_path / "home")
    lake = Lake(path, lock_timeout=60)
    register_tasks(lake, home, fixture_task(CSV_AGGREGATION))

    rows = roll_out(lake, home, FallbackSandbox)

    assert {r["sandbox_mode"] for r in rows} == {"docker:exec-fallback"}
    assert "sandbox_mode" in rollouts_frame([]).columns
