"""Who broke the sandbox decides how an attempt ends: an agent whose own commands kill the command
server gets a failed attempt with the cause (scored on the workspace where it can still be read),
never an `infra_error`; a sandbox killed from the host is an `infra_error` — on both backends."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task, tree
from host_faults import OOM_THE_SERVER, kill_server_from_the_host
from llm_server import ScriptedServer, tool_calls

from skill2env.agent.actors import SolverPolicy
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.agent.trajectory import Trajectory
from skill2env.home import Home
from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.bwrap_backend import BwrapSandbox, MemoryCgroup

pytestmark = pytest.mark.integration

BREAKING_LIMITS = {"memory_mb": 128, "storage_mb": 256, "tmp_mb": 256}


def _runner(server: ScriptedServer, home: Home, backend: BackendName, made: list[Sandbox]) -> RolloutRunner:
    config = RoleConfig(base_url=server.base_url, model="scripted-model", max_attempts=1)
    policy = SolverPolicy(ModelClient("solver", config, cache=ResponseCache(home.root / "cache", CacheMode.off)))

    def factory(limits: SandboxLimits, rollout_id: str) -> Sandbox:
        made.append(make_sandbox(backend, limits, rollout_id=rollout_id))
        return made[-1]

    return RolloutRunner(policy, backend=backend, run_id="r", home=home, sandbox_limits=BREAKING_LIMITS,
                         sandbox_factory=factory)  # fmt: skip


def _one_attempt(runner: RolloutRunner) -> Trajectory:
    (trajectory,) = runner.run_all(attempt_specs([TaskRef(fixture_task(CSV_AGGREGATION), "t", "d")], attempts=1))
    return trajectory


def test_an_agent_that_kills_the_server_fails_its_own_attempt(
    backend: BackendName, server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if backend == "bwrap" and os.geteuid() != 0:
        pytest.skip("bwrap sandboxes get a memory cgroup of their own only as root")
    home, made = Home(tmp_path / "home"), []
    server.script(
        tool_calls(("write_file", {"path": "output/partial.csv", "content": "region\n"})),
        tool_calls(("bash", {"command": OOM_THE_SERVER, "timeout": 120})),
        # Once in a while the OOM killer picks the filling command rather than the server (the command
        # then returns): the agent tries again, as a real one would.
        tool_calls(("bash", {"command": OOM_THE_SERVER, "timeout": 120})),
    )
    cgroups: list[MemoryCgroup | None] = []
    original = MemoryCgroup.create

    def recorded(group: str, name: str, limit_bytes: int) -> MemoryCgroup | None:
        cgroups.append(original(group, name, limit_bytes))
        return cgroups[-1]

    monkeypatch.setattr(MemoryCgroup, "create", staticmethod(recorded))

    done = _one_attempt(_runner(server, home, backend, made))

    if backend == "bwrap":  # without its own cgroup the tmpfs pages are limited by nothing: no OOM at all
        assert cgroups and cgroups[0] is not None, "the sandbox got no memory cgroup of its own (see the log)"
    assert done.status == "sandbox_broken", f"{done.error} (memory cgroup: {cgroups})"
    assert "OOM killer" in str(done.error)
    if backend == "bwrap":  # the workspace outlived the server: it is scored like any other
        assert tree(home.root / str(done.workspace_path))["output/partial.csv"] == b"region\n"
    else:  # the container took its tmpfs workspace with it: a failed attempt, and the error says why
        assert done.workspace_path is None
        assert "snapshotting the final workspace failed" in str(done.error)


def test_a_sandbox_killed_from_the_host_is_an_infra_error(
    backend: BackendName, server: ScriptedServer, tmp_path: Path
) -> None:
    home, made = Home(tmp_path / "home"), []
    server.script(tool_calls(("bash", {"command": "sleep 60", "timeout": 120})))
    runner = _runner(server, home, backend, made)
    killer = threading.Thread(target=_kill_once_running, args=(made,), daemon=True)
    killer.start()

    done = _one_attempt(runner)
    killer.join()

    assert done.status == "infra_error", done.error
    assert "from outside the sandbox" in str(done.error)


def _kill_once_running(made: list[Sandbox]) -> None:
    """SIGKILL the sandbox's command server from the host once the agent's `sleep` runs in it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if made and _running_sleep(made[0]):
            break
        time.sleep(0.2)
    kill_server_from_the_host(made[0])


def _running_sleep(sandbox: Sandbox) -> bool:
    if isinstance(sandbox, BwrapSandbox):
        server = sandbox._server
        if server is None:
            return False
        return any(b"sleep\x0060" in _cmdline(pid) for pid in _pids())
    try:
        return "sleep 60" in sandbox.exec("ps -eo args", user="root").stdout
    except Exception:
        return False


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
