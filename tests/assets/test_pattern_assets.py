"""Materialize the pattern pool and the per-domain selections through Dagster into a temporary lake."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from pattern_samples import NEW
from skill_trees import small_tree

from assets.catalog import skill_catalog
from assets.curation import curated_skills
from assets.patterns import pattern_library, pattern_selections
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.hardening.growth import grow_pool
from skill2env.kits import KITS
from skill2env.lake.lake import Lake
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.tables import addition_frame

ALL_ASSETS = [skill_catalog, curated_skills, pattern_library, pattern_selections]


@pytest.fixture
def instance() -> dg.DagsterInstance:
    return dg.DagsterInstance.ephemeral()


def _materialize(instance: dg.DagsterInstance, home: Path, selection: list, **kwargs: object) -> None:
    result = dg.materialize(
        ALL_ASSETS,
        selection=selection,
        instance=instance,
        resources={"lake": LakeResource(home=str(home)), "llm": LlmResource(home=str(home))},
        **kwargs,
    )
    assert result.success


def _build(instance: dg.DagsterInstance, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    config = {"ops": {"skill_catalog": {"config": {"skills_root": str(small_tree(tmp_path / "skills")), "workers": 1}}}}
    _materialize(instance, home, [skill_catalog, pattern_library], run_config=config)
    for domain in instance.get_dynamic_partitions("domain"):
        _materialize(instance, home, [curated_skills, pattern_selections], partition_key=domain)
    return home


def test_selections_cover_every_curated_skill_with_rationale(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    lake = Lake(_build(instance, tmp_path) / "lake.duckdb")

    assert lake.query("SELECT count(*) FROM pattern_library").item() == len(seed_pool())
    curated = set(lake.query("SELECT path FROM curated_skills WHERE curated").to_series().to_list())
    rows = lake.query("SELECT * FROM pattern_selections ORDER BY path, rank")
    assert set(rows.get_column("path").to_list()) == curated == {"team/csv-report"}
    assert rows.get_column("status").unique().to_list() == ["selected"]
    assert 3 <= rows.height <= 5
    assert all(r for r in rows.get_column("rationale").to_list())
    assert rows.get_column("rank").to_list() == list(range(1, rows.height + 1))
    coverage = lake.query("SELECT sum(patterns)::BIGINT, sum(selections)::BIGINT FROM pattern_coverage").row(0)
    assert coverage == (len(seed_pool()), rows.height)


def test_rematerializing_keeps_one_current_selection(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    home = _build(instance, tmp_path)
    before = Lake(home / "lake.duckdb").query("SELECT * FROM pattern_selections ORDER BY path, rank")
    for domain in instance.get_dynamic_partitions("domain"):
        _materialize(instance, home, [pattern_selections], partition_key=domain)
    lake = Lake(home / "lake.duckdb")
    after = lake.query("SELECT * FROM pattern_selections ORDER BY path, rank")
    volatile = ["run_id", "materialized_at"]
    assert after.drop(volatile).equals(before.drop(volatile))
    assert after["run_id"].n_unique() == 1 and after["run_id"][0] != before["run_id"][0]
    assert lake.query("SELECT count(*) FROM pattern_selections_versions").item() == 2 * after.height


def test_an_accepted_addition_enters_the_library(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    home = _build(instance, tmp_path)
    lake = Lake(home / "lake.duckdb")
    pool = seed_pool()
    growth = grow_pool(pool, NEW, diagnosis="diag-1", parent="corrupted_input_repair")
    lake.append("pattern_additions", addition_frame(growth))

    _materialize(instance, home, [pattern_library])
    added = lake.query("SELECT origin, parent, diagnosis, source FROM pattern_library WHERE id = $id", {"id": NEW.id})
    assert added.rows() == [("hardening", "corrupted_input_repair", "diag-1", "diagnosis:diag-1")]
    assert lake.query("SELECT count(*) FROM pattern_library").item() == len(pool) + 1
    assert lake.query("SELECT action FROM pattern_additions").item() == "added"


def test_the_pool_says_which_world_kits_build_each_pattern(tmp_path: Path, instance: dg.DagsterInstance) -> None:
    home = tmp_path / "home"
    _materialize(instance, home, [pattern_library])
    lake = Lake(home / "lake.duckdb")

    rows = {r["pattern_id"]: r for r in lake.query("SELECT * FROM pattern_buildability").iter_rows(named=True)}
    assert len(rows) == len(seed_pool())
    expected = {p.id: sorted(name for name, kit in KITS.items() if p.id in kit.patterns) for p in seed_pool()}
    assert {pid: row["kits"] for pid, row in rows.items()} == expected
    assert all(row["buildable"] == bool(row["kits"]) for row in rows.values())
    assert all(row["intensities"] == ([1, 2, 3] if row["kits"] else []) for row in rows.values())
    assert "billing" in rows["partial_payment_vs_billed"]["kits"]  # the billing kit's own pattern
