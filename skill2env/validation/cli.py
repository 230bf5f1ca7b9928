"""`skill2env validate TASK_DIR`: the validation gates of one Harbor task directory."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from skill2env.sandbox import BACKEND_NAMES
from skill2env.validation.gates import validate_task
from skill2env.validation.tasks import NoRubricError, task_rubric

console = Console()


@click.command("validate")
@click.argument("task_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--backend", type=click.Choice(BACKEND_NAMES), default="docker", show_default=True)
def validate_command(task_dir: Path, backend: str) -> None:
    """Run the oracle, nop and partial policies of TASK_DIR in sandboxes and print each gate.

    Exits 1 when the task is not accepted.
    """
    try:
        rubric = task_rubric(task_dir)
    except (NoRubricError, ValidationError, ValueError, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)
    validation = validate_task(task_dir.name, task_dir, rubric, backend=backend)  # type: ignore[arg-type]
    table = Table(title=f"validation of {task_dir.name} ({backend})")
    for column in ("gate", "status", "reward", "evidence"):
        table.add_column(column, overflow="fold")
    for outcome in validation.outcomes:
        colour = {"passed": "green", "failed": "red", "infra_error": "yellow"}.get(outcome.status.value, "dim")
        reward = "" if outcome.reward is None else f"{outcome.reward:.2f}"
        table.add_row(outcome.gate.value, f"[{colour}]{outcome.status.value}[/{colour}]", reward, outcome.evidence)
    console.print(table)
    verdict = (
        f"[green]{validation.acceptance.value}[/green]"
        if validation.accepted
        else f"[red]rejected[/red]: {', '.join(validation.failing)}"
    )
    console.print(verdict)
    sys.exit(0 if validation.accepted else 1)
