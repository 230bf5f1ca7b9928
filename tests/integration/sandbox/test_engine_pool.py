"""Docker rollouts on a pool of two real engines (this machine's, and a second `dockerd` on a loopback
TCP socket): the base image reaches the second engine by itself, rollouts spread over both, and when
the second engine dies mid-run its attempts are recorded as infra_error and run again on the other."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task, require_backend

from skill2env.agent.actors import ScriptPolicy
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.cluster.dockerd import LocalEngine
from skill2env.cluster.local import LOCAL_ENGINE
from skill2env.cluster.processes import free_port
from skill2env.home import Home
from skill2env.sandbox.engine_pool import EnginePool
from skill2env.sandbox.hosts import EngineHost
from skill2env.sandbox.labels import SANDBOX_LABEL

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.slow]

ATTEMPTS = 4
MACHINE_BRIDGE = "docker0"
SLOW = ScriptPolicy("slow", [[("bash", {"command": "sleep 5; echo slept"})], [("finish", {"message": "slept"})]])
"""Each attempt holds its sandbox for seconds: long enough to lose the engine under it."""


@pytest.fixture
def second_engine() -> Iterator[tuple[LocalEngine, list[int]]]:
    require_backend("docker")
    if os.geteuid() != 0 or shutil.which("dockerd") is None:
        pytest.fail("a second Docker engine needs root and dockerd (scripts/setup-sandbox.sh installs it)")
    root = Path(tempfile.mkdtemp(prefix="skill2env-engine-"))
    engine = LocalEngine(root, free_port())
    machine_bridge = interface_exists(MACHINE_BRIDGE)
    pids = [engine.start()]
    try:
        # A second engine must leave the machine engine's network alone (`--bridge none` deletes it).
        assert interface_exists(MACHINE_BRIDGE) == machine_bridge
        yield engine, pids
    finally:
        if not engine.answers():  # killed by the test: bring it back to remove what it left running
            pids.append(engine.start())
        engine.stop(pids[-1])
        shutil.rmtree(root, ignore_errors=True)
    assert interface_exists(MACHINE_BRIDGE) == machine_bridge
    assert not interface_exists(engine.bridge)


def interface_exists(name: str) -> bool:
    return subprocess.run(["ip", "link", "show", name], capture_output=True, check=False).returncode == 0


def sandboxes_on(url: str) -> int:
    client = docker.DockerClient(base_url=url, timeout=10)
    try:
        return len(client.containers.list(filters={"label": SANDBOX_LABEL}))
    finally:
        client.close()


class Watcher:
    """Counts the sandboxes on an engine while a group of rollouts runs; with `kill`, SIGKILLs the
    engine (and its containerd) the first time one runs there."""

    def __init__(self, engine: LocalEngine, pid: int, *, kill: bool) -> None:
        self.engine, self.pid, self.kill = engine, pid, kill
        self.seen = 0
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._watch)

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._finished.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._finished.is_set():
            running = sandboxes_on(self.engine.url)
            self.seen = max(self.seen, running)
            if running and self.kill:
                os.killpg(self.pid, signal.SIGKILL)  # gone mid-rollout
                return
            time.sleep(0.2)


def test_rollouts_spread_over_both_engines_and_a_lost_engine_s_attempts_run_again_on_the_other(
    second_engine: tuple[LocalEngine, list[int]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="skill2env.agent.rollout")
    engine, pids = second_engine
    pool = EnginePool([EngineHost(LOCAL_ENGINE, 2), engine.host(2)])
    runner = RolloutRunner(SLOW, backend="docker", run_id="engine-pool", home=Home(tmp_path / "home"), engines=pool)
    assert runner.concurrency == 4  # the pool's slots
    specs = attempt_specs([TaskRef(fixture_task(CSV_AGGREGATION), "csv-i0", "data-analysis", 0)], attempts=ATTEMPTS)

    with Watcher(engine, pids[0], kill=False) as both_up:
        first = runner.run_all(specs)
    assert both_up.seen == 2, "the second engine should run its two slots' rollouts"
    # Containers were started ahead on both engines (the second one received the base image first).
    assert "warm sandboxes: 4 started ahead, 4 taken by attempts" in caplog.text
    assert [t.status for t in first] == ["completed"] * ATTEMPTS
    assert all(t.workspace_digest for t in first)  # snapshotted on whichever engine ran them

    with Watcher(engine, pids[0], kill=True) as losing:
        trajectories = runner.run_all(specs)

    assert losing.seen, "no rollout ever ran on the second engine"
    lost = [t for t in trajectories if t.status == "infra_error"]
    assert lost, "the second engine died under running rollouts, which must end as infra_error"
    assert all(f"sandbox engine {engine.url} lost" in (t.error or "") for t in lost)
    # Every attempt ended completed: its last try ran on the engine that kept answering.
    last_try = {t.attempt: t for t in trajectories}
    assert sorted(last_try) == list(range(1, ATTEMPTS + 1))
    assert [t.status for t in last_try.values()] == ["completed"] * ATTEMPTS
    assert len(trajectories) == ATTEMPTS + len(lost)
    assert engine.url in pool.drained() and pool.slots == 2
