"""The composition root loads and declares exactly the assets, jobs and partitions we publish."""

from __future__ import annotations

import dagster as dg

from skill2env.definitions import defs

PUBLISHED_ASSETS = {
    "skills", "skill_files", "curated_skills", "pattern_library", "pattern_selections", "blueprints", "tasks",
    "service_graph", "compo_tasks",
}  # fmt: skip


def test_definitions_load_with_the_published_asset_keys() -> None:
    keys = {key.to_user_string() for key in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == PUBLISHED_ASSETS


def test_curated_skills_is_partitioned_by_the_dynamic_domain_partition() -> None:
    node = defs.resolve_asset_graph().get(dg.AssetKey("curated_skills"))
    assert isinstance(node.partitions_def, dg.DynamicPartitionsDefinition)
    assert node.partitions_def.name == "domain"
    assert node.backfill_policy == dg.BackfillPolicy.single_run()


def test_jobs_are_defined() -> None:
    assert defs.resolve_job_def("catalog_job").name == "catalog_job"
    assert defs.resolve_job_def("curation_job").partitions_def is not None
