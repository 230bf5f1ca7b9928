"""Materialize the CompoWorld assets into a temporary lake: the service graph, then tasks per domain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from assets.compoworld import compo_tasks, compoworld_domains, service_graph
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.compoworld.service import DOMAINS
from skill2env.compoworld.tasks import CompoTask, replay_scores
from skill2env.lake.lake import Lake

ASSETS = [service_graph, compo_tasks]
TASKS_PER_DOMAIN = 3


def _materialize(home: Path, selection: list, **kwargs: Any) -> None:
    result = dg.materialize(
        ASSETS,
        selection=selection,
        instance=dg.DagsterInstance.ephemeral(),
        resources={"lake": LakeResource(home=str(home)), "llm": LlmResource(home=str(home), cache_mode="off")},
        **kwargs,
    )
    assert result.success


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compoworld") / "home"
    _materialize(root, [service_graph])
    config = {"ops": {"compo_tasks": {"config": {"tasks_per_domain": TASKS_PER_DOMAIN, "seed": 2}}}}
    for domain in DOMAINS:
        _materialize(root, [compo_tasks], partition_key=domain, run_config=config)
    return root


def test_the_service_graph_tables_and_stats(home: Path) -> None:
    lake = Lake(home / "lake.duckdb")
    stats = lake.query("SELECT * FROM compoworld_stats").row(0, named=True)
    assert stats["services"] >= 12 and stats["domains"] == 4 and stats["tools"] >= 60
    assert stats["verified_services"] == stats["services"], lake.query(
        "SELECT service, status, verify_output FROM services"
    )
    assert stats["edges"] == stats["data_edges"] + stats["state_edges"] > 0
    assert stats["components"] >= 1 and stats["simulated_tools"] >= 2
    backends = set(lake.query("SELECT DISTINCT backend FROM services").to_series().to_list())
    assert backends <= {"bwrap", "subprocess"}
    keys = lake.query("SELECT count(*), count(DISTINCT tool_key) FROM service_tools").row(0)
    assert keys[0] == keys[1] == stats["tools"]


def test_tasks_per_domain_with_skips_and_logged_simulated_calls(home: Path) -> None:
    lake = Lake(home / "lake.duckdb")
    counts = dict(lake.query("SELECT domain, count(*) FROM compo_tasks WHERE status = 'ok' GROUP BY 1").rows())
    assert counts == dict.fromkeys(DOMAINS, TASKS_PER_DOMAIN)
    stats = lake.query("SELECT tasks, skipped_tasks FROM compoworld_stats").row(0)
    assert stats[0] == 4 * TASKS_PER_DOMAIN
    skipped = lake.query("SELECT skip_reason FROM compo_tasks WHERE status = 'skipped'").to_series().to_list()
    assert all("world model" in reason for reason in skipped)
    if skipped:
        assert lake.query("SELECT count(*) FROM simulated_calls WHERE NOT accepted").item() >= len(skipped)
    rows = lake.query("SELECT task, oracle_score, nop_score, partial_score FROM compo_tasks WHERE status = 'ok'")
    for text, oracle, nop, partial in rows.iter_rows():
        task = CompoTask.model_validate_json(text)
        assert oracle == 1.0 and nop <= 0.2 and partial < 0.7
        assert replay_scores(task).oracle == 1.0
    tags = lake.query("SELECT DISTINCT tag FROM compo_task_tags").to_series().to_list()
    assert "sequential_dependency" in tags


def test_rematerializing_a_domain_keeps_one_current_version(home: Path) -> None:
    lake = Lake(home / "lake.duckdb")
    before = lake.query("SELECT task_id FROM compo_tasks WHERE domain = 'office' ORDER BY 1").to_series().to_list()
    config = {"ops": {"compo_tasks": {"config": {"tasks_per_domain": TASKS_PER_DOMAIN, "seed": 2}}}}
    _materialize(home, [compo_tasks], partition_key="office", run_config=config)
    after = lake.query("SELECT task_id FROM compo_tasks WHERE domain = 'office' ORDER BY 1").to_series().to_list()
    assert after == before
    assert lake.query("SELECT count(*) FROM compo_tasks_versions WHERE partition_key = 'office'").item() == 2 * len(
        before
    )


def test_compo_tasks_needs_the_graph_first(tmp_path: Path) -> None:
    result = dg.materialize(
        ASSETS,
        selection=[compo_tasks],
        partition_key="commerce",
        instance=dg.DagsterInstance.ephemeral(),
        resources={"lake": LakeResource(home=str(tmp_path)), "llm": LlmResource(home=str(tmp_path))},
        raise_on_error=False,
    )
    assert not result.success


def test_the_partitions_are_compoworlds_own_domains() -> None:
    assert compoworld_domains.get_partition_keys() == list(DOMAINS)
