"""Materialize `rollouts` through Dagster on a small fixture lake (Harbor fixture tasks in `tasks`)."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest
from atif import atif_problems
from harbor_tasks import CSV_AGGREGATION, LOG_TRIAGE, fixture_task, require_backend
from llm_server import ScriptedServer, tool_calls
from rollout_lake import DOMAIN, register_tasks

from assets.rollouts import rollouts
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.home import Home
from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]


@pytest.fixture
def home(tmp_path: Path) -> Home:
    require_backend("bwrap")
    home = Home(tmp_path / "home")
    register_tasks(Lake(home.lake_path), home, fixture_task(CSV_AGGREGATION), fixture_task(LOG_TRIAGE))
    return home


def materialize(home: Home, config: dict[str, object], llm: LlmResource | None = None) -> dg.ExecuteInProcessResult:
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("domain", [DOMAIN])
    return dg.materialize(
        [rollouts],
        instance=instance,
        partition_key=DOMAIN,
        resources={"lake": LakeResource(home=str(home.root)), "llm": llm or LlmResource(home=str(home.root))},
        run_config={"ops": {"rollouts": {"config": {"backend": "bwrap", **config}}}},
        raise_on_error=False,
    )


def test_the_oracle_rolls_out_every_task_of_the_domain(home: Home) -> None:
    result = materialize(home, {"policy": "oracle", "attempts": 2})

    assert result.success
    lake = Lake(home.lake_path)
    rows = lake.query("SELECT task_id, attempt, status, policy, group_id FROM rollouts ORDER BY task_id, attempt")
    assert rows.select("task_id", "attempt", "status", "policy").rows() == [
        ("csv-aggregation-i0", 1, "completed", "oracle"),
        ("csv-aggregation-i0", 2, "completed", "oracle"),
        ("log-triage-i0", 1, "completed", "oracle"),
        ("log-triage-i0", 2, "completed", "oracle"),
    ]
    assert rows.get_column("group_id").n_unique() == 2
    summary = lake.query("SELECT attempts, tasks, completed, infra_error FROM rollout_summary").rows()
    assert summary == [(4, 2, 4, 0)]
    metadata = result.asset_materializations_for_node("rollouts")[0].metadata
    assert metadata["dagster/row_count"].value == 4 and metadata["policy"].value == "oracle"


def test_the_solver_policy_uses_the_solver_role(home: Home, server: ScriptedServer) -> None:
    server.respond = lambda _: tool_calls(("bash", {"command": "ls"}), ("finish", {"message": "looked"}))
    llm = LlmResource(home=str(home.root), base_url=server.base_url, model="scripted-model", cache_mode="off")

    result = materialize(home, {"policy": "solver", "attempts": 1, "max_turns": 5}, llm)

    assert result.success
    lake = Lake(home.lake_path)
    rows = lake.query("SELECT status, model, turns, trajectory_path FROM rollouts").rows()
    assert [row[:3] for row in rows] == [("completed", "scripted-model", 1)] * 2
    assert all(atif_problems(json.loads((home.root / row[3]).read_text())) == [] for row in rows)
    calls = lake.query("SELECT role, count(*) FROM llm_calls GROUP BY 1").rows()
    assert calls == [("solver", 2)]


def test_the_solver_policy_without_a_model_fails_the_run_saying_so(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SKILL2ENV_LLM_BASE_URL", "SKILL2ENV_LLM_MODEL", "SKILL2ENV_LLM_SOLVER_BASE_URL"):
        monkeypatch.delenv(name, raising=False)

    result = materialize(home, {"policy": "solver"})

    assert not result.success
    failure = result.get_step_failure_events()[0].event_specific_data.error  # type: ignore[union-attr]
    assert "no model configured for role 'solver'" in str(failure)
