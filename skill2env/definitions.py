"""The composition root: the one `Definitions` that the CLI and the UI both load.

This is the only module of the `skill2env` package that imports Dagster; the CLI runs jobs
through the functions at the bottom, in-process, on the persistent instance the UI shows.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import polars as pl

from assets.catalog import skill_catalog
from assets.compoworld import compo_tasks, service_graph
from assets.curation import curated_skills
from assets.partitions import DOMAIN_PARTITIONS_NAME
from assets.patterns import pattern_library, pattern_selections
from assets.tasks import task_authoring
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.home import Home, activate_home
from skill2env.lake.lake import Lake

catalog_job = dg.define_asset_job(
    "catalog_job",
    selection=["skills", "skill_files", "pattern_library"],
    description="Walk the skills root into the lake; load the pattern pool.",
)
curation_job = dg.define_asset_job(
    "curation_job",
    selection=["curated_skills", "pattern_selections"],
    description="Curate skills by domain partition; a partition range runs as one run.",
)
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
"""Dagster's run tags for a partition range executed as one run (single-run backfill policy)."""
POOL_SLOTS = {"sandbox": ("SKILL2ENV_SANDBOX_SLOTS", 2), "llm": ("SKILL2ENV_LLM_SLOTS", 8), "lake": ("", 1)}
"""Pool → (environment variable that overrides the limit, default limit)."""


_progress_sinks: list[Callable[[str], None]] = []
"""Where the assets' own log lines go when the CLI runs a job in-process (its status line)."""


class _ProgressHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        if meta.get("dagster_event") is None:  # an asset's own line, not an engine event
            message = str(meta.get("orig_message") or record.getMessage())
            for sink in _progress_sinks:
                sink(message)


@dg.logger({}, description="Forwards the assets' own log lines (progress) to the CLI that started the run.")
def progress_forwarder(init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.Logger("skill2env.progress", level=logging.INFO)
    logger.addHandler(_ProgressHandler())
    return logger


def build_definitions(home: str = "") -> dg.Definitions:
    """Definitions bound to a skill2env home ('' = `$SKILL2ENV_HOME` or `./.skill2env`)."""
    return dg.Definitions(
        assets=[
            skill_catalog,
            curated_skills,
            pattern_library,
            pattern_selections,
            task_authoring,
            service_graph,
            compo_tasks,
        ],
        jobs=[catalog_job, curation_job],
        resources={"lake": LakeResource(home=home), "llm": LlmResource(home=home)},
        loggers={"console": dg.colored_console_logger, "progress": progress_forwarder},
    )


defs = build_definitions()


class PipelineRunError(RuntimeError):
    """A job run failed; the message names the failed steps and their errors."""


@dataclass(frozen=True)
class CatalogOutcome:
    skills: int
    domains: list[str]
    funnel: pl.DataFrame
    step_seconds: dict[str, float]
    """Wall time of each Dagster step (`skill_catalog`, `curated_skills`)."""


def run_catalog(
    home: Home,
    skills_root: Path,
    *,
    workers: int = 0,
    log_level: str = "WARNING",
    progress: Callable[[str], None] | None = None,
) -> CatalogOutcome:
    """Materialize `skills` + `skill_files`, then every domain partition of `curated_skills` in one run.

    `progress` receives the assets' own log lines (how many skills are done) as they come.
    """
    if progress is not None:
        _progress_sinks.append(progress)
    try:
        return _run_catalog(home, skills_root, workers=workers, log_level=log_level)
    finally:
        if progress is not None:
            _progress_sinks.remove(progress)


def _run_catalog(home: Home, skills_root: Path, *, workers: int, log_level: str) -> CatalogOutcome:
    activate_home(home)
    bound = build_definitions(home=str(home.root))
    loggers = {"console": {"config": {"log_level": log_level}}, "progress": {}}
    catalog_config = {"skills_root": str(skills_root), "workers": workers}
    with dg.DagsterInstance.get() as instance:
        result = bound.resolve_job_def("catalog_job").execute_in_process(
            run_config={"ops": {"skill_catalog": {"config": catalog_config}}, "loggers": loggers},
            instance=instance,
            raise_on_error=False,
        )
        _raise_if_failed(result, "catalog_job")
        step_seconds = _step_seconds(instance, result.run_id)
        keys = instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
        if keys:
            result = bound.resolve_job_def("curation_job").execute_in_process(
                run_config={"ops": {"curated_skills": {"config": {"workers": workers}}}, "loggers": loggers},
                instance=instance,
                tags={RANGE_START_TAG: keys[0], RANGE_END_TAG: keys[-1]},
                raise_on_error=False,
            )
            _raise_if_failed(result, "curation_job")
            step_seconds |= _step_seconds(instance, result.run_id)
    lake = Lake(home.lake_path)
    return CatalogOutcome(
        skills=int(lake.query("SELECT count(*) FROM skills").item()),
        domains=lake.query("SELECT DISTINCT domain FROM skills WHERE domain IS NOT NULL ORDER BY 1")
        .to_series()
        .to_list(),
        funnel=lake.query("SELECT * FROM curation_funnel"),
        step_seconds=step_seconds,
    )


def _step_seconds(instance: dg.DagsterInstance, run_id: str) -> dict[str, float]:
    return {
        stats.step_key: stats.end_time - stats.start_time
        for stats in instance.get_run_step_stats(run_id)
        if stats.start_time is not None and stats.end_time is not None
    }


def _raise_if_failed(result: dg.ExecuteInProcessResult, job: str) -> None:
    if result.success:
        return
    failures = [
        f"{event.step_key}: {event.step_failure_data.error.message.strip() if event.step_failure_data.error else ''}"
        for event in result.all_events
        if event.is_step_failure
    ]
    raise PipelineRunError(f"{job} failed: " + ("; ".join(failures) or "see the Dagster run log"))


def set_pool_limits() -> None:
    """Give the `sandbox`, `llm` and `lake` pools their limits on the active instance."""
    with dg.DagsterInstance.get() as instance:
        for pool, (variable, default) in POOL_SLOTS.items():
            slots = int(os.environ.get(variable, default)) if variable else default
            instance.event_log_storage.set_concurrency_slots(pool, slots)
