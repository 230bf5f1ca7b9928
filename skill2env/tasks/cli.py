"""`skill2env export harbor` and `skill2env import harbor`: task directories out of and into the lake.

Two click groups, `export_group` and `import_group`, for the main command to add.
"""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from skill2env.home import Home
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import LakeError, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.sandbox import BACKEND_NAMES
from skill2env.tasks.exchange import IMPORT_CODE_VERSION, import_source, import_tree, task_dirs
from skill2env.tasks.export import ExportError, by_task_version, export_tasks
from skill2env.tasks.harbor_check import HarborNotFound, check_tasks, find_harbor, run_oracle
from skill2env.tasks.records import TaskRecord, TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import task_files_frame, tasks_frame
from skill2env.validation.hack_probes.tables import hack_probes_frame
from skill2env.validation.tables import validations_frame
from skill2env.validation.tasks import validate_rows

EXPORT_OUTCOMES = ["accepted", "rejected", "unvalidated", "all"]
console = Console(stderr=True)

home_option = click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="skill2env home (default: $SKILL2ENV_HOME or ./.skill2env).",
)


@click.group("export")
def export_group() -> None:
    """Export what the lake holds."""


@export_group.command("harbor")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to write into: one directory per distinct task version.")  # fmt: skip
@click.option(
    "--status",
    "outcome",
    type=click.Choice(EXPORT_OUTCOMES),
    default="accepted",
    show_default=True,
    help="Which tasks, by validation outcome: accepted (passed every gate), rejected, unvalidated, or all.",
)
@click.option("--base-image", default=None, metavar="REF",
              help="The base image every exported Dockerfile names (default: its content-addressed local tag; "
                   "give a registry reference, ideally by digest, for cloud sandbox providers).")  # fmt: skip
@click.option("--check", "check_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="Check exported directories with Harbor itself (its Task model and `harbor lint`).")  # fmt: skip
@click.option("--harbor", "harbor_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The harbor executable for --check (default: $SKILL2ENV_HARBOR, PATH, ./.harbor-venv).")  # fmt: skip
@click.option("--run-oracle", "oracle", is_flag=True,
              help="With --check: also run Harbor's oracle agent on each task; each must score 1.")  # fmt: skip
@click.option("--harbor-env", default=None, metavar="MODULE:CLASS",
              help="With --run-oracle: Harbor's environment (`harbor run -e`; default its docker one).")  # fmt: skip
@click.option("--oracle-concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --run-oracle: how many trials Harbor runs at once (`harbor run -n`).")  # fmt: skip
@home_option
def export_harbor(out: Path | None, outcome: str, base_image: str | None, check_dir: Path | None,
                  harbor_path: Path | None, oracle: bool, harbor_env: str | None, oracle_concurrency: int,
                  home: Path | None) -> None:  # fmt: skip
    """Write the lake's tasks as Harbor tasks that Harbor itself runs and scores, and/or check them.

    \b
      skill2env export harbor --out tasks/ --status accepted
      skill2env export harbor --check tasks/
    """
    if out is None and check_dir is None:
        raise click.UsageError("give --out DIR (export), --check DIR (check), or both")
    if out is not None:
        _export(out, outcome, base_image, home)
    if check_dir is not None:
        _check(check_dir, harbor_path, oracle, harbor_env, oracle_concurrency)


def _export(out: Path, outcome: str, base_image: str | None, home: Path | None) -> None:
    resolved = Home.resolve(home)
    outcomes = [o for o in EXPORT_OUTCOMES if o != "all"] if outcome == "all" else [outcome]
    try:
        rows = lake_of(resolved).query(load_sql("queries/tasks_to_export"), {"outcomes": outcomes})
        exported = export_tasks(rows.to_dicts(), TaskStore.of(resolved), out, base_image=base_image,
                                folder=by_task_version)  # fmt: skip
    except (LakeError, ExportError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    written = sum(1 for e in exported if e.written)
    console.print(f"Exported {len(exported)} task version(s) ({outcome}) to {out} ({written} written).")


def _check(folder: Path, harbor_path: Path | None, oracle: bool, environment: str | None, concurrency: int) -> None:
    dirs = task_dirs(folder)
    try:
        harbor = find_harbor(harbor_path)
        checks = check_tasks(dirs, harbor)
        if oracle:
            at_once = "one at a time" if concurrency == 1 else f"{concurrency} at a time"
            console.print(f"Running Harbor's oracle agent on {len(checks)} task(s), {at_once} …")
            with tempfile.TemporaryDirectory(prefix="skill2env-harbor-jobs-") as jobs:
                run_oracle(checks, harbor, Path(jobs), environment=environment, concurrency=concurrency)
    except HarborNotFound as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    table = Table(title=f"Harbor's view of {folder}")
    for column in ("task", "loads", "lint (default rules)", *(["oracle reward"] if oracle else [])):
        table.add_column(column, overflow="fold")
    for check in checks:
        loads = "yes" if check.loaded else f"no: {check.load_error}"
        reward = check.oracle_error or ("-" if check.oracle_reward is None else f"{check.oracle_reward:.2f}")
        table.add_row(check.path.name, loads, "\n".join(check.findings) or "clean", *([reward] if oracle else []))
    Console().print(table)
    bad = [c for c in checks if not c.ok or (oracle and c.oracle_reward is None)]
    what = "load in Harbor and are lint-clean"
    if oracle:
        what = "load in Harbor, are lint-clean and score 1 with its oracle agent"
    console.print(f"{len(checks) - len(bad)} of {len(checks)} task(s) {what}.")
    if bad:
        sys.exit(1)


def _validations(records: list[TaskRecord], home: Home, source: str, backend: str) -> list[TableWrite]:
    """Every gate of the usable imported tasks, as the pipeline's validation stage runs them."""
    rows = [
        {
            "task_id": r.task_id,
            "store_path": r.store_path,
            "rubric": r.rubric,
            "blueprint": None,
            "domain": r.domain or source,
            "iteration": r.iteration,
        }
        for r in records
        if r.status != TaskStatus.error and r.store_path
    ]
    console.print(f"Validating {len(rows)} imported task(s) on {backend} …")
    validations = validate_rows(rows, home.data_root, backend=backend,  # type: ignore[arg-type]
                                progress=lambda done: console.print(f"  {done}/{len(rows)} validated"))  # fmt: skip
    table = Table(title="Validation of the imported tasks")
    for column in ("task", "verdict", "failing gates / why not run"):
        table.add_column(column, overflow="fold")
    for validation, _, _ in validations:
        unrun = [f"{o.gate.value}: {o.evidence}" for o in validation.outcomes if o.status.value == "skipped"]
        table.add_row(validation.task_id, validation.acceptance.value, "; ".join([*validation.failing, *unrun]))
    Console().print(table)
    return [
        TableWrite("validations", validations_frame(validations, backend), partition_key=source),
        TableWrite("hack_probes", hack_probes_frame(validations, backend), partition_key=source),
    ]


@click.group("import")
def import_group() -> None:
    """Read external data into the lake."""


@import_group.command("harbor")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--validate", is_flag=True,
              help="Run every validation gate on each imported task (oracle when it has a solution, nop, partial, "
                   "leak, judge, hack-probe) and record them in `validations` / `hack_probes`.")  # fmt: skip
@click.option("--backend", type=click.Choice(BACKEND_NAMES), default="bwrap", show_default=True,
              help="The sandbox backend of --validate.")  # fmt: skip
@home_option
def import_harbor(folder: Path, validate: bool, backend: str, home: Path | None) -> None:
    """Import a Harbor task directory, or a folder of them, into the store and the `tasks` table."""
    resolved = Home.resolve(home)
    records = import_tree(folder, TaskStore.of(resolved))
    source = import_source(folder)
    writes = [
        TableWrite("tasks", tasks_frame(records), partition_key=source),
        TableWrite("task_files", task_files_frame(records), partition_key=source),
    ]
    if validate:
        writes += _validations(records, resolved, source, backend)
    try:
        lake_of(resolved).write(writes, run_id=f"cli-{uuid.uuid4().hex}", code_version=IMPORT_CODE_VERSION)
    except LakeError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    table = Table(title=f"Imported from {folder} (partition {source})")
    for column in ("task", "status", "environment", "rubric items", "reason"):
        table.add_column(column)
    for record in records:
        items = str(len(json.loads(record.rubric)["items"])) if record.rubric else "-"
        table.add_row(record.task_id or "?", record.status.value, record.environment or "-", items,
                      "; ".join(record.reasons))  # fmt: skip
    Console().print(table)
    errors = sum(1 for r in records if r.status == TaskStatus.error)
    console.print(f"{len(records) - errors} task(s) imported, {errors} with errors, into {resolved.lake_path}.")
