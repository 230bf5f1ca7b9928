"""`skill2env export harbor` and `skill2env import harbor`: task directories out of and into the lake.

Two click groups, `export_group` and `import_group`, for the main command to add.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from skill2env.home import Home
from skill2env.lake.lake import Lake, LakeError, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.exchange import IMPORT_CODE_VERSION, import_source, import_tree
from skill2env.tasks.export import ExportError, export_tasks
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import task_files_frame, tasks_frame

DEFAULT_EXPORT_STATUSES = (TaskStatus.built.value, TaskStatus.accepted.value)
STORED_STATUSES = [TaskStatus.built.value, TaskStatus.accepted.value, TaskStatus.rejected.value]
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
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to write into.")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    type=click.Choice(STORED_STATUSES),
    default=DEFAULT_EXPORT_STATUSES,
    show_default=True,
    help="Export tasks with this status (repeat for several).",
)
@home_option
def export_harbor(out: Path, statuses: tuple[str, ...], home: Path | None) -> None:
    """Write the stored task directories as Harbor tasks, one folder per task id under OUT."""
    resolved = Home.resolve(home)
    try:
        rows = Lake(resolved.lake_path).query(load_sql("queries/tasks_to_export"), {"statuses": list(statuses)})
        exported = export_tasks(rows.to_dicts(), TaskStore.of(resolved), out)
    except (LakeError, ExportError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    written = sum(1 for e in exported if e.written)
    console.print(f"Exported {len(exported)} task(s) with status {', '.join(statuses)} to {out} ({written} written).")


@click.group("import")
def import_group() -> None:
    """Read external data into the lake."""


@import_group.command("harbor")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@home_option
def import_harbor(folder: Path, home: Path | None) -> None:
    """Import a Harbor task directory, or a folder of them, into the store and the `tasks` table."""
    resolved = Home.resolve(home)
    records = import_tree(folder, TaskStore.of(resolved))
    source = import_source(folder)
    writes = [
        TableWrite("tasks", tasks_frame(records), partition_key=source),
        TableWrite("task_files", task_files_frame(records), partition_key=source),
    ]
    try:
        Lake(resolved.lake_path).write(writes, run_id=f"cli-{uuid.uuid4().hex}", code_version=IMPORT_CODE_VERSION)
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
