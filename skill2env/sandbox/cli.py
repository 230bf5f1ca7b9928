"""`skill2env sandbox …`: set up and inspect the sandbox backends."""

from __future__ import annotations

import sys
import time

import click
from rich.console import Console
from rich.table import Table

from skill2env.sandbox.base_image import BaseImageRecipe, ensure_base_image, push_base_image
from skill2env.sandbox.engine import docker_client, doctor, start_dockerd
from skill2env.sandbox.errors import SandboxError
from skill2env.sandbox.rootfs import export_base_rootfs

console = Console(stderr=True)


@click.group("sandbox")
def sandbox() -> None:
    """Sandboxes: the Docker engine, the offline base image, bubblewrap."""


@sandbox.command("build-base")
@click.option("--force", is_flag=True, help="Build even when an image from the same recipe exists.")
@click.option("--mirror", default=None, help="Debian mirror (default: $SKILL2ENV_DEBIAN_MIRROR or deb.debian.org).")
@click.option("--start-engine/--no-start-engine", default=True, show_default=True, help="Start dockerd if needed.")
def build_base(force: bool, mirror: str | None, start_engine: bool) -> None:
    """Build the skill2env base image offline: debootstrap → chroot apt → docker import."""
    started = time.monotonic()
    try:
        if start_engine:
            start_dockerd()
        client = docker_client(timeout=3600)
        try:
            result = ensure_base_image(
                client,
                BaseImageRecipe(),
                mirror=mirror,
                force=force,
                log=lambda line: console.print(f"[dim]{time.monotonic() - started:6.1f} s[/dim] {line}"),
            )
            rootfs = export_base_rootfs(client, result.tag)
        finally:
            client.close()
    except SandboxError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    verb = f"built in {result.seconds:.0f} s" if result.built else "already built"
    console.print(f"{result.tag} (= skill2env-base:latest) {verb}: {result.image_id[:19]}", soft_wrap=True)
    console.print(f"its file system, for bwrap sandboxes: {rootfs}", soft_wrap=True)


@sandbox.command("push-base")
@click.argument("registry")
def push_base(registry: str) -> None:
    """Push the base image to REGISTRY (host[:port][/path]) and print its reference by digest.

    Give that reference to `skill2env export harbor --base-image REF`: every exported Dockerfile then
    names the base image immutably, and the tasks build wherever that registry is reachable.
    """
    try:
        client = docker_client(timeout=3600)
        try:
            reference = push_base_image(client, registry)
        finally:
            client.close()
    except SandboxError as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(1)
    click.echo(reference)


@sandbox.command("doctor")
def doctor_command() -> None:
    """Report what each sandbox backend needs, what is here, what to do, and which backend `--backend
    auto` runs and why. Exits 1 if anything is missing."""
    checks = doctor()
    table = Table(title="skill2env sandbox doctor")
    for column in ("check", "ok", "detail", "to fix"):
        table.add_column(column, overflow="fold")
    for check in checks:
        mark = "[green]yes[/green]" if check.ok else "[red]no[/red]"
        table.add_row(check.name, mark, check.detail, "" if check.ok else check.fix)
    Console().print(table)
    sys.exit(0 if all(check.ok for check in checks) else 1)


@sandbox.command("reap")
def reap_command() -> None:
    """Remove what crashed rollouts left (orphaned containers, volumes and bwrap workspaces) and task
    image file systems unpacked for bwrap and unused for a day."""
    from skill2env.sandbox.bwrap_backend import bwrap_root
    from skill2env.sandbox.engine import engine_reachable
    from skill2env.sandbox.reaper import reap_bwrap, reap_docker
    from skill2env.sandbox.rootfs import reap_rootfs

    removed = reap_bwrap(bwrap_root()).workspaces + [f"rootfs {name}" for name in reap_rootfs()]
    if engine_reachable():
        client = docker_client()
        try:
            report = reap_docker(client)
        finally:
            client.close()
        removed += report.containers + report.volumes
    console.print(f"removed {len(removed)} orphans" + (f": {', '.join(removed)}" if removed else ""), soft_wrap=True)


if __name__ == "__main__":
    sandbox()
