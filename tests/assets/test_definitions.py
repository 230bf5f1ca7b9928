"""The composition root loads and declares exactly the assets, jobs and partitions we publish."""

from __future__ import annotations

import dagster as dg

from assets.iterations import iteration_assets, stage_key, stage_op_config
from skill2env.definitions import defs, empty_stages

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


def test_stage_config_is_addressed_by_asset_key() -> None:
    ops = stage_op_config(1, validations={"backend": "bwrap"}, rollouts={"attempts": 2}, hardening={"threshold": 0.5})

    by_key = {key: ops.get(stage.op.name) for stage in iteration_assets(1) for key in stage.keys}
    for k in (0, 1):
        assert by_key[stage_key(k, "validations")] == {"config": {"backend": "bwrap"}}
        assert by_key[stage_key(k, "rollouts")] == by_key[stage_key(k, "rubric_scores")] == {"config": {"attempts": 2}}
        assert by_key[stage_key(k, "failure_classifications")] is None
    assert by_key[stage_key(0, "hardening")] == {"config": {"threshold": 0.5}}
    assert len(ops) == 5  # two validations, two rollouts, one hardening (between iterations 0 and 1)


def test_a_stage_that_made_nothing_of_what_it_was_given_is_named() -> None:
    nothing_failed = {"authored": 3, "built": 3, "authoring_failed": 0, "validated": 3, "accepted": 2,
                      "rollouts": 8, "rollouts_run": 7}  # fmt: skip
    assert empty_stages(nothing_failed) == []
    assert empty_stages(dict.fromkeys(nothing_failed, 0)) == []  # nothing given: nothing to say
    assert empty_stages(dict.fromkeys(nothing_failed, 0) | {"authored": 3}) == []  # every skill skipped: declined
    said = empty_stages(nothing_failed | {"built": 0, "authoring_failed": 2, "accepted": 0, "rollouts_run": 0})
    assert said == ["authoring built no task: 2 of 3 skills with selected patterns failed (error or rejected), "
                    "the rest were skipped",
                    "validation accepted none of 3 tasks",
                    "every one of 8 rollouts ended in an infrastructure or model error"]  # fmt: skip
