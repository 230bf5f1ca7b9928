"""Remove what crashed rollouts left behind: containers, volumes, bwrap workspaces.

A resource is an orphan when the process that started it is gone (its owner token no longer
names a running process) or its wall clock ran out more than a grace period ago. Sandboxes of
live rollouts, in this process or others, are left alone, so reaping at every start is safe.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import docker
from docker.errors import APIError, NotFound
from pydantic import BaseModel, Field

from skill2env.sandbox.base import owner_is_alive
from skill2env.sandbox.labels import DEADLINE_LABEL, OWNER_LABEL, ROLLOUT_LABEL, SANDBOX_LABEL

DEADLINE_GRACE_S = 60.0
OWNER_FILE = "owner"
ROLLOUT_FS = "fs"
"""The rollout directory's subfolder holding its private filesystem (a tmpfs when run as root)."""
UNOWNED_GRACE_S = 60.0
"""A rollout directory without an owner file is younger than this while its creator is still writing it."""


class ReapReport(BaseModel):
    containers: list[str] = Field(default_factory=list)
    volumes: list[str] = Field(default_factory=list)
    workspaces: list[str] = Field(default_factory=list)


def is_orphan(labels: Mapping[str, str], *, now: float | None = None) -> bool:
    deadline = labels.get(DEADLINE_LABEL, "")
    expired = deadline.isdigit() and int(deadline) + DEADLINE_GRACE_S < (now or time.time())
    return expired or not owner_is_alive(labels.get(OWNER_LABEL, ""))


def reap_docker(client: docker.DockerClient) -> ReapReport:
    """Remove orphaned sandbox containers (with their volumes), then orphaned sandbox volumes."""
    report = ReapReport()
    live_rollouts = set()
    # The engine lists, then each container is inspected: one its owner removes in between is no orphan.
    for container in client.containers.list(all=True, filters={"label": SANDBOX_LABEL}, ignore_removed=True):
        labels = container.labels
        if not is_orphan(labels):
            live_rollouts.add(labels.get(ROLLOUT_LABEL))
            continue
        try:
            container.remove(force=True, v=True)
            report.containers.append(container.name or container.id or "")
        except (NotFound, APIError):
            pass  # removed concurrently by its owner or another reaper
    for volume in client.volumes.list(filters={"label": SANDBOX_LABEL}):
        labels = volume.attrs.get("Labels") or {}
        if labels.get(ROLLOUT_LABEL) in live_rollouts or not is_orphan(labels):
            continue
        try:
            volume.remove(force=True)
            report.volumes.append(volume.name or "")
        except (NotFound, APIError):
            pass
    return report


def reap_bwrap(root: Path) -> ReapReport:
    """Remove orphaned bwrap rollout directories under `root` (unmounting their tmpfs first)."""
    report = ReapReport()
    if not root.is_dir():
        return report
    for rollout in root.iterdir():
        owner_file = rollout / OWNER_FILE
        try:
            token = owner_file.read_text().strip()
        except OSError:
            token = ""
        if owner_is_alive(token) if token else _younger_than(rollout, UNOWNED_GRACE_S):
            continue
        remove_rollout_dir(rollout)
        report.workspaces.append(rollout.name)
    return report


def remove_rollout_dir(rollout: Path) -> None:
    """Unmount the rollout's tmpfs (when it has one) and delete the directory."""
    for mountpoint in (rollout / ROLLOUT_FS, rollout):
        if mountpoint.is_mount():
            subprocess.run(["umount", "--lazy", str(mountpoint)], check=False, capture_output=True)
    try:
        shutil.rmtree(rollout, ignore_errors=True)
    except RecursionError:  # a tree deeper than Python's recursion limit, which an agent can make
        subprocess.run(["rm", "-rf", "--", str(rollout)], check=False, capture_output=True)


def _younger_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime < seconds
    except OSError:
        return False
