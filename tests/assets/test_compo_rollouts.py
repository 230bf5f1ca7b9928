"""Materialize `compo_rollouts` on a temporary lake: the graph, tasks of three or more tools, then
rollouts through the agent loop with their SFT examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import dagster as dg
import pytest
from harbor_tasks import require_backend
from llm_server import ScriptedServer, text

from assets.compoworld import ModelRole, compo_rollouts, compo_tasks, service_graph
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.lake.lake import Lake
from skill2env.llm.config import ROLES

ASSETS = [service_graph, compo_tasks, compo_rollouts]
DOMAIN = "commerce"
TASKS = 2


def _materialize(
    home: Path, selection: list, *, llm: LlmResource | None = None, **kwargs: Any
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        ASSETS,
        selection=selection,
        instance=dg.DagsterInstance.ephemeral(),
        resources={"lake": LakeResource(home=str(home)), "llm": llm or LlmResource(home=str(home), cache_mode="off")},
        raise_on_error=False,
        **kwargs,
    )


def roll_out(home: Path, llm: LlmResource | None = None, **config: Any) -> dg.ExecuteInProcessResult:
    run_config = {"ops": {"compo_rollouts": {"config": {"gateway": "in_process", **config}}}}
    return _materialize(home, [compo_rollouts], llm=llm, partition_key=DOMAIN, run_config=run_config)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compo-rollouts") / "home"
    graph = {"ops": {"service_graph": {"config": {"verify_backend": "subprocess"}}}}
    assert _materialize(root, [service_graph], run_config=graph).success
    config = {"ops": {"compo_tasks": {"config": {"tasks_per_domain": TASKS, "seed": 2, "min_length": 3}}}}
    assert _materialize(root, [compo_tasks], partition_key=DOMAIN, run_config=config).success
    return root


def test_the_oracle_rolls_out_every_task_and_its_examples_carry_the_metadata(home: Path) -> None:
    result = roll_out(home, policy="oracle", attempts=2)

    assert result.success
    lake = Lake(home / "lake.duckdb")
    rows = lake.query("SELECT task_id, attempt, status, reward, group_reward, backend, chain FROM compo_rollouts")
    assert rows.height == 2 * TASKS and rows.get_column("task_id").n_unique() == TASKS
    assert set(rows.get_column("status")) == {"completed"} and set(rows.get_column("reward")) == {1.0}
    assert set(rows.get_column("backend")) == {"in_process"} and all(len(c) >= 3 for c in rows.get_column("chain"))
    examples = lake.query("SELECT * FROM compo_sft ORDER BY example_id")
    assert examples.height == 2 * TASKS
    row = examples.row(0, named=True)
    query = "SELECT services, capability_tags FROM compo_tasks WHERE task_id = $id"
    task = lake.query(query, {"id": row["task_id"]}).row(0, named=True)
    assert row["services"] == task["services"] and row["capability_tags"] == task["capability_tags"]
    assert row["domain"] == DOMAIN and row["reward"] == 1.0 and row["length"] >= 3
    assert row["call_tool_calls"] == row["length"] and row["list_services_calls"] == 1
    metadata = json.loads(row["metadata"])
    assert metadata["tool_call_counts"]["total"] == row["tool_calls"] and metadata["rubric_score"] == 1.0
    metadata_md = result.asset_materializations_for_node("compo_rollouts")[0].metadata
    assert metadata_md["dagster/row_count"].value == 2 * TASKS and metadata_md["sft_examples"].value == 2 * TASKS


def test_the_solver_uses_the_solver_role_and_a_wrong_answer_is_no_example(home: Path, server: ScriptedServer) -> None:
    server.respond = lambda _: text("I am not sure how to do that.")
    llm = LlmResource(home=str(home), base_url=server.base_url, model="scripted-model", cache_mode="off")

    result = roll_out(home, llm, policy="solver", attempts=1, max_turns=5)

    assert result.success
    lake = Lake(home / "lake.duckdb")
    rows = lake.query("SELECT status, model, turns, reward FROM compo_rollouts").rows()
    assert rows == [("completed", "scripted-model", 1, 0.0)] * TASKS
    assert lake.query("SELECT count(*) FROM compo_sft_examples").item() == TASKS
    assert lake.query("SELECT count(*) FROM compo_sft").item() == 0
    assert lake.query("SELECT role, count(*) FROM llm_calls GROUP BY 1").rows() == [("solver", TASKS)]
    assert {t["function"]["name"] for t in server.requests[0]["tools"]} == {
        "list_services", "list_tools", "describe_tool", "call_tool"
    }  # fmt: skip


def test_the_solver_without_a_model_fails_the_run_saying_so(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SKILL2ENV_LLM_BASE_URL", "SKILL2ENV_LLM_MODEL", "SKILL2ENV_LLM_SOLVER_BASE_URL"):
        monkeypatch.delenv(name, raising=False)

    result = roll_out(home, policy="solver")

    assert not result.success
    failure = result.get_step_failure_events()[0].event_specific_data.error  # type: ignore[union-attr]
    assert "no model configured for role 'solver'" in str(failure)


def test_an_unknown_policy_or_gateway_fails_the_run(home: Path) -> None:
    assert not roll_out(home, policy="guess").success
    with pytest.raises(dg.DagsterInvalidConfigError, match="gateway"):  # refused by the typed config, before any run
        roll_out(home, policy="oracle", gateway="cloud")
    failed = roll_out(home, policy="oracle", attempts=0)  # refused by the config model as the step starts
    assert not failed.success
    assert "greater than or equal to 1" in str(failed.get_step_failure_events()[0].event_specific_data.error)  # type: ignore[union-attr]


def test_the_world_model_roles_are_the_configured_roles() -> None:
    assert set(get_args(ModelRole)) == {"", *ROLES}


@pytest.mark.bwrap
def test_the_services_run_in_a_bwrap_sandbox(home: Path) -> None:
    require_backend("bwrap")

    result = roll_out(home, policy="oracle", gateway="bwrap", max_tasks=1)

    assert result.success
    rows = Lake(home / "lake.duckdb").query("SELECT backend, status, reward FROM compo_rollouts").rows()
    assert rows == [("bwrap", "completed", 1.0)]
