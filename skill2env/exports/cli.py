"""`skill2env export sft`, `skill2env export rl` and `skill2env report`.

Importing this module adds `sft` and `rl` to the `export` group (`skill2env.tasks.cli.export_group`);
`report_command` is for the main command to add.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
import duckdb
import polars as pl
from pydantic import ValidationError
from rich.console import Console

from skill2env.exports.report import write_report
from skill2env.exports.rl import export_rl
from skill2env.exports.sft import sft_export_frame, write_sft
from skill2env.home import Home
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import Lake, LakeError
from skill2env.tasks.cli import export_group, home_option
from skill2env.tasks.export import ExportError
from skill2env.tasks.store import TaskStore
from skill2env.thresholds import SFT_MIN_REWARD

console = Console(stderr=True)


def _existing_lake(home: Path | None) -> tuple[Home, Lake]:
    """The home's lake; exits 2 when there is none (reading would create an empty one)."""
    resolved = Home.resolve(home)
    lake = lake_of(resolved)
    if not lake.exists():
        console.print(f"[red]error:[/red] no lake at {lake.location}; run `skill2env run` first")
        sys.exit(2)
    return resolved, lake


@export_group.command("sft")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="File to write.")
@click.option("--min-reward", type=float, default=SFT_MIN_REWARD, show_default=True,
              help="Keep rollouts whose reward exceeds this.")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl", show_default=True,
              help="jsonl: OpenAI chat lines; parquet: messages and tools as JSON text (TRL / datasets).")  # fmt: skip
@home_option
def export_sft(out: Path, min_reward: float, fmt: str, home: Path | None) -> None:
    """Write the SFT examples whose reward exceeds --min-reward to OUT, each with its lineage.

    Only completed, verified rollouts qualify (no infrastructure error), whose trajectory is not in
    `rollout_flags`, of tasks not flagged as defective (by a hardening round or in `task_defects`), and
    CompoWorld's completed, scored attempts (`source` compoworld, with their task's services); every
    example is validated before the file appears.
    """
    _, lake = _existing_lake(home)
    try:
        frame = sft_export_frame(lake, min_reward)
        written = write_sft(frame, out, "parquet" if fmt == "parquet" else "jsonl")
    except (LakeError, duckdb.Error) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    except ValidationError as exc:
        console.print(f"[red]error:[/red] an example does not validate, nothing written: {exc}")
        sys.exit(1)
    by_iteration = ", ".join(
        f"iteration {k}: {n}" for k, n in frame.group_by("iteration").len().sort("iteration").rows()
    )
    console.print(f"Wrote {written} SFT example(s) with reward > {min_reward} to {out}" +
                  (f" ({by_iteration})." if by_iteration else "."))  # fmt: skip


@export_group.command("rl")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to write into.")
@click.option("--policy", default=None, help="Pass rates of this policy's attempts only (default: every policy).")
@home_option
def export_rl_command(out: Path, policy: str | None, home: Path | None) -> None:
    """Write the accepted task directories (OUT/tasks/<task_id>/) and their per-item pass rates with the
    low-pass-rate RL weights (OUT/item_pass_rates.parquet and .csv), and their verified attempts with the
    ones whose trajectory is in `rollout_flags` marked (OUT/rollouts.parquet and .csv). Tasks flagged as
    defective (by a hardening round or in `task_defects`) are left out."""
    resolved, lake = _existing_lake(home)
    try:
        exported = export_rl(lake, TaskStore.of(resolved), out, policy=policy)
    except (LakeError, ExportError, duckdb.Error) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    written = sum(1 for e in exported.tasks if e.written)
    console.print(
        f"Exported {len(exported.tasks)} task version(s) to {out / 'tasks'} ({written} written); pass rates of "
        f"{exported.tasks_with_rates} task id(s) ({exported.pass_rates.height} items) in {exported.parquet.name} "
        f"and {exported.csv.name}; {exported.rollouts.height} attempt(s), "
        f"{exported.rollouts.filter(pl.col('flagged')).height} flagged, in {exported.rollouts_parquet.name}."
    )


@click.command("report")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to write into.")
@home_option
def report_command(out: Path, home: Path | None) -> None:
    """Write PNG plots and a Markdown summary (OUT/report.md) of the lake: tasks, validation funnel,
    hardening curve beside the paper's numbers, model usage, catalog statistics."""
    _, lake = _existing_lake(home)
    try:
        report = write_report(lake, out)
    except (LakeError, duckdb.Error) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    console.print(f"Wrote {report.markdown} and {', '.join(p.name for p in report.plots)}.")
