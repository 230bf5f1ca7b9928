"""The composition root loads and declares exactly the assets, jobs and partitions we publish."""

from __future__ import annotations

import dagster as dg

from skill2env.definitions import defs

PUBLISHED_ASSETS = {
    "skills", "skill_files", "curated_skills", "pattern_library", "pattern_selections", "blueprints", "tasks",
    "service_graph", "compo_tasks", "compo_rollouts", "sft_trajectories", "rl_environments",
    *(f"iteration_{k}/{stage}" for k in range(3) for stage in ("validations", "rollouts", "rubric_scores",
                                                               "failure_classifications")),
    *(f"iteration_{k}/hardening" for k in range(2)),
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


def test_the_hardening_loop_is_unrolled_into_as_many_stages_as_iterations() -> None:
    from skill2env.definitions import build_definitions

    keys = {key.to_user_string() for key in build_definitions(iterations=3).resolve_asset_graph().get_all_asset_keys()}
    assert (
        "iteration_3/rubric_scores" in keys and "iteration_2/hardening" in keys and "iteration_3/hardening" not in keys
    )
    graph = build_definitions(iterations=1).resolve_asset_graph()
    upstream = graph.get(dg.AssetKey(["iteration_1", "validations"])).parent_keys
    assert upstream == {dg.AssetKey(["iteration_0", "hardening"])}
