"""Materialize the catalog assets through Dagster into a temporary lake."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from skill_trees import small_tree

from assets.catalog import skill_catalog
from assets.curation import curated_skills
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.lake.lake import Lake


@pytest.fixture
def instance() -> dg.DagsterInstance:
    return dg.DagsterInstance.ephemeral()


def materialize_catalog(instance: dg.DagsterInstance, root: Path, home: Path) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        [skill_catalog],
        instance=instance,
        resources={"lake": LakeResource(home=str(home))},
        run_config={"ops": {"skill_catalog": {"config": {"skills_root": str(root), "workers": 1}}}},
    )


def materialize_curation(instance: dg.DagsterInstance, home: Path, domain: str) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        [curated_skills, skill_catalog],
        selection=[curated_skills],
        instance=instance,
        partition_key=domain,
        resources={"lake": LakeResource(home=str(home)), "llm": LlmResource(home=str(home))},
    )


def test_catalog_writes_both_tables_and_registers_domains(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    result = materialize_catalog(instance, small_tree(tmp_path / "skills"), tmp_path / "home")

    assert result.success
    lake = Lake(tmp_path / "home" / "lake.duckdb")
    paths = lake.query("SELECT path FROM skills ORDER BY path").to_series().to_list()
    assert paths == ["others/draft", "others/fast-setup", "team/csv-report", "team/notes-export"]
    assert lake.query("SELECT count(*) FROM skill_files").item() == 5
    domains = set(lake.query("SELECT DISTINCT domain FROM skills").to_series().to_list())
    assert domains == set(instance.get_dynamic_partitions("domain"))
    metadata = result.asset_materializations_for_node("skill_catalog")[0].metadata
    assert metadata["dagster/row_count"].value == 4


def test_curating_every_domain_partition(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    home = tmp_path / "home"
    materialize_catalog(instance, small_tree(tmp_path / "skills"), home)
    for domain in instance.get_dynamic_partitions("domain"):
        assert materialize_curation(instance, home, domain).success

    lake = Lake(home / "lake.duckdb")
    verdicts = {row["path"]: row for row in lake.query("SELECT * FROM curated_skills").iter_rows(named=True)}
    assert verdicts["team/csv-report"]["curated"] is True
    assert verdicts["team/notes-export"]["compatible"] == "fail"
    assert any(r.startswith("needs:macos") for r in verdicts["team/notes-export"]["compatible_reasons"])
    assert verdicts["others/fast-setup"]["safe"] == "fail"
    assert any(r.startswith("malicious:") for r in verdicts["others/fast-setup"]["safe_reasons"])
    assert verdicts["others/draft"]["curated"] is False
    funnel = lake.query("SELECT * FROM curation_funnel WHERE domain = '*'").row(0, named=True)
    assert (funnel["found"], funnel["curated"]) == (4, 1)


def test_rematerializing_twice_keeps_history_without_duplicating_views(
    tmp_path: Path, instance: dg.DagsterInstance
) -> None:
    home, root = tmp_path / "home", small_tree(tmp_path / "skills")
    for _ in range(2):
        materialize_catalog(instance, root, home)
        for domain in instance.get_dynamic_partitions("domain"):
            materialize_curation(instance, home, domain)

    lake = Lake(home / "lake.duckdb")
    assert lake.query("SELECT count(*) FROM skills").item() == 4
    assert lake.query("SELECT count(*) FROM skills_versions").item() == 8
    assert lake.query("SELECT count(*) FROM curated_skills").item() == 4
    assert lake.query("SELECT count(*) FROM curated_skills_versions").item() == 8
    assert lake.query("SELECT count(DISTINCT run_id) FROM skills_versions").item() == 2
