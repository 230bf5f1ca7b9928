"""Pick a sandbox backend by name."""

from __future__ import annotations

from typing import Literal

from skill2env.sandbox.base import Sandbox, SandboxLimits

BackendName = Literal["docker", "bwrap"]
BACKEND_NAMES: tuple[BackendName, ...] = ("docker", "bwrap")


def make_sandbox(backend: BackendName, limits: SandboxLimits | None = None, **options: object) -> Sandbox:
    """A not-yet-started sandbox of `backend`; `options` go to the backend's constructor."""
    if backend == "docker":
        from skill2env.sandbox.docker_backend import DockerSandbox

        return DockerSandbox(limits, **options)  # type: ignore[arg-type]
    if backend == "bwrap":
        from skill2env.sandbox.bwrap_backend import BwrapSandbox

        return BwrapSandbox(limits, **options)  # type: ignore[arg-type]
    raise ValueError(f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKEND_NAMES)}")
