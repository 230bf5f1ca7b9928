"""kill -9 a rollout's process mid-run, start again: nothing of it is left once the reaper ran."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from harbor_tasks import CSV_AGGREGATION, HARBOR_FIXTURES, SandboxFactory, fixture_task

from skill2env.sandbox.backends import BackendName
from skill2env.sandbox.base import SandboxLimits, new_rollout_id
from skill2env.sandbox.bwrap_backend import bwrap_root
from skill2env.sandbox.engine import docker_client
from skill2env.sandbox.labels import ROLLOUT_LABEL

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LIMITS = SandboxLimits(storage_mb=64, tmp_mb=64, wall_clock_s=600)
ROLLOUT_SCRIPT = """
import sys, threading, time
from pathlib import Path
from skill2env.sandbox.backends import make_sandbox
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir

backend, task_dir, rollout_id, marker = sys.argv[1:]
sandbox = make_sandbox(backend, SandboxLimits(storage_mb=64, tmp_mb=64, wall_clock_s=600), rollout_id=rollout_id)
sandbox.start(TaskDir(Path(task_dir)))
threading.Thread(target=sandbox.exec, args=(f"sleep {marker}",), kwargs={"timeout": 500}, daemon=True).start()
print("READY", flush=True)
time.sleep(600)
"""


def _processes(marker: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if f"sleep {marker}" in line]


def _wait_for(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def _leftovers(backend: BackendName, rollout_id: str) -> list[str]:
    if backend == "bwrap":
        return [str(p) for p in [bwrap_root() / rollout_id] if p.exists()]
    client = docker_client()
    try:
        label = {"label": f"{ROLLOUT_LABEL}={rollout_id}"}
        containers = [c.name or "" for c in client.containers.list(all=True, filters=label)]
        return containers + [v.name or "" for v in client.volumes.list(filters=label)]
    finally:
        client.close()


def test_a_killed_rollout_leaves_nothing_after_the_next_start(
    backend: BackendName, new_sandbox: SandboxFactory
) -> None:
    rollout_id = new_rollout_id()
    marker = f"{time.time_ns() % 1000000}.{os.getpid()}"
    rollout = subprocess.Popen(
        [sys.executable, "-c", ROLLOUT_SCRIPT, backend, str(HARBOR_FIXTURES / CSV_AGGREGATION), rollout_id, marker],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert rollout.stdout is not None and rollout.stdout.readline().strip() == "READY"
        assert _wait_for(lambda: bool(_processes(marker))), "the rollout's command never started"
        assert _leftovers(backend, rollout_id), "the rollout left no trace to reap; the test proves nothing"
    finally:
        os.kill(rollout.pid, signal.SIGKILL)
        rollout.wait()

    again = new_sandbox(LIMITS)
    again.start(fixture_task(CSV_AGGREGATION))  # reaps at start-up

    assert _leftovers(backend, rollout_id) == []
    assert _wait_for(lambda: not _processes(marker))
    assert again.exec("echo alive").stdout == "alive\n"


def test_the_reaper_leaves_live_sandboxes_alone(backend: BackendName, new_sandbox: SandboxFactory) -> None:
    first = new_sandbox(LIMITS)
    first.start(fixture_task(CSV_AGGREGATION))
    second = new_sandbox(LIMITS)
    second.start(fixture_task(CSV_AGGREGATION))

    assert first.exec("echo still alive").stdout == "still alive\n"
    assert _leftovers(backend, first.rollout_id)
