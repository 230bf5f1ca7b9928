"""Materialize iteration 0's validations and rollouts through Dagster on a small fixture lake:
two accepted tasks (the expense-audit fixture under two names), k attempts of a policy on each."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import dagster as dg
import pytest
from atif import atif_problems
from harbor_tasks import require_backend
from llm_server import ScriptedServer, tool_calls
from rollout_lake import DOMAIN, register_tasks

from assets.iterations import rollouts_asset, stage_key, validations_asset
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.sandbox.task import TaskDir

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]
EXPENSE_AUDIT = Path(__file__).resolve().parents[1] / "fixtures" / "harbor_eval_spec" / "expense-policy-audit"
TASKS = ("expense-audit-a", "expense-audit-b")
ROLLOUTS = stage_key(0, "rollouts")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    require_backend("bwrap")
    for name in [n for n in os.environ if n.startswith("SKILL2ENV_LLM_")]:  # a caller's endpoints would add roles
        monkeypatch.delenv(name)
    home = Home(tmp_path / "home")
    tasks = [TaskDir(shutil.copytree(EXPENSE_AUDIT, tmp_path / "tasks" / name)) for name in TASKS]
    register_tasks(Lake(home.lake_path), home, *tasks, pipeline=True)
    return home


def materialize(home: Home, config: dict[str, object]) -> dg.ExecuteInProcessResult:
    """Validate iteration 0's tasks, then roll out the accepted ones with `config`."""
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("domain", [DOMAIN])
    resources = {"lake": LakeResource(home=str(home.root)), "llm": LlmResource(home=str(home.root), cache_mode="off")}
    validated = dg.materialize(
        [validations_asset(0)],
        instance=instance,
        partition_key=DOMAIN,
        resources=resources,
        run_config={"ops": {"iteration_0__validations": {"config": {"backend": "bwrap"}}}},
    )
    assert validated.success
    return dg.materialize(
        [rollouts_asset(0)],
        instance=instance,
        partition_key=DOMAIN,
        resources=resources,
        run_config={"ops": {"iteration_0_rollouts": {"config": {"backend": "bwrap", **config}}}},
        raise_on_error=False,
    )


def test_the_oracle_rolls_out_every_accepted_task_of_the_domain(home: Home) -> None:
    result = materialize(home, {"policy": "oracle", "attempts": 2})

    assert result.success
    lake = Lake(home.lake_path)
    gates = lake.query("SELECT task_id, gate, status, evidence FROM validations WHERE status <> 'passed'").rows()
    assert lake.query("SELECT task_id FROM accepted_tasks ORDER BY ALL").rows() == [
        ("expense-audit-a-i0",),
        ("expense-audit-b-i0",),
    ], gates
    rows = lake.query("SELECT task_id, attempt, status, policy, group_id FROM rollouts ORDER BY task_id, attempt")
    assert rows.select("task_id", "attempt", "status", "policy").rows() == [
        ("expense-audit-a-i0", 1, "completed", "oracle"),
        ("expense-audit-a-i0", 2, "completed", "oracle"),
        ("expense-audit-b-i0", 1, "completed", "oracle"),
        ("expense-audit-b-i0", 2, "completed", "oracle"),
    ]
    assert rows.get_column("group_id").n_unique() == 2
    summary = lake.query("SELECT attempts, tasks, completed, infra_error FROM rollout_summary").rows()
    assert summary == [(4, 2, 4, 0)]
    rewards = lake.query("SELECT verification, reward, incomplete, full_credit FROM rollout_rewards").rows()
    # no judge is configured: the judge item (weight 0.3) counts 0 and the attempt is never full credit
    assert rewards == [("scored", pytest.approx(0.7), True, False)] * 4
    metadata = result.asset_materializations_for_node("iteration_0_rollouts")
    rollouts = next(m for m in metadata if m.asset_key == ROLLOUTS).metadata
    assert rollouts["attempts"].value == 4 and rollouts["policy"].value == "oracle"


@pytest.mark.parametrize(("fraction", "items_passed"), [(0.0, 0), (0.5, 1), (1.0, 2)])
def test_the_partial_policy_runs_the_configured_share_of_the_oracle(
    home: Home, fraction: float, items_passed: int
) -> None:
    result = materialize(home, {"policy": "partial", "attempts": 1, "partial_fraction": fraction})

    assert result.success
    passed = Lake(home.lake_path).query("SELECT policy, items_passed FROM rollout_rewards").rows()
    assert passed == [("partial", items_passed)] * 2  # of the two deterministic items; no judge for the third


def test_the_solver_policy_uses_the_solver_role(home: Home, server: ScriptedServer) -> None:
    server.respond = lambda _: tool_calls(("bash", {"command": "ls"}), ("finish", {"message": "looked"}))
    (home.root / "llm.toml").write_text(f'[solver]\nbase_url = "{server.base_url}"\nmodel = "scripted-model"\n')

    result = materialize(home, {"policy": "solver", "attempts": 1, "max_turns": 5})

    assert result.success
    lake = Lake(home.lake_path)
    rows = lake.query("SELECT status, model, turns, trajectory_path FROM rollouts").rows()
    assert [row[:3] for row in rows] == [("completed", "scripted-model", 1)] * 2
    assert all(atif_problems(json.loads((home.root / row[3]).read_text())) == [] for row in rows)
    calls = lake.query("SELECT role, count(*) FROM llm_calls GROUP BY 1").rows()
    assert calls == [("solver", 4)]  # a rollout per task, and the red-team probe per task in the validation gates


def test_the_solver_policy_without_a_model_fails_the_run_saying_so(home: Home) -> None:
    result = materialize(home, {"policy": "solver"})

    assert not result.success
    failure = result.get_step_failure_events()[0].event_specific_data.error  # type: ignore[union-attr]
    assert "no model configured for role 'solver'" in str(failure)
