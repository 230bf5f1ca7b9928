"""The `skill2env` command line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click
import duckdb
import polars as pl
from rich.console import Console

from skill2env import __version__
from skill2env.cluster.cli import cluster_group
from skill2env.cluster.profile import dagster_instance_yaml
from skill2env.exports.cli import report_command
from skill2env.formatting import print_frame
from skill2env.home import (
    CLUSTER,
    CODE_LOCATION,
    EMBEDDED,
    PROFILE_VARIABLE,
    Home,
    PipelineConfigError,
    ProfileError,
    activate_home,
    configured_iterations,
    default_skills_root,
    save_iterations,
)
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import LakeError
from skill2env.sandbox.cli import sandbox
from skill2env.tasks.cli import export_group, import_group
from skill2env.terminal import StartingStderrConsole
from skill2env.thresholds import SFT_MIN_REWARD
from skill2env.validation.cli import validate_command

FUNNEL_STAGES = ("found", "parsed", "practical", "compatible", "feasible", "safe", "curated")

console = StartingStderrConsole()


def _table_console() -> Console:
    """Standard output: tables at a terminal, CSV-like rows when piped (`print_frame`)."""
    return Console()


home_option = click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="skill2env home (default: $SKILL2ENV_HOME or ./.skill2env).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skill2env")
def main() -> None:
    """Turn agent skills into executable, graded training environments, tracked in a DuckDB lake."""


workers_option = click.option(
    "--workers", type=int, default=0, show_default=True, help="Worker processes; 0 = one per core."
)


def skills_option(*, required: bool, help_text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--skills",
        "skills_root",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        required=required,
        default=None,
        help=help_text,
    )


@main.command()
@skills_option(required=True, help_text="Folder holding skill folders (any depth).")
@home_option
@workers_option
def catalog(skills_root: Path, home: Path | None, workers: int) -> None:
    """Catalog and curate the skills under SKILLS into the lake, then print the funnel."""
    _catalog_and_report(skills_root, Home.resolve(home), workers)


@main.command()
@skills_option(required=False, help_text="Folder holding skill folders (default: $SKILL2ENV_SKILLS or the examples).")
@home_option
@workers_option
@click.option(
    "--iterations",
    type=click.IntRange(min=0),
    default=None,
    help="Hardening iterations after the first tasks (default: the home's pipeline.toml or "
    "$SKILL2ENV_ITERATIONS, else 2); recorded in <home>/pipeline.toml, so `skill2env ui` shows the same assets.",
)
@click.option("--backend", type=click.Choice(["auto", "docker", "bwrap"]), default="auto", show_default=True,
              help="Sandbox backend; auto prefers bwrap with the unpacked base image, then docker.")  # fmt: skip
@click.option("--attempts", default=4, show_default=True, help="Rollout attempts per task (one group).")
@click.option(
    "--policy",
    default="auto",
    show_default=True,
    help="solver | naive | oracle | nop | partial; auto: the solver if a model is configured, else naive.",
)
@click.option("--llm-base-url", default=None, help="OpenAI-compatible endpoint for every model role, for this run.")
@click.option("--llm-model", default=None, help="Model name for every model role, for this run.")
@click.option("--profile", type=click.Choice([EMBEDDED, CLUSTER]), default=None,
              help="embedded (one DuckDB file, local steps) or cluster (the home's cluster.toml: DuckLake, Dagster "
              "on Postgres, celery workers); default: $SKILL2ENV_PROFILE, else cluster when the home has a "
              "cluster.toml.")  # fmt: skip
@click.option("--compoworld/--no-compoworld", default=True, show_default=True,
              help="Also verify CompoWorld's services, generate its cross-service tasks and roll them out "
              "(the solver's model when configured, else the oracle).")  # fmt: skip
def run(
    skills_root: Path | None,
    home: Path | None,
    workers: int,
    iterations: int | None,
    backend: str,
    attempts: int,
    policy: str,
    llm_base_url: str | None,
    llm_model: str | None,
    profile: str | None,
    compoworld: bool,
) -> None:
    """Run the main job: catalog, curation, pattern selection, tasks, validation, rollouts, scores,
    `--iterations` rounds of hardening, CompoWorld (services, tasks, rollouts) and the SFT and RL exports;
    then print what came out. Each job's run shows under its job in `skill2env ui`."""
    settings = (
        ("SKILL2ENV_LLM_BASE_URL", llm_base_url),
        ("SKILL2ENV_LLM_MODEL", llm_model),
        (PROFILE_VARIABLE, profile),
    )
    for variable, value in settings:
        if value:
            os.environ[variable] = value
    resolved, root = Home.resolve(home), (skills_root or default_skills_root()).resolve()
    try:
        iterations = configured_iterations(resolved) if iterations is None else iterations
        save_iterations(resolved, iterations)
        lake_location = lake_of(resolved).location
        _point_definitions_at(resolved)
        from skill2env.definitions import PipelineOptions, PipelineRunError, run_pipeline
    except (PipelineConfigError, ProfileError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)
    options = PipelineOptions(
        iterations=iterations, backend=backend, attempts=attempts, policy=policy, compoworld=compoworld
    )
    started = time.monotonic()
    with _progress_view(f"Running the pipeline on {root} ({iterations} hardening iterations)", started) as view:
        try:
            outcome = run_pipeline(resolved, root, options, workers=workers, progress=view.progress, stages=view.stage)
        except (PipelineRunError, ProfileError, LakeError) as exc:
            console.print(f"[red]error:[/red] {exc}")
            sys.exit(1)
    console.print(f"Pipeline finished in {time.monotonic() - started:.1f} s; lake {lake_location}.")
    console.print(f"Cataloged {outcome.catalog.skills} skill folders ({len(outcome.catalog.domains)} domains).")
    _print_funnel(outcome.catalog.funnel)
    _print_frame_titled("Validation funnel", outcome.validation_funnel)
    tasks = outcome.task_stats.filter(pl.col("domain") == "*").drop("formats", "median_reward")
    _print_frame_titled("Tasks per iteration (all domains)", tasks)
    _print_frame_titled("Hardening curve (paired tasks, all domains)",
                        outcome.hardening_curve.filter(pl.col("domain") == "*"))  # fmt: skip
    if compoworld:
        stats = outcome.compoworld.select("services", "verified_services", "tools", "edges", "tasks", "skipped_tasks")
        _print_frame_titled("CompoWorld (services, tool graph, cross-service tasks)", stats)
        _print_frame_titled("CompoWorld rollouts", outcome.compo_rollouts.drop("mean_turns", "mean_tool_calls"))
    total = outcome.sft_examples + outcome.compo_sft_examples
    console.print(
        f"SFT examples (reward > {SFT_MIN_REWARD}): [bold]{total}[/bold] "
        f"({outcome.sft_examples} from skills, {outcome.compo_sft_examples} from CompoWorld) "
        f"in {resolved.data_root / 'exports/sft'}"
    )
    rl_dir = resolved.data_root / "exports/rl"
    compo_tasks = int(outcome.compoworld.get_column("tasks").item()) if outcome.compoworld.height else 0
    console.print(
        f"RL environments: [bold]{outcome.rl_tasks}[/bold] task directories and {compo_tasks} CompoWorld tasks "
        f"in {rl_dir}"
    )
    console.print('Query it: [bold]skill2env sql "SELECT * FROM task_stats"[/bold], lineage, hardening_curve, …')
    _print_failures(outcome.stage_failures, outcome.empty_stages)


def _print_failures(failures: pl.DataFrame, empty: list[str]) -> None:
    """What did not succeed, per stage (the first rows of `stage_failures`); exit 3 when a stage was given
    items and every one failed."""
    if failures.height:
        total = int(failures.get_column("items").sum())
        shown = failures.select("stage", "iteration", "status", "reason", "items", "example").head(FAILURES_SHOWN)
        _print_frame_titled(f"What did not succeed ({total} items; first {shown.height} causes)", shown)
        console.print(
            'All of it, with an example reason each: [bold]skill2env sql "SELECT * FROM stage_failures"[/bold]'
        )
    for sentence in empty:
        console.print(f"[red]error:[/red] {sentence}")
    if empty:
        sys.exit(3)


FAILURES_SHOWN = 12


@dataclass(frozen=True)
class _ProgressView:
    progress: Callable[[str], None]
    """The assets' own lines (how many skills are done)."""
    stage: Callable[[str], None]
    """A stage or partition starts or ends."""


@contextmanager
def _progress_view(title: str, started: float) -> Iterator[_ProgressView]:
    """At a terminal, a live status line (the latest progress) above which each stage's start and end
    stay; otherwise (piped, CI) one plain line per stage, partition and progress report, each with
    the seconds since the start."""

    def stamped(line: str) -> str:
        return f"[{time.monotonic() - started:6.0f} s] {line}"

    def plain(line: str) -> None:
        console.print(stamped(line), markup=False, highlight=False, soft_wrap=True)

    if not console.is_terminal:
        plain(f"{title} …")
        yield _ProgressView(progress=plain, stage=plain)
        return
    with console.status(f"{title} …") as status:

        def progress(line: str) -> None:
            status.update(f"{title}: {line} ({time.monotonic() - started:.0f} s)")

        def stage(line: str) -> None:
            console.print(stamped(line), markup=False, highlight=False)
            progress(line)

        yield _ProgressView(progress=progress, stage=stage)


def _print_frame_titled(title: str, frame: pl.DataFrame) -> None:
    print_frame(_table_console(), title, frame)


def _point_definitions_at(home: Home) -> None:
    """`skill2env.definitions` builds its module-level `defs` for `$SKILL2ENV_HOME` (and its profile) when
    first imported: point the variable at the home this command works on before that import."""
    os.environ["SKILL2ENV_HOME"] = str(home.root)


def _catalog_and_report(skills_root: Path, home: Home, workers: int) -> None:
    try:
        _point_definitions_at(home)
        from skill2env.definitions import PipelineRunError, run_catalog
    except ProfileError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)

    started = time.monotonic()
    with _progress_view(f"Cataloging and curating skills under {skills_root}", started) as view:
        try:
            outcome = run_catalog(
                home, skills_root.resolve(), workers=workers, progress=view.progress, stages=view.stage
            )
        except PipelineRunError as exc:
            console.print(f"[red]error:[/red] {exc}")
            sys.exit(1)
    elapsed = time.monotonic() - started
    console.print(
        f"Cataloged [bold]{outcome.skills}[/bold] skill folders into {home.lake_path} in {elapsed:.1f} s "
        f"({len(outcome.domains)} domains)."
    )
    steps = ", ".join(f"{step} {seconds:.1f} s" for step, seconds in outcome.step_seconds.items())
    console.print(f"Steps: {steps}.", soft_wrap=True)
    _print_funnel(outcome.funnel)
    console.print('Query it: [bold]skill2env sql "SELECT * FROM curation_reasons"[/bold]')


def _print_funnel(funnel: pl.DataFrame) -> None:
    frame = funnel.select(
        pl.when(pl.col("domain") == "*").then(pl.lit("all domains")).otherwise(pl.col("domain")).alias("domain"),
        *FUNNEL_STAGES,
        "curated_pct",
    )
    print_frame(_table_console(), "Curation funnel (cumulative) by domain", frame,
                labels={"curated_pct": "curated %"}, bold_first="all domains")  # fmt: skip


@main.command()
@click.argument("query")
@home_option
@click.option("--format", "output_format", type=click.Choice(["table", "csv", "json"]), default="table")
def sql(query: str, home: Path | None, output_format: str) -> None:
    """Run a read-only SQL QUERY on the lake (views: skills, skill_files, curated_skills, catalog_stats, …)."""
    lake = lake_of(Home.resolve(home))
    if not lake.exists():
        console.print(f"[red]error:[/red] no lake at {lake.location}; run `skill2env catalog` or `skill2env run` first")
        sys.exit(2)
    try:
        frame = lake.query(query)
    except (LakeError, duckdb.Error) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    _print_frame(frame, output_format)


def _print_frame(frame: pl.DataFrame, output_format: str) -> None:
    if output_format == "csv":
        nested = [c for c, t in frame.schema.items() if isinstance(t, pl.List | pl.Struct | pl.Array)]
        flat = frame.with_columns(
            pl.Series(c, [None if v is None else json.dumps(v, default=str) for v in frame[c].to_list()], pl.String)
            for c in nested
        )
        sys.stdout.write(flat.write_csv())
    elif output_format == "json":
        sys.stdout.write(json.dumps(frame.to_dicts(), default=str, ensure_ascii=False, indent=1) + "\n")
    else:
        print_frame(_table_console(), "", frame)
        console.print(f"{frame.height} rows")


@main.command()
@home_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=3000, show_default=True, type=int)
def ui(home: Path | None, host: str, port: int) -> None:
    """Start the Dagster UI (webserver + daemon) on this project, with run history under the home."""
    resolved = Home.resolve(home)
    try:
        activate_home(resolved, dagster_instance_yaml(resolved))
        from skill2env.definitions import set_pool_limits
    except ProfileError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)
    set_pool_limits()
    commands = {name: _dagster_command(name) for name in ("dagster-webserver", "dagster-daemon")}
    missing = [name for name, path in commands.items() if path is None]
    if missing:
        console.print(f"[red]error:[/red] {', '.join(missing)} not installed in this environment")
        sys.exit(2)
    workspace = write_workspace(resolved)
    console.print(f"Dagster UI on http://{host}:{port} — lake {resolved.lake_path}")
    # The webserver and the daemon, each on the home's instance (DAGSTER_HOME) and the project's code
    # location: what `dagster dev` starts, without its deprecation notice and its warning about the
    # project's dagster.yaml (copied into DAGSTER_HOME, so it is the one in use).
    processes = [
        subprocess.Popen(
            [str(commands["dagster-webserver"]), "-w", str(workspace), "-h", host, "-p", str(port)],
            env=os.environ.copy(),
        ),
        subprocess.Popen([str(commands["dagster-daemon"]), "run", "-w", str(workspace)], env=os.environ.copy()),
    ]
    sys.exit(_supervise(processes))


def _dagster_command(name: str) -> str | None:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def write_workspace(home: Home) -> Path:
    """`<DAGSTER_HOME>/workspace.yaml`: the one code location, `skill2env.definitions`."""
    path = home.dagster_home / "workspace.yaml"
    path.write_text(
        "load_from:\n"
        "  - python_module:\n"
        "      module_name: skill2env.definitions\n"
        f"      location_name: {CODE_LOCATION}\n",
        encoding="utf-8",
    )
    return path


def _supervise(processes: list[subprocess.Popen[bytes]]) -> int:
    """Wait until one process ends or this one is told to stop, then stop the others; their exit status."""

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    code = 0
    try:
        while all(process.poll() is None for process in processes):
            time.sleep(0.5)
        code = next(process.returncode for process in processes if process.returncode is not None)
    except KeyboardInterrupt:
        pass
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    return code


@main.group()
def llm() -> None:
    """The model endpoints of the roles (configured in <home>/llm.toml and SKILL2ENV_LLM_*)."""


@llm.command()
@home_option
@click.option("--timeout", default=5.0, show_default=True, help="Seconds to wait for each endpoint.")
def doctor(home: Path | None, timeout: float) -> None:
    """Print each role's resolved configuration (never a key) and whether its endpoint answers."""
    from skill2env.llm.config import LlmConfigError, LlmSettings
    from skill2env.llm.doctor import checks_by_endpoint, role_summary

    try:
        settings = LlmSettings.load(Home.resolve(home))
    except LlmConfigError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)
    checks = checks_by_endpoint(settings, timeout)
    click.echo(f"Model roles ({settings.config_file or 'no llm.toml'}; cache {settings.cache_mode.value})")
    for role, config in settings.roles.items():
        if not config.configured:
            click.echo(f"{role}: no model configured")
            continue
        summary = role_summary(config)
        click.echo(f"{role}: {summary.pop('model')} at {summary.pop('base_url')} (api key {summary.pop('api key')})")
        click.echo("  " + ", ".join(f"{name} {value}" for name, value in summary.items()))
        check = checks[config.base_url]
        click.echo(f"  endpoint: {'answers, ' if check.answers else ''}{check.detail}")
    if not checks:
        console.print("No model configured: the pipeline runs its offline paths (rules-only curation).")
    elif not all(check.answers for check in checks.values()):
        sys.exit(1)


main.add_command(sandbox)
main.add_command(export_group)
main.add_command(import_group)
main.add_command(validate_command)
main.add_command(report_command)
main.add_command(cluster_group)

if __name__ == "__main__":
    main()
