"""`skill2env cluster`: start and stop a cluster on this machine, and run a worker of any cluster."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from rich.console import Console

from skill2env.cluster.errors import ClusterError
from skill2env.cluster.local import LocalCluster
from skill2env.cluster.workers import celery_arguments, prepare_worker_home
from skill2env.home import Home, ProfileError
from skill2env.tasks.cli import home_option

console = Console(stderr=True)


@click.group("cluster")
def cluster_group() -> None:
    """The cluster profile: a local cluster to try it, and the worker command of real ones."""


@cluster_group.command("up")
@home_option
@click.option("--workers", default=2, show_default=True, type=click.IntRange(min=1), help="Celery workers.")
@click.option(
    "--remote-engine/--no-remote-engine",
    default=True,
    show_default=True,
    help="Also start a second Docker engine on a loopback TCP socket, as a second sandbox host.",
)
@click.option("--slots", default=2, show_default=True, type=click.IntRange(min=1),
              help="Docker rollouts at once on each engine.")  # fmt: skip
def up_command(home: Path | None, workers: int, remote_engine: bool, slots: int) -> None:
    """Start Postgres, Redis and WORKERS celery workers on this machine (under <home>/cluster/) and write
    <home>/cluster.toml, so the home uses the cluster profile until `skill2env cluster down`."""
    cluster = LocalCluster(Home.resolve(home))
    try:
        cluster.up(workers, remote_engine=remote_engine, slots=slots,
                   report=lambda line: console.print(f"cluster: {line}"))  # fmt: skip
    except (ClusterError, ProfileError, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    console.print(f"Cluster up: {cluster.home.cluster_config}. Run `skill2env run` on this home; "
                  "`skill2env cluster down` stops it.")  # fmt: skip


@cluster_group.command("down")
@home_option
@click.option("--purge", is_flag=True, help="Also delete the cluster's data (its Postgres, lake and shared files).")
def down_command(home: Path | None, purge: bool) -> None:
    """Stop what `skill2env cluster up` started and take cluster.toml out of the home."""
    cluster = LocalCluster(Home.resolve(home))
    if cluster.state() is None and not cluster.home.cluster_config.exists():
        console.print(f"No cluster runs for {cluster.home.root}.")
        return
    try:
        cluster.down(purge=purge, report=lambda line: console.print(f"cluster: {line}"))
    except ClusterError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    if not purge:
        console.print(f"Cluster down; its data stays in {cluster.root} (--purge deletes it).")


@cluster_group.command("worker")
@home_option
@click.option("--name", default="worker", show_default=True, help="The worker's name in celery and the run logs.")
@click.option("--log-level", default="INFO", show_default=True)
def worker_command(home: Path | None, name: str, log_level: str) -> None:
    """Run a celery worker of the cluster that HOME's cluster.toml describes, in the foreground (what a
    service manager or `skill2env cluster up` starts on each worker machine)."""
    resolved = Home.resolve(home)
    try:
        config_dir = prepare_worker_home(resolved)
    except ProfileError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)
    python_path = os.pathsep.join(p for p in (str(config_dir), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": python_path, "SKILL2ENV_HOME": str(resolved.root)}
    # The worker replaces this process: it is the process a service manager (or `cluster up`) watches.
    os.execve(sys.executable, [sys.executable, "-m", "celery", *celery_arguments(name, log_level)], env)  # noqa: S606
