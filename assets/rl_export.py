"""The RL set: accepted, non-defective task directories and their item pass rates, under the home."""

import dagster as dg
import polars as pl

from assets.iterations import stage_key
from resources.lake import LakeResource
from skill2env.exports.rl import export_rl
from skill2env.formatting import markdown_table
from skill2env.home import Home
from skill2env.tasks.store import TaskStore

RL_DIR = ("exports", "rl")


def rl_environments_asset(iterations: int) -> dg.AssetsDefinition:
    @dg.asset(
        key="rl_environments",
        deps=[*(stage_key(k, "failure_classifications") for k in range(iterations + 1)), "compo_rollouts"],
        group_name="exports",
        kinds={"parquet"},
        pool="lake",
    )
    def rl_environments(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
        """Every accepted task not flagged as defective, as a Harbor directory under
        `<home>/exports/rl/tasks/`, with `item_pass_rates.parquet` / `.csv` (per rubric item of each
        attempt group: pass rate and the low-pass-rate RL weight) and `rollouts.parquet` / `.csv` (per
        verified attempt; those whose trajectory is in `rollout_flags` marked `flagged`); CompoWorld's tasks
        (`compoworld/tasks.jsonl`) and attempts with their group rewards (`compoworld/rollouts.*`)."""
        home = Home.resolve(lake.home or None)
        out = home.data_root.joinpath(*RL_DIR)
        exported = export_rl(lake.lake(), TaskStore.of(home), out)
        by_iteration = (
            exported.pass_rates.group_by("iteration")
            .agg(tasks=pl.col("task_id").n_unique(), items=pl.len())
            .sort("iteration")
        )
        compo_attempts = exported.compo_rollouts.height if exported.compo_rollouts is not None else 0
        context.log.info(
            f"RL set: {len(exported.tasks)} task directories, {exported.compo_tasks} CompoWorld tasks in {out}"
        )
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": exported.pass_rates.height,
                "tasks": len(exported.tasks),
                "tasks_with_pass_rates": exported.tasks_with_rates,
                "flagged_attempts": exported.rollouts.filter(pl.col("flagged")).height,
                "compoworld_tasks": exported.compo_tasks,
                "compoworld_attempts": compo_attempts,
                "by_iteration": dg.MetadataValue.md(markdown_table(by_iteration)),
                "directory": dg.MetadataValue.path(str(out)),
            }
        )

    return rl_environments
