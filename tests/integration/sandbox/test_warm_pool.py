"""Warm docker sandboxes on the real engine: started ahead, taken by a rollout as if it had started
them itself (its name, its full wall clock, a fresh workspace), stopped when unclaimed; and the last
workspace read from the volume's host mount, once nothing of the agent's runs any more."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task

from skill2env.sandbox.base import SandboxLimits, owner_token
from skill2env.sandbox.docker_backend import DockerSandbox
from skill2env.sandbox.engine import docker_client
from skill2env.sandbox.errors import SandboxDeadlineExceeded
from skill2env.sandbox.labels import OWNER_LABEL, SANDBOX_LABEL
from skill2env.sandbox.warm_pool import WarmPool
from skill2env.tasks.harbor import task_digest

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.usefixtures("docker_backend")]

LIMITS = SandboxLimits(storage_mb=64, tmp_mb=64)


def ours() -> list[str]:
    """Names of this process's sandbox containers and volumes still on the engine."""
    client = docker_client()
    try:
        label = {"label": [SANDBOX_LABEL, f"{OWNER_LABEL}={owner_token()}"]}
        volumes = [v.name or "" for v in client.volumes.list(filters=label)]
        return [c.name or "" for c in client.containers.list(all=True, filters=label)] + volumes
    finally:
        client.close()


def test_a_rollout_takes_a_started_container_renamed_after_it_with_a_fresh_workspace() -> None:
    task = fixture_task(CSV_AGGREGATION)
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, None)])
        assert pool.settle(120)
        sandbox = DockerSandbox(LIMITS, rollout_id="rollout-taking-warm", warm=pool)
        try:
            started = time.monotonic()
            sandbox.start(task)
            took = time.monotonic() - started
            assert pool.claimed == 1 and took < 0.2  # no container start: it was running already
            assert sandbox.mode == "docker:attach"
            listing = sandbox.exec("ls -A; id -un").stdout.split()
            assert listing == [*sorted(os.listdir(task.workspace_dir)), "agent"]
            deadline = time.monotonic() + 10
            while "skill2env-rollout-taking-warm" not in ours() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "skill2env-rollout-taking-warm" in ours()
        finally:
            sandbox.stop()
    assert ours() == []


def test_the_wall_clock_counts_from_the_claim_not_from_the_warm_start() -> None:
    task = fixture_task(CSV_AGGREGATION)
    limits = LIMITS.model_copy(update={"wall_clock_s": 3.0})
    with WarmPool(max_idle_s=5) as pool:
        pool.expect([(task, limits, None)])
        assert pool.settle(120)
        time.sleep(2.0)  # waited two of the three seconds on the shelf
        sandbox = DockerSandbox(limits, warm=pool)
        try:
            sandbox.start(task)
            assert sandbox.exec("sleep 2 && echo done").stdout == "done\n"  # the full 3 s are the rollout's
            time.sleep(1.2)
            with pytest.raises(SandboxDeadlineExceeded):
                sandbox.exec("true")
        finally:
            sandbox.stop()


def test_a_sandbox_left_on_the_shelf_too_long_is_removed_not_handed_out() -> None:
    task = fixture_task(CSV_AGGREGATION)
    with WarmPool(max_idle_s=0.5) as pool:
        pool.expect([(task, LIMITS, None)])
        assert pool.settle(120)
        time.sleep(1.0)

        assert pool.claim(task, LIMITS, None) is None
        assert ours() == []


def test_the_last_copy_out_ends_the_agents_processes_and_matches_copy_out(tmp_path: Path) -> None:
    sandbox = DockerSandbox(LIMITS)
    sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        sandbox.exec(
            "mkdir -p deep/er empty && printf x > deep/er/file && printf '#!/bin/sh\\n' > run.sh && chmod 755 run.sh"
            " && ln -s deep/er/file link && chmod 4755 deep/er/file"
        )
        sandbox.exec("nohup sh -c 'while true; do date >> busy.log; done' >/dev/null 2>&1 &")
        time.sleep(0.3)
        assert sandbox._local_mountpoint(sandbox.workspace) is not None  # the engine runs on this machine

        sandbox.copy_out_last(sandbox.workspace, tmp_path / "last")
        writer_left = sandbox.exec("pgrep -f 'busy[.]log' || echo none").stdout.strip()
        sandbox.copy_out(sandbox.workspace, tmp_path / "archive")
    finally:
        sandbox.stop()

    assert writer_left == "none"  # nothing of the agent's ran on: the tree cannot change under the read
    assert task_digest(tmp_path / "last") == task_digest(tmp_path / "archive")  # busy.log no longer grows
    for relative in ("run.sh", "deep/er/file", "link", "empty"):
        last, archive = (tmp_path / "last" / relative).lstat(), (tmp_path / "archive" / relative).lstat()
        assert (last.st_mode, last.st_uid) == (archive.st_mode, archive.st_uid), relative
    assert os.readlink(tmp_path / "last" / "link") == "deep/er/file"
    assert not (tmp_path / "last" / "deep/er/file").stat().st_mode & 0o4000  # the tar filter's, both ways
