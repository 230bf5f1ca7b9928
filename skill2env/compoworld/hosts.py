"""Where a rollout's world runs: the gateway in this process, or the services inside a bwrap sandbox.

Both answer the four meta-tools on one task's world and give its final states for scoring:

* `InProcessHost` — a `Gateway` over the task's world in this process (a configured world model
  can answer simulated calls the oracle run did not record);
* `BwrapHost` — the services run in a bubblewrap sandbox (no network, read-only host system, the
  sandbox's own `python3`): the world lives in a file in the sandbox's workspace and every
  meta-tool call is one run of `gateway_main` there, so a service's code never runs in the
  rollout's process. The copy of the package and pydantic that `verify.stage` makes is staged
  once per process. Simulated calls are answered from the task's recordings only (no model is
  reachable from the sandbox).

Failures of the host itself (the sandbox does not start, `gateway_main` crashes) raise
`GatewayHostError`, an `OSError`, which the agent loop records as `infra_error`.
"""

from __future__ import annotations

import json
import tempfile
from functools import cache
from pathlib import Path
from typing import Any, Literal, Protocol

from skill2env.compoworld.gateway import Envelope, Gateway
from skill2env.compoworld.selftest import stage
from skill2env.compoworld.tasks import CompoTask, task_world
from skill2env.compoworld.world_model import WorldModel
from skill2env.sandbox import SandboxError, SandboxLimits, TaskDir
from skill2env.sandbox.bwrap_backend import BwrapSandbox, bwrap_available

HostName = Literal["in_process", "bwrap"]
HOST_NAMES: tuple[str, ...] = ("in_process", "bwrap")
CALL_TIMEOUT_S = 60.0
WORLD_DIR = ".compoworld"
"""Inside the sandbox's workspace: the world file and the current request."""


class GatewayHostError(OSError):
    """The host could not answer: not the agent's failure."""


class GatewayHost(Protocol):
    """One task's world behind the four meta-tools (blocking: call it off the event loop)."""

    backend: str

    def start(self) -> None: ...

    def dispatch(self, name: str, arguments: dict[str, Any]) -> Envelope: ...

    def states(self) -> dict[str, dict[str, Any]]: ...

    def stop(self) -> None: ...


class InProcessHost:
    backend = "in_process"

    def __init__(self, task: CompoTask, world_model: WorldModel | None = None) -> None:
        self.task = task
        self.world_model = world_model
        self._gateway: Gateway | None = None

    def start(self) -> None:
        self._gateway = Gateway(task_world(self.task, self.world_model))

    def dispatch(self, name: str, arguments: dict[str, Any]) -> Envelope:
        return self._running().dispatch(name, arguments)

    def states(self) -> dict[str, dict[str, Any]]:
        return self._running().world.states()

    def stop(self) -> None:
        self._gateway = None

    def _running(self) -> Gateway:
        if self._gateway is None:
            raise GatewayHostError("the in-process gateway is not started")
        return self._gateway


_KEEP: list[tempfile.TemporaryDirectory[str]] = []


@cache
def _staged_task() -> Path:
    """A task directory whose workspace holds the package and pydantic (made once per process)."""
    scratch = tempfile.TemporaryDirectory(prefix="compoworld-gateway-")
    _KEEP.append(scratch)  # removed when the process exits
    root = Path(scratch.name)
    stage(root / "environment" / "workspace", with_dependencies=True)
    (root / "task.toml").write_text('[environment]\nnetwork_mode = "no-network"\n')
    (root / "instruction.md").write_text("Serve a CompoWorld world through the gateway.\n")
    return root


class BwrapHost:
    backend = "bwrap"

    def __init__(
        self, task: CompoTask, *, call_timeout_s: float = CALL_TIMEOUT_S, wall_clock_s: float = 3600.0
    ) -> None:
        self.task = task
        self.call_timeout_s = call_timeout_s
        self.wall_clock_s = wall_clock_s
        self._sandbox: BwrapSandbox | None = None

    def start(self) -> None:
        limits = SandboxLimits(
            memory_mb=1024,
            pids=64,
            wall_clock_s=self.wall_clock_s,
            environment={"PYTHONPATH": "/workspace:/workspace/_deps", "PYTHONDONTWRITEBYTECODE": "1"},
        )
        sandbox = BwrapSandbox(limits, reap=False)
        try:
            sandbox.start(TaskDir(_staged_task()))
            world = {
                "states": self.task.initial_states,
                "simulations": [r.model_dump(mode="json") for r in self.task.simulations],
            }
            sandbox.write_file(f"{WORLD_DIR}/world.json", json.dumps(world, ensure_ascii=False))
        except SandboxError as exc:
            sandbox.stop()
            raise GatewayHostError(f"the gateway's bwrap sandbox did not start: {exc}") from exc
        self._sandbox = sandbox

    def dispatch(self, name: str, arguments: dict[str, Any]) -> Envelope:
        sandbox = self._running()
        request = json.dumps({"meta_tool": name, "arguments": arguments}, ensure_ascii=False, default=str)
        command = [
            "python3", "-m", "skill2env.compoworld.gateway_main",
            f"{WORLD_DIR}/world.json", f"{WORLD_DIR}/request.json",
        ]  # fmt: skip
        try:
            sandbox.write_file(f"{WORLD_DIR}/request.json", request)
            result = sandbox.exec(command, timeout=self.call_timeout_s)
        except SandboxError as exc:
            raise GatewayHostError(f"the gateway in the sandbox failed on {name}: {exc}") from exc
        if result.exit_code != 0:
            raise GatewayHostError(
                f"the gateway in the sandbox exited {result.exit_code} on {name}: {result.stderr.strip()[-2000:]}"
            )
        try:
            envelope: Envelope = json.loads(result.stdout)
        except ValueError as exc:
            raise GatewayHostError(f"the gateway in the sandbox printed no envelope for {name}: {exc}") from exc
        return envelope

    def states(self) -> dict[str, dict[str, Any]]:
        try:
            document = json.loads(self._running().read_file(f"{WORLD_DIR}/world.json"))
        except (SandboxError, ValueError) as exc:
            raise GatewayHostError(f"reading the world's final state from the sandbox failed: {exc}") from exc
        states: dict[str, dict[str, Any]] = document["states"]
        return states

    def stop(self) -> None:
        if self._sandbox is not None:
            self._sandbox.stop()
            self._sandbox = None

    def _running(self) -> BwrapSandbox:
        if self._sandbox is None:
            raise GatewayHostError("the gateway's sandbox is not started")
        return self._sandbox


def make_host(name: str, task: CompoTask, *, world_model: WorldModel | None = None) -> GatewayHost:
    """`in_process`, `bwrap`, or `auto` (bwrap where it is installed, else in process).

    Raises: ValueError: an unknown name."""
    if name == "auto":
        name = "bwrap" if bwrap_available() else "in_process"
    if name == "in_process":
        return InProcessHost(task, world_model)
    if name == "bwrap":
        return BwrapHost(task)
    raise ValueError(f"unknown gateway host {name!r}: use in_process, bwrap or auto")
