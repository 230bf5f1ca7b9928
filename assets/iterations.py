"""The hardening loop, unrolled: one stage of assets per iteration (Dagster forbids cycles).

    tasks ─► iteration_0/validations ─► iteration_0/rollouts + rubric_scores ─► iteration_0/hardening
          ─► iteration_1/validations ─► … ─► iteration_N/rollouts + rubric_scores ─► sft_trajectories

Every stage is partitioned by domain and writes the shared tables (`validations`, `rollouts`,
`trajectory_steps`, `rubric_scores`, `sft_examples`, `hardening_rounds`, `tasks`) under the lake
partition `<domain>@i<k>`, with an `iteration` column, so the asset graph shows the progression.
"""

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import dagster as dg
import polars as pl

from assets.partitions import domain_partitions
from assets.progress import each_partition, progress_logger
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.agent import AttemptLog, RolloutRunner, close_attempts
from skill2env.agent.policies import pipeline_policy
from skill2env.agent.stage import RolloutStage, rollout_stage, stage_summary
from skill2env.cluster.profile import engine_pool_of
from skill2env.exports.plots import (
    METADATA_DPI,
    hack_probe_funnel_png,
    hack_probe_totals,
    hardening_curve_markdown,
    markdown_image,
    validation_funnel_png,
)
from skill2env.exports.sft import COMPOWORLD_SOURCE, sft_export_frame, write_sft
from skill2env.formatting import markdown_table
from skill2env.hardening.stage import HardeningInputs, adaptive_threshold, harden_stage, session_hardeners
from skill2env.home import DEFAULT_ITERATIONS, Home
from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql
from skill2env.llm import ModelNotConfigured
from skill2env.rubric.judge import session_judge
from skill2env.sandbox.backends import resolve_backend
from skill2env.thresholds import SFT_MIN_REWARD
from skill2env.validation.classification import classify_failures_stage
from skill2env.validation.classifier import model_classifier
from skill2env.validation.red_team import session_red_team
from skill2env.validation.stage import reused_gates, validate_stage

CODE_VERSION = "iterations-1"

warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


class StageConfig(dg.Config):
    backend: Literal["auto", "docker", "bwrap"] = "auto"
    """Sandbox backend; `auto` prefers bwrap with the unpacked base image, then docker."""


class RolloutStageConfig(StageConfig):
    policy: str = "auto"
    """solver (the solver role's model) | naive (each kit's scripted baseline) | oracle | nop | partial |
    script:<file.json>; `auto`: solver when a solver endpoint is configured, else naive."""
    attempts: int = 4
    """Attempts per task: one group, for pass rates and adaptive triggers."""
    max_turns: int = 40
    max_tokens: int = 0
    """Input + output tokens per attempt; 0: no limit."""
    concurrency: int = 0
    """Attempts at once; 0: `$SKILL2ENV_SANDBOX_SLOTS` (default 2)."""
    partial_fraction: float = 0.5
    """The share of the oracle's commands the `partial` policy runs."""


def stage_key(iteration: int, name: str) -> dg.AssetKey:
    return dg.AssetKey([f"iteration_{iteration}", name])


def _stage_asset(iteration: int) -> dict[str, Any]:
    """What every single-asset stage of `iteration` declares: partitioned by domain, a partition
    range in one run, grouped by iteration."""
    return {
        "partitions_def": domain_partitions,
        "backfill_policy": dg.BackfillPolicy.single_run(),
        "group_name": f"iteration_{iteration}",
    }


def _stage_rows(store: Lake, query: str, domain: str, iteration: int) -> pl.DataFrame:
    """What a stage reads for one domain at one iteration: `sql/queries/<query>.sql`."""
    return store.query(load_sql(f"queries/{query}"), {"domain": domain, "iteration": iteration})


def _read_stage(store: Lake, domain: str, iteration: int, *queries: str) -> list[list[dict[str, Any]]]:
    """The rows of several `sql/queries` for one domain at one iteration, read from one snapshot."""
    with store.reading() as reader:
        return [reader.query(load_sql(f"queries/{query}"), {"domain": domain, "iteration": iteration}).to_dicts()
                for query in queries]  # fmt: skip


def _hardening_inputs(store: Lake, domain: str, iteration: int) -> HardeningInputs:
    """What the hardening stage of one domain at one iteration reads, from one snapshot."""
    bound = {"domain": domain, "iteration": iteration}
    with store.reading() as reader:
        return HardeningInputs(
            tasks=reader.query(load_sql("queries/hardening_inputs"), bound).to_dicts(),
            families=dict(reader.query("SELECT task_id, family FROM task_families").iter_rows()),
            additions=reader.query("SELECT * FROM pattern_additions"),
            item_results=reader.query(load_sql("queries/hardening_item_results"), bound).to_dicts(),
            rewards=reader.query(load_sql("queries/hardening_rewards"), bound).to_dicts(),
            steps=reader.query(load_sql("queries/hardening_steps"), bound).to_dicts(),
        )


def _upstream_tasks(iteration: int) -> dg.AssetKey:
    return dg.AssetKey("tasks") if iteration == 0 else stage_key(iteration - 1, "hardening")


def validations_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.asset(
        key=stage_key(iteration, "validations"),
        deps=[_upstream_tasks(iteration)],
        **_stage_asset(iteration),
        kinds={"duckdb"},
        pool="sandbox",
    )
    def validations(
        context: dg.AssetExecutionContext, config: StageConfig, lake: LakeResource, llm: LlmResource
    ) -> dg.MaterializeResult:
        """Every validation gate (oracle, nop, partial, leak, judge) for this iteration's built tasks."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        backend = resolve_backend(config.backend)
        report = progress_logger(context, "tasks validated")
        with llm.session(context, store) as models:
            judge = session_judge(models)
            red_team = session_red_team(models, home, backend)
            stages = []
            for domain in each_partition(context):
                rows = _stage_rows(store, "stage_tasks", domain, iteration).to_dicts()
                adopted = _stage_rows(store, "hardened_child_gates", domain, iteration).iter_rows()
                stage = validate_stage(rows, reused_gates(adopted, iteration, backend), home, domain, iteration,
                                       backend=backend, judge=judge, red_team=red_team, progress=report)  # fmt: skip
                store.write(stage.writes, run_id=context.run.run_id, code_version=CODE_VERSION)
                stages.append(stage)
        failing: dict[str, int] = {}
        for stage in stages:
            for gate, count in stage.failing.items():
                failing[gate] = failing.get(gate, 0) + count
        return dg.MaterializeResult(
            metadata={
                "validated": sum(s.validated for s in stages),
                "accepted": sum(s.accepted for s in stages),
                "backend": backend,
                **{f"failed/{gate}": count for gate, count in sorted(failing.items())},
                **_funnels(store, iteration),
            }
        )

    return validations


def rollouts_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.multi_asset(
        specs=[
            dg.AssetSpec(
                stage_key(iteration, "rollouts"),
                deps=[stage_key(iteration, "validations")],
                description="k attempts of the solver on every accepted task, with trajectories.",
                group_name=f"iteration_{iteration}",
                kinds={"duckdb"},
            ),
            dg.AssetSpec(
                stage_key(iteration, "rubric_scores"),
                deps=[stage_key(iteration, "rollouts")],
                description="Every rollout verified in a fresh sandbox: item results with evidence, reward.",
                group_name=f"iteration_{iteration}",
                kinds={"duckdb"},
            ),
        ],
        partitions_def=domain_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool="sandbox",
        name=f"iteration_{iteration}_rollouts",
    )
    def rollouts(
        context: dg.AssetExecutionContext, config: RolloutStageConfig, lake: LakeResource, llm: LlmResource
    ) -> Iterator[dg.MaterializeResult]:
        """Roll out this iteration's accepted tasks and score every attempt (SFT candidates included)."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        backend = resolve_backend(config.backend)
        with llm.session(context, store) as models:
            policy_name = config.policy
            if policy_name == "auto":
                policy_name = "solver" if models.configured("solver") else "naive"
            try:
                client = models.client("solver") if policy_name == "solver" else None
                policy = pipeline_policy(policy_name, client, partial_fraction=config.partial_fraction)
            except (ModelNotConfigured, ValueError) as exc:
                raise dg.Failure(description=str(exc)) from exc
            engines = engine_pool_of(home) if backend == "docker" else None
            runner = RolloutRunner(
                policy,
                backend=backend,
                run_id=context.run.run_id,
                home=home,
                engines=engines,
                attempts=AttemptLog(store),
                concurrency=config.concurrency or None,
                max_turns=config.max_turns,
                max_tokens=config.max_tokens or None,
                progress=progress_logger(context, "rollout attempts finished"),
            )
            judge = session_judge(models)
            stages = []
            with contextlib.closing(engines) if engines is not None else contextlib.nullcontext():
                for domain in each_partition(context):
                    rows = _stage_rows(store, "stage_accepted_tasks", domain, iteration).to_dicts()
                    opened = store.query(load_sql("queries/open_rollout_attempts_of_domain"), {"domain": domain})
                    stage = rollout_stage(rows, opened, home, domain, iteration, runner, attempts=config.attempts,
                                          judge=judge)  # fmt: skip
                    store.write(stage.writes, run_id=context.run.run_id, code_version=CODE_VERSION)
                    close_attempts(store, stage.recovered)
                    stages.append(stage)
        summary = stage_summary(stages)
        yield dg.MaterializeResult(
            asset_key=stage_key(iteration, "rollouts"),
            metadata={
                "tasks": sum(s.tasks for s in stages),
                "attempts": int(summary["attempts"]),
                "policy": policy.name,
                "backend": backend,
                "recovered": sum(len(s.recovered) for s in stages),
                "mean_turns": _mean_turns(stages),
            },
        )
        yield dg.MaterializeResult(
            asset_key=stage_key(iteration, "rubric_scores"),
            metadata={
                "mean_reward": summary["mean_reward"],
                "full_credit_rate": summary["full_credit_rate"],
                "infra_errors": int(summary["infra_errors"]),
                "sft_examples": sum(s.sft_examples for s in stages),
                **_hardening_curve(store),
            },
        )

    return rollouts


def _funnels(store: Lake, iteration: int) -> dict[str, dg.MetadataValue]:
    """The validation funnel (plot of every iteration so far, table of this one) and the hack-probe funnel
    (plot of every iteration so far; this iteration's table, all strategies then each, and its totals:
    tasks probed, probes run, hacks caught, tasks the gate rejected), for the validations asset's page."""
    funnel = store.query("SELECT * FROM validation_funnel WHERE iteration <= $k", {"k": iteration})
    probes = store.query(
        "SELECT * FROM hack_probe_funnel WHERE iteration <= $k "
        "ORDER BY iteration, domain <> '*', domain, strategy <> '*', strategy",
        {"k": iteration},
    )
    totals = hack_probe_totals(probes).filter(pl.col("iteration") == iteration)
    total = totals.row(0, named=True) if totals.height else dict.fromkeys(totals.columns, 0)
    return {
        "funnel": dg.MetadataValue.md(markdown_table(funnel.filter(pl.col("iteration") == iteration))),
        "funnel_plot": dg.MetadataValue.md(
            markdown_image(validation_funnel_png(funnel, dpi=METADATA_DPI), "Validation funnel")
        ),
        "hack_probe_funnel": dg.MetadataValue.md(markdown_table(probes.filter(pl.col("iteration") == iteration), 40)),
        "hack_probe_funnel_plot": dg.MetadataValue.md(
            markdown_image(hack_probe_funnel_png(probes, dpi=METADATA_DPI), "Hack-probe funnel")
        ),
        "tasks_probed": dg.MetadataValue.int(int(total["tasks_probed"])),
        "hack_probes_run": dg.MetadataValue.int(int(total["probes_run"])),
        "hacks_caught": dg.MetadataValue.int(int(total["hacks_caught"])),
        "tasks_rejected_by_hack_probes": dg.MetadataValue.int(int(total["tasks_rejected"])),
    }


def _hardening_curve(store: Lake) -> dict[str, dg.MetadataValue]:
    """The hardening curve so far (paired tasks), as a plot and as the all-domains table."""
    curve = store.query("SELECT * FROM hardening_curve")
    return {
        "hardening_curve": dg.MetadataValue.md(hardening_curve_markdown(curve)),
        "hardening_curve_table": dg.MetadataValue.md(markdown_table(curve.filter(pl.col("domain") == "*"))),
    }


def _mean_turns(stages: Sequence[RolloutStage]) -> float:
    turns = [t.turns for stage in stages for t in stage.trajectories]
    return round(sum(turns) / len(turns), 2) if turns else 0.0


class HardeningConfig(StageConfig):
    trigger: Literal["auto", "threshold", "adaptive"] = "auto"
    """threshold: group mean reward > `threshold`; adaptive: at or above the domain's `percentile` (all
    domains' when a domain has fewer than 5 tasks); auto: threshold for a model solver, adaptive for the
    scripted naive baseline (deliberately weak, so an absolute 0.7 would never fire)."""
    threshold: float = 0.7
    percentile: float = 50.0


def verification_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.asset(
        key=stage_key(iteration, "failure_classifications"),
        deps=[stage_key(iteration, "rubric_scores")],
        **_stage_asset(iteration),
        kinds={"duckdb"},
        pool="llm",
    )
    def failure_classifications(
        context: dg.AssetExecutionContext, lake: LakeResource, llm: LlmResource
    ) -> dg.MaterializeResult:
        """The verification agent: every failed rubric item classified as agent failure, evaluator
        defect or missing material (rules always; the verifier role's model where configured)."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        with llm.session(context, store) as models:
            verifier = model_classifier(models)
            stages = []
            for domain in each_partition(context):
                failed, tasks = _read_stage(store, domain, iteration, "failed_items_of_domain",
                                            "verification_inputs_of_domain")  # fmt: skip
                stage = classify_failures_stage(failed, tasks, home, domain, iteration, verifier=verifier)
                store.write(stage.writes, run_id=context.run.run_id, code_version=CODE_VERSION)
                stages.append(stage)
        defects = store.query("SELECT * FROM task_defects WHERE iteration = $k", {"k": iteration})
        return dg.MaterializeResult(
            metadata={
                "verifier": verifier.name if verifier else "rules",
                "defective_tasks": defects.height,
                "defects": dg.MetadataValue.md(markdown_table(defects.head(30))),
                "classified": sum(len(s.classifications) for s in stages),
            }
        )

    return failure_classifications


def hardening_asset(iteration: int) -> dg.AssetsDefinition:
    @dg.asset(
        key=stage_key(iteration, "hardening"),
        deps=[stage_key(iteration, "failure_classifications")],
        **_stage_asset(iteration),
        kinds={"duckdb"},
        pool="lake",
    )
    def hardening(
        context: dg.AssetExecutionContext, config: HardeningConfig, lake: LakeResource, llm: LlmResource
    ) -> dg.MaterializeResult:
        """Diagnose tasks the solver found easy, harden them (blueprint, workspace, rubric and solution
        rebuilt together, every gate passed again), carry the others: the tasks of the next iteration."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        trigger = config.trigger
        if trigger == "auto":
            policies = store.query(
                "SELECT DISTINCT policy FROM rollouts WHERE iteration = $k", {"k": iteration}
            ).to_series()
            trigger = "adaptive" if policies.len() and all(p.startswith("script:") for p in policies) else "threshold"
        groups = store.query(load_sql("queries/group_rewards"), {"iteration": iteration}).to_dicts()
        thresholds = {
            domain: adaptive_threshold(groups, domain, config.percentile) if trigger == "adaptive" else config.threshold
            for domain in context.partition_keys
        }
        context.log.info(f"hardening trigger: {trigger}")
        with llm.session(context, store) as models:
            hardeners = session_hardeners(models, home, resolve_backend(config.backend))
            stages = []
            for domain in each_partition(context):  # each domain reads the patterns the previous one grew
                stage = harden_stage(_hardening_inputs(store, domain, iteration), home, domain, iteration,
                                     threshold=thresholds[domain],
                                     inclusive=trigger == "adaptive", hardeners=hardeners)  # fmt: skip
                for frame in stage.additions:
                    store.append("pattern_additions", frame)
                store.write(stage.writes, run_id=context.run.run_id, code_version=CODE_VERSION)
                stages.append(stage)
        outcomes = {o: sum(s.count(o) for s in stages) for o in ("hardened", "kept", "rejected", "defective")}
        return dg.MaterializeResult(
            metadata={
                "considered": sum(len(s.rounds) for s in stages),
                **{f"outcome/{name}": count for name, count in outcomes.items()},
                "next_iteration_tasks": sum(len(s.children) for s in stages),
                "diagnoser": hardeners.diagnoser.name if hardeners.diagnoser else "rules",
                "grown_patterns": sum(len(s.additions) for s in stages),
                **_hardening_curve(store),
            }
        )

    return hardening


def sft_trajectories_asset(iterations: int) -> dg.AssetsDefinition:
    @dg.asset(
        key="sft_trajectories",
        deps=[*(stage_key(k, "failure_classifications") for k in range(iterations + 1)), "compo_rollouts"],
        group_name="exports",
        kinds={"duckdb", "parquet"},
        pool="lake",
    )
    def sft_trajectories(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
        """The SFT set: rollouts with reward > 0.9 from every iteration, and CompoWorld's attempts above it,
        written as OpenAI chat JSONL and Parquet under `<home>/exports/sft/`, each example with its lineage
        (`source`: skills | compoworld)."""
        store, home = lake.lake(), Home.resolve(lake.home or None)
        frame = sft_export_frame(store, SFT_MIN_REWARD)
        out = home.data_root / "exports" / "sft"
        written = {fmt: write_sft(frame, out / f"sft.{fmt}", fmt) for fmt in ("jsonl", "parquet")}
        by_iteration = frame.group_by("source", "iteration").len().sort("source", "iteration")
        return dg.MaterializeResult(
            metadata={
                "dagster/row_count": frame.height,
                "examples": written["jsonl"],
                "compoworld_examples": frame.filter(pl.col("source") == COMPOWORLD_SOURCE).height,
                "min_reward": SFT_MIN_REWARD,
                "by_iteration": dg.MetadataValue.md(markdown_table(by_iteration)),
                "hardening_curve": dg.MetadataValue.md(
                    hardening_curve_markdown(store.query("SELECT * FROM hardening_curve"))
                ),
                "jsonl": dg.MetadataValue.path(str(out / "sft.jsonl")),
                "parquet": dg.MetadataValue.path(str(out / "sft.parquet")),
            }
        )

    return sft_trajectories


def stage_op_config(iterations: int, **by_stage: dict[str, object]) -> dict[str, dict[str, object]]:
    """Run config for every iteration's stages, addressed by asset key: `by_stage` maps a stage's asset
    name (`validations`, `rollouts`, `failure_classifications`, `hardening`) to its config."""
    wanted = {stage_key(k, name): config for k in range(iterations + 1) for name, config in by_stage.items()}
    return {stage.op.name: {"config": wanted[key]} for stage in iteration_assets(iterations)
            for key in stage.keys if key in wanted}  # fmt: skip


def iteration_assets(iterations: int = DEFAULT_ITERATIONS) -> list[dg.AssetsDefinition]:
    """Every stage of iterations 0..`iterations` (hardening between them) and the SFT export."""
    stages: list[dg.AssetsDefinition] = []
    for k in range(iterations + 1):
        stages += [validations_asset(k), rollouts_asset(k), verification_asset(k)]
        if k < iterations:
            stages.append(hardening_asset(k))
    return [*stages, sft_trajectories_asset(iterations)]
