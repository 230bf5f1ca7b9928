"""The composition root: the one `Definitions` that the CLI and the UI both load.

This is the only module of the `skill2env` package that imports Dagster; the CLI runs jobs
through the functions at the bottom, in-process, on the persistent instance the UI shows.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg
import polars as pl
from dagster._core.definitions.reconstruct import ReconstructableRepository
from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
from dagster._core.remote_origin import RemoteJobOrigin, RemoteRepositoryOrigin
from dagster._core.storage.tags import REPOSITORY_LABEL_TAG
from dagster._core.workspace.load import location_origin_from_module_name

from assets.catalog import skill_catalog
from assets.checks import asset_checks
from assets.compoworld import compo_rollouts, compo_tasks, service_graph
from assets.curation import curated_skills
from assets.iterations import iteration_assets, stage_op_config
from assets.partitions import DOMAIN_PARTITIONS_NAME
from assets.patterns import pattern_library, pattern_selections
from assets.progress import PARTITION_PREFIX
from assets.rl_export import rl_environments_asset
from assets.tasks import task_authoring
from assets.versions import with_code_versions
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.cluster.profile import cluster_settings, dagster_instance_yaml
from skill2env.compoworld.service import DOMAINS as COMPOWORLD_DOMAINS
from skill2env.home import CODE_LOCATION, DEFAULT_ITERATIONS, Home, ProfileError, activate_home, configured_iterations
from skill2env.lake.home_lake import lake_of
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.authors import AUTO
from skill2env.thresholds import SFT_MIN_REWARD

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
compoworld_job = dg.define_asset_job(
    "compoworld_job",
    selection=["service_graph", "compo_tasks", "compo_rollouts"],
    description="Verify CompoWorld's services and build their tool graph, generate cross-service tasks per "
    "CompoWorld domain and roll them out (the solver's model when one is configured, else the oracle); "
    "a partition range runs as one run.",
)
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
"""Dagster's run tags for a partition range executed as one run (single-run backfill policy)."""
POOL_SLOTS = {"sandbox": ("SKILL2ENV_SANDBOX_SLOTS", 2), "llm": ("SKILL2ENV_LLM_SLOTS", 8), "lake": ("", 1)}
"""Pool → (environment variable that overrides the limit, default limit)."""


@dataclass(frozen=True)
class ProgressSinks:
    """Where a run's progress goes: `lines` the assets' own lines (how many skills are done), `stages`
    one line per stage (Dagster step) and partition as it starts and ends, with counts and seconds."""

    lines: Callable[[str], None] | None = None
    stages: Callable[[str], None] | None = None


_progress_sinks: list[ProgressSinks] = []
"""Where the runs' progress goes when the CLI runs a job in-process (its status line or plain lines)."""

PROGRESS_COUNTS = 4
"""Counts named per materialized asset in a stage's closing line."""


class _ProgressHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self._started: dict[str, float] = {}
        self._counts: dict[str, dict[str, str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        event: dg.DagsterEvent | None = meta.get("dagster_event")
        step = str(meta.get("step_key") or "")
        if event is None:  # an asset's own line, not an engine event
            if record.levelno < logging.INFO:
                return
            message = str(meta.get("orig_message") or record.getMessage())
            if message.startswith(PARTITION_PREFIX):
                self._send("stages", f"{step}: {message}")
            else:
                self._send("lines", message)
        elif event.is_step_start:
            self._started[step], self._counts[step] = time.monotonic(), {}
            self._send("stages", f"{step}: started")
        elif event.is_step_materialization and event.asset_key is not None:
            metadata = event.step_materialization_data.materialization.metadata
            counts = [_count(name, value) for name, value in metadata.items() if _is_count(name, value)]
            summary = ", ".join(counts[:PROGRESS_COUNTS]) or "materialized"
            self._counts.setdefault(step, {})[event.asset_key.to_user_string()] = summary
        elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            check = event.asset_check_evaluation_data
            verdict = "passed" if check.passed else f"failed ({check.severity.value.lower()})"
            self._counts.setdefault(step, {})[f"check {check.check_name}"] = verdict
        elif event.is_step_success or event.is_step_failure:
            seconds = time.monotonic() - self._started.pop(step, time.monotonic())
            done = "; ".join(f"{key}: {summary}" for key, summary in self._counts.pop(step, {}).items())
            verb = "finished" if event.is_step_success else "failed"
            self._send("stages", f"{step}: {verb} in {seconds:.1f} s" + (f" ({done})" if done else ""))

    @staticmethod
    def _send(kind: str, line: str) -> None:
        for sinks in _progress_sinks:
            sink = getattr(sinks, kind)
            if sink is not None:
                sink(line)


def _is_count(name: str, value: object) -> bool:
    numeric = isinstance(value, dg.IntMetadataValue | dg.FloatMetadataValue)
    return numeric and (name == "dagster/row_count" or not name.startswith("dagster/"))


def _count(name: str, value: dg.MetadataValue) -> str:
    return f"{'rows' if name == 'dagster/row_count' else name} {value.value}"


@dg.logger({}, description="Forwards the runs' progress (stages, partitions, the assets' own lines) to the CLI.")
def progress_forwarder(init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.Logger("skill2env.progress", level=logging.DEBUG)
    logger.addHandler(_ProgressHandler())
    return logger


def environments_job(iterations: int) -> dg.UnresolvedAssetJobDefinition:
    stages = iteration_assets(iterations)
    keys = [key for stage in stages if stage.partitions_def is not None for key in stage.keys]
    return dg.define_asset_job(
        "environments_job",
        selection=[dg.AssetKey("blueprints"), dg.AssetKey("tasks"), *keys],
        description="Author tasks from the selections, then validate, roll out, score and harden them, "
        "iteration by iteration; a partition range runs as one run.",
    )


exports_job = dg.define_asset_job(
    "exports_job",
    selection=["sft_trajectories", "rl_environments"],
    description="Write the SFT set (JSONL + Parquet) and the RL set (task directories + item pass rates) "
    "under the home.",
)


def build_definitions(home: str = "", iterations: int | None = None) -> dg.Definitions:
    """Definitions bound to a skill2env home ('' = `$SKILL2ENV_HOME` or `./.skill2env`), with the
    hardening loop unrolled into `iterations` rounds (None: the home's setting, `configured_iterations`)."""
    if iterations is None:
        iterations = configured_iterations(Home.resolve(home or None))
    assets = [
        skill_catalog,
        curated_skills,
        pattern_library,
        pattern_selections,
        task_authoring,
        *iteration_assets(iterations),
        rl_environments_asset(iterations),
        service_graph,
        compo_tasks,
        compo_rollouts,
    ]
    return dg.Definitions(
        assets=with_code_versions(assets),
        asset_checks=asset_checks(iterations),
        jobs=[catalog_job, curation_job, environments_job(iterations), compoworld_job, exports_job],
        resources={"lake": LakeResource(home=home), "llm": LlmResource(home=home)},
        loggers={"console": dg.colored_console_logger, "progress": progress_forwarder},
        executor=_executor(Home.resolve(home or None)),
    )


def _executor(home: Home) -> dg.ExecutorDefinition | None:
    """Dagster's default (steps in local processes), or celery when the cluster names a broker: steps
    then run on the cluster's workers (`skill2env cluster worker`), which reconstruct the job from
    `workers_definitions`."""
    settings = cluster_settings(home)
    if settings is None or settings.celery_broker is None:
        return None
    try:
        from dagster_celery import celery_executor
    except ImportError as exc:
        raise ProfileError("[celery] in cluster.toml needs dagster-celery: pip install 'skill2env[cluster]'") from exc
    return celery_executor.configured({"broker": settings.celery_broker, "backend": settings.celery_broker})


def distributed(home: Home) -> bool:
    """Whether `home`'s jobs run their steps on celery workers rather than in this process."""
    settings = cluster_settings(home)
    return settings is not None and settings.celery_broker is not None


defs = build_definitions()
"""What `skill2env ui` loads: as many iterations as the last `skill2env run` on this home unrolled."""


WORKERS_DEFINITIONS = "workers_definitions"


@dg.definitions
def workers_definitions() -> dg.Definitions:
    """The definitions a celery worker (and the process that hands it steps) reconstructs a job from:
    built when loaded, so they follow the process's home (`$SKILL2ENV_HOME`) and the iterations in the
    cluster's shared `pipeline.toml`, not whatever was set when this module was first imported."""
    return build_definitions()


class PipelineRunError(RuntimeError):
    """A job run failed; the message names the failed steps and their errors."""


def job_origin(job_name: str) -> RemoteJobOrigin:
    """Where the UI finds `job_name`: the repository of this module's `defs` in the code location that
    `skill2env ui`'s workspace names (`CODE_LOCATION`)."""
    location = location_origin_from_module_name(__name__, None, None, CODE_LOCATION)
    return RemoteJobOrigin(RemoteRepositoryOrigin(location, SINGLETON_REPOSITORY_NAME), job_name)


def execute_job(
    bound: dg.Definitions,
    job_name: str,
    instance: dg.DagsterInstance,
    run_config: dict[str, object],
    *,
    tags: dict[str, str] | None = None,
    on_workers: bool = False,
) -> dg.ExecuteInProcessResult | dg.ExecuteJobResult:
    """Run `job_name` of `bound` on `instance`, as a run of that job of the UI's code location: tagged
    with its repository label from the start (the UI lists a job's runs by its name and that tag: the
    Jobs page, the job's Runs tab), and given the job's origin once it ends, as a run launched from the
    UI carries it (the run's repository origin, what re-execution looks the job up by).

    In this process; or, `on_workers`, with this process orchestrating and the steps sent to the
    cluster's celery workers, which rebuild the job from `workers_definitions` (so the job must be the
    same there: the same iterations, from the shared `pipeline.toml`)."""
    origin = job_origin(job_name)
    tags = {**(tags or {}), REPOSITORY_LABEL_TAG: origin.repository_origin.get_label()}
    result: dg.ExecuteInProcessResult | dg.ExecuteJobResult
    if on_workers:
        repository = ReconstructableRepository.for_module(__name__, WORKERS_DEFINITIONS, str(Path.cwd()))
        result = dg.execute_job(
            repository.get_reconstructable_job(job_name),
            instance,
            run_config=run_config,
            tags=tags,
            raise_on_error=False,
        )
    else:
        result = bound.resolve_job_def(job_name).execute_in_process(
            run_config=run_config, instance=instance, tags=tags, raise_on_error=False
        )
    run = instance.get_run_by_id(result.run_id)
    if run is not None:
        instance.run_storage.replace_job_origin(run, origin)
    return result


@dataclass(frozen=True)
class CatalogOutcome:
    skills: int
    domains: list[str]
    funnel: pl.DataFrame
    step_seconds: dict[str, float]
    """Wall time of each Dagster step that materialized assets (`skill_catalog`, `curated_skills`; not
    the asset checks' steps)."""


def run_catalog(
    home: Home,
    skills_root: Path,
    *,
    workers: int = 0,
    log_level: str = "WARNING",
    progress: Callable[[str], None] | None = None,
    stages: Callable[[str], None] | None = None,
) -> CatalogOutcome:
    """Materialize `skills` + `skill_files`, then every domain partition of `curated_skills` in one run.

    `progress` receives the assets' own log lines (how many skills are done) as they come; `stages` a
    line as each stage (and partition) starts and ends, with counts and seconds.
    """
    with _forwarding(ProgressSinks(progress, stages)):
        return _run_catalog(home, skills_root, workers=workers, log_level=log_level)


@contextmanager
def _forwarding(sinks: ProgressSinks) -> Iterator[None]:
    _progress_sinks.append(sinks)
    try:
        yield
    finally:
        _progress_sinks.remove(sinks)


def _run_catalog(home: Home, skills_root: Path, *, workers: int, log_level: str) -> CatalogOutcome:
    activate_home(home, dagster_instance_yaml(home))
    bound, on_workers = build_definitions(home=str(home.root)), distributed(home)
    if on_workers:
        set_pool_limits()  # on the cluster's instance, where every worker's steps take their slots
    loggers = {"console": {"config": {"log_level": log_level}}, "progress": {}}
    catalog_config = {"skills_root": str(skills_root), "workers": workers}
    with dg.DagsterInstance.get() as instance:
        result = execute_job(
            bound,
            "catalog_job",
            instance,
            {"ops": {"skill_catalog": {"config": catalog_config}}, "loggers": loggers},
            on_workers=on_workers,
        )
        _raise_if_failed(result, "catalog_job")
        step_seconds = _step_seconds(instance, result.run_id)
        keys = instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
        if keys:
            result = execute_job(
                bound,
                "curation_job",
                instance,
                {"ops": {"curated_skills": {"config": {"workers": workers}}}, "loggers": loggers},
                tags={RANGE_START_TAG: keys[0], RANGE_END_TAG: keys[-1]},
                on_workers=on_workers,
            )
            _raise_if_failed(result, "curation_job")
            step_seconds |= _step_seconds(instance, result.run_id)
    lake = lake_of(home)
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
        if stats.start_time is not None and stats.end_time is not None and stats.materialization_events
    }


def _raise_if_failed(result: dg.ExecuteInProcessResult | dg.ExecuteJobResult, job: str) -> None:
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


@dataclass(frozen=True)
class PipelineOptions:
    iterations: int = DEFAULT_ITERATIONS
    author: str = AUTO
    """See `skill2env.tasks.authors.choose_author`: the model author when one is configured, else the kits."""
    backend: str = "auto"
    policy: str = "auto"
    attempts: int = 4
    trigger: str = "auto"
    threshold: float = 0.7
    compoworld: bool = False
    """Also materialize CompoWorld (`compoworld_job`: services, tasks per CompoWorld domain, rollouts), as
    `skill2env run` does, so its SFT examples and RL rows join the exports."""
    compo_tasks_per_domain: int = 20


@dataclass(frozen=True)
class PipelineOutcome:
    catalog: CatalogOutcome
    step_seconds: dict[str, float]
    validation_funnel: pl.DataFrame
    task_stats: pl.DataFrame
    hardening_curve: pl.DataFrame
    sft_examples: int
    rl_tasks: int
    """Task directories in the RL set (`<home>/exports/rl/tasks/`)."""
    compoworld: pl.DataFrame
    """One row (`compoworld_stats`): services (verified), tools, graph edges, tasks."""
    compo_rollouts: pl.DataFrame
    """`compo_rollout_summary`: per CompoWorld domain and policy, attempts, rewards, calls."""
    compo_sft_examples: int
    """CompoWorld's examples in the SFT set (reward above the SFT threshold)."""
    stage_failures: pl.DataFrame = field(default_factory=pl.DataFrame)
    """`stage_failures`: what did not succeed, per stage, iteration, status and reason."""
    empty_stages: list[str] = field(default_factory=list)
    """Stages that were given items and produced nothing, every item having failed (see `empty_stages`)."""


def empty_stages(outputs: dict[str, int]) -> list[str]:
    """The first iteration's stages that had items and produced nothing from them because they failed
    (a row of `queries/stage_outputs`), each said as a sentence. Skills every author declined (no
    kit fits, offline) are skipped, not failures: they show in `stage_failures` without failing the run."""
    said = []
    if outputs["authoring_failed"] and not outputs["built"]:
        said.append(f"authoring built no task: {outputs['authoring_failed']} of {outputs['authored']} skills with "
                    "selected patterns failed (error or rejected), the rest were skipped")  # fmt: skip
    if outputs["validated"] and not outputs["accepted"]:
        said.append(f"validation accepted none of {outputs['validated']} tasks")
    if outputs["rollouts"] and not outputs["rollouts_run"]:
        said.append(f"every one of {outputs['rollouts']} rollouts ended in an infrastructure or model error")
    return said


def run_pipeline(
    home: Home,
    skills_root: Path,
    options: PipelineOptions,
    *,
    workers: int = 0,
    log_level: str = "WARNING",
    progress: Callable[[str], None] | None = None,
    stages: Callable[[str], None] | None = None,
) -> PipelineOutcome:
    """The whole pipeline in-process on the persistent instance: catalog and curation, then task
    authoring and every iteration's validation, rollouts, scores and hardening (one run over all
    domains), then CompoWorld (with `options.compoworld`), then the SFT and RL exports. Each job's run
    is a run of that job in the UI. `progress` and `stages` as for `run_catalog`."""
    with _forwarding(ProgressSinks(progress, stages)):
        catalog = _run_catalog(home, skills_root, workers=workers, log_level=log_level)
        step_seconds = _run_environments(home, options, log_level=log_level)
    lake = lake_of(home)
    return PipelineOutcome(
        catalog=catalog,
        step_seconds=catalog.step_seconds | step_seconds,
        validation_funnel=lake.query("SELECT * FROM validation_funnel"),
        task_stats=lake.query("SELECT * FROM task_stats"),
        hardening_curve=lake.query("SELECT * FROM hardening_curve"),
        sft_examples=lake.query(load_sql("queries/sft_candidates"), {"min_reward": SFT_MIN_REWARD}).height,
        rl_tasks=_count_dirs(home.data_root / "exports" / "rl" / "tasks"),
        compoworld=lake.query("SELECT * FROM compoworld_stats"),
        compo_rollouts=lake.query("SELECT * FROM compo_rollout_summary"),
        compo_sft_examples=lake.query(load_sql("queries/compo_sft_candidates"), {"min_reward": SFT_MIN_REWARD}).height,
        stage_failures=lake.query("SELECT * FROM stage_failures"),
        empty_stages=empty_stages(lake.query(load_sql("queries/stage_outputs")).row(0, named=True)),
    )


def _count_dirs(folder: Path) -> int:
    return sum(1 for entry in folder.iterdir() if entry.is_dir()) if folder.is_dir() else 0


def _run_environments(home: Home, options: PipelineOptions, *, log_level: str) -> dict[str, float]:
    bound = build_definitions(home=str(home.root), iterations=options.iterations)
    on_workers = distributed(home)
    loggers = {"console": {"config": {"log_level": log_level}}, "progress": {}}
    ops: dict[str, dict[str, object]] = {"task_authoring": {"config": {"author": options.author}}}
    ops |= stage_op_config(
        options.iterations,
        validations={"backend": options.backend},
        rollouts={"backend": options.backend, "policy": options.policy, "attempts": options.attempts},
        hardening={"threshold": options.threshold, "trigger": options.trigger,
                   "backend": options.backend},
    )  # fmt: skip
    step_seconds: dict[str, float] = {}
    with dg.DagsterInstance.get() as instance:
        keys = instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
        if not keys:
            return step_seconds
        result = execute_job(
            bound,
            "environments_job",
            instance,
            {"ops": ops, "loggers": loggers},
            tags={RANGE_START_TAG: keys[0], RANGE_END_TAG: keys[-1]},
            on_workers=on_workers,
        )
        _raise_if_failed(result, "environments_job")
        step_seconds |= _step_seconds(instance, result.run_id)
        if options.compoworld:
            result = execute_job(
                bound,
                "compoworld_job",
                instance,
                {"ops": _compoworld_ops(options), "loggers": loggers},
                tags={RANGE_START_TAG: COMPOWORLD_DOMAINS[0], RANGE_END_TAG: COMPOWORLD_DOMAINS[-1]},
                on_workers=on_workers,
            )
            _raise_if_failed(result, "compoworld_job")
            step_seconds |= _step_seconds(instance, result.run_id)
        result = execute_job(bound, "exports_job", instance, {"loggers": loggers}, on_workers=on_workers)
        _raise_if_failed(result, "exports_job")
        step_seconds |= _step_seconds(instance, result.run_id)
    return step_seconds


def _compoworld_ops(options: PipelineOptions) -> dict[str, dict[str, object]]:
    """CompoWorld's configuration for a pipeline run: the services' tests in bwrap when the run's
    backend is bwrap (else wherever `auto` finds), the rollouts by the solver's model when one is
    configured, else by the oracle (`auto`), one attempt per task, with the services answering in this
    process (they are the project's own code; a sandbox per attempt would cost seconds each)."""
    verify = "bwrap" if options.backend == "bwrap" else "auto"
    return {
        "service_graph": {"config": {"verify_backend": verify}},
        "compo_tasks": {"config": {"tasks_per_domain": options.compo_tasks_per_domain}},
        "compo_rollouts": {"config": {"policy": "auto", "gateway": "in_process"}},
    }
