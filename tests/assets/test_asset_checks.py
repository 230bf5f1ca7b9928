"""The asset checks on small partitions: they pass on what the pipeline writes and fail, with the
offending rows, on bad data."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from skill_trees import small_tree

from assets.catalog import skill_catalog
from assets.checks import acceptance_rate_check, asset_checks, gates_check, unique_keys_check
from assets.curation import curated_skills
from assets.iterations import validations_asset
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.definitions import build_definitions
from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite

DOMAIN = "data-analytics"


def evaluations(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.delenv("SKILL2ENV_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("SKILL2ENV_LLM_MODEL", raising=False)
    return Home(tmp_path / "home")


def resources(home: Home) -> dict[str, object]:
    return {"lake": LakeResource(home=str(home.root)), "llm": LlmResource(home=str(home.root), cache_mode="off")}


def test_unique_key_checks_pass_on_a_cataloged_and_curated_partition(home: Home, tmp_path: Path) -> None:
    instance = dg.DagsterInstance.ephemeral()
    root = small_tree(tmp_path / "skills")
    checks = [unique_keys_check("skills"), unique_keys_check("curated_skills")]
    cataloged = dg.materialize(
        [skill_catalog, checks[0]],
        instance=instance,
        resources=resources(home),
        run_config={"ops": {"skill_catalog": {"config": {"skills_root": str(root), "workers": 1}}}},
    )
    assert cataloged.success
    assert DOMAIN in instance.get_dynamic_partitions("domain")
    curated = dg.materialize(
        [curated_skills, checks[1]],
        instance=instance,
        partition_key=DOMAIN,
        resources=resources(home),
        run_config={"ops": {"curated_skills": {"config": {"workers": 1}}}},
    )

    assert curated.success
    (materialization,) = curated.asset_materializations_for_node("curated_skills")
    assert materialization.metadata["funnel_plot"].value.startswith("![Curation funnel](data:image/png;base64,")
    for result, asset in ((cataloged, "skills"), (curated, "curated_skills")):
        check = evaluations(result)["unique_keys"]
        assert check.asset_key == dg.AssetKey(asset)
        assert check.passed, check.metadata
        assert check.metadata["violations"].value == 0


def validation_rows(*rows: tuple[str, str, str, bool]) -> pl.DataFrame:
    """(task_id, gate, status, accepted) rows of iteration 0 in `DOMAIN`."""
    return pl.DataFrame(
        [
            {
                "task_id": task,
                "iteration": 0,
                "domain": DOMAIN,
                "gate": gate,
                "status": status,
                "reward": None,
                "threshold": None,
                "evidence": "test",
                "rollout_id": None,
                "item_rewards": None,
                "accepted": accepted,
                "backend": "bwrap",
                "acceptance": "accepted" if accepted else "rejected",
            }
            for task, gate, status, accepted in rows
        ]
    )


def check_validations(home: Home, *checks: dg.AssetChecksDefinition) -> dict[str, dg.AssetCheckEvaluation]:
    """Run only the checks of iteration 0's validations on what the lake holds now."""
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("domain", [DOMAIN])
    result = dg.materialize(
        [validations_asset(0), *checks],
        instance=instance,
        resources=resources(home),
        selection=dg.AssetSelection.all_asset_checks(),
    )
    assert result.success
    return evaluations(result)


def test_an_accepted_task_with_a_failed_gate_fails_the_gates_check(home: Home) -> None:
    lake = Lake(home.lake_path)
    lake.ensure_schema()
    good = validation_rows(*((f"t{n}", gate, "passed", True) for n in (1, 2) for gate in ("oracle", "nop")))
    lake.write([TableWrite("validations", good, partition_key=DOMAIN)], run_id="r1", code_version="test")

    passed = check_validations(home, gates_check(0), acceptance_rate_check(0))
    assert passed["accepted_tasks_passed_every_gate"].passed
    assert passed["accepted_tasks_passed_every_gate"].metadata["accepted_tasks"].value == 2
    assert passed["acceptance_rate"].passed

    bad = validation_rows(
        ("t1", "oracle", "passed", True),
        ("t1", "nop", "failed", True),
        ("t2", "oracle", "failed", False),
        ("t3", "oracle", "failed", False),
    )
    lake.write([TableWrite("validations", bad, partition_key=DOMAIN)], run_id="r2", code_version="test")

    failed = check_validations(home, gates_check(0), acceptance_rate_check(0))
    gates = failed["accepted_tasks_passed_every_gate"]
    assert not gates.passed
    assert gates.severity == dg.AssetCheckSeverity.ERROR
    assert gates.metadata["violations"].value == 1
    assert "t1" in gates.metadata["sample"].value and "nop" in gates.metadata["sample"].value
    rate = failed["acceptance_rate"]  # 1 of 3 accepted, under the default limit of one half: a warning
    assert not rate.passed
    assert rate.severity == dg.AssetCheckSeverity.WARN
    assert rate.metadata["acceptance_rate"].value == pytest.approx(1 / 3)


def test_every_iteration_has_its_checks_and_every_asset_a_code_version() -> None:
    definitions = build_definitions(iterations=1)
    graph = definitions.resolve_asset_graph()
    names = {(key.asset_key.to_user_string(), key.name) for key in graph.asset_check_keys}
    for k in (0, 1):
        assert (f"iteration_{k}/validations", "accepted_tasks_passed_every_gate") in names
        assert (f"iteration_{k}/validations", "hack_probe_rejections") in names
        assert (f"iteration_{k}/rubric_scores", "rewards_in_unit_interval") in names
    assert {("tasks", "unique_keys"), ("sft_trajectories", "sft_rows_complete_and_unflagged")} <= names
    assert len(asset_checks(1)) == len(names)
    versions = {key.to_user_string(): graph.get(key).code_version for key in graph.get_all_asset_keys()}
    assert all(versions.values()), versions
    assert versions["skills"] == versions["skill_files"] != versions["curated_skills"]
