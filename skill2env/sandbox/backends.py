"""Pick a sandbox backend by name, or let `auto` choose one and say why."""

from __future__ import annotations

import logging
from typing import Literal, NamedTuple

from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.errors import SandboxUnavailable

logger = logging.getLogger(__name__)

BackendName = Literal["docker", "bwrap"]
BACKEND_NAMES: tuple[BackendName, ...] = ("docker", "bwrap")
AUTO = "auto"


class BackendChoice(NamedTuple):
    """The backend a run uses, why, and whether `auto` fell back from bwrap to it."""

    name: BackendName
    reason: str
    fallback: bool = False


def make_sandbox(backend: BackendName, limits: SandboxLimits | None = None, **options: object) -> Sandbox:
    """A not-yet-started sandbox of `backend`; `options` go to the backend's constructor."""
    if backend == "docker":
        from skill2env.sandbox.docker_backend import DockerSandbox

        return DockerSandbox(limits, **options)  # type: ignore[arg-type]
    if backend == "bwrap":
        from skill2env.sandbox.bwrap_backend import BwrapSandbox

        return BwrapSandbox(limits, **options)  # type: ignore[arg-type]
    raise ValueError(f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKEND_NAMES)}")


def choose_backend(requested: str) -> BackendChoice:
    """`docker` / `bwrap` as asked; `auto`: bwrap when it is installed and has an image file system
    to run over (fast, the same tools as docker), else docker when its engine answers. Never bwrap
    over the host's own `/`.

    Raises:
        ValueError: an unknown name.
        SandboxUnavailable: `auto`, and neither backend can run here (the message says what to do).
    """
    if requested in BACKEND_NAMES:
        return BackendChoice(requested, "asked for")
    if requested != AUTO:
        raise ValueError(f"unknown sandbox backend {requested!r}: use auto, docker or bwrap")
    from skill2env.sandbox.bwrap_backend import bwrap_installed  # the docker SDK only where it is needed
    from skill2env.sandbox.engine import engine_reachable
    from skill2env.sandbox.rootfs import CONFIGURED_ROOT, configured_root, image_rootfs, missing_rootfs

    if not bwrap_installed():
        without_bwrap = "bubblewrap (bwrap) or prlimit is not installed"
    elif (configured := configured_root()) is not None:
        return BackendChoice("bwrap", f"bwrap is installed; its system root is {configured} (${CONFIGURED_ROOT})")
    elif (image := image_rootfs()) is not None:
        return BackendChoice("bwrap", f"bwrap is installed and the base image's file system is unpacked at {image}")
    else:
        without_bwrap = missing_rootfs()
    if engine_reachable():
        return BackendChoice("docker", f"the Docker engine answers, and bwrap cannot run: {without_bwrap}", True)
    raise SandboxUnavailable(f"no sandbox backend can run here: the Docker engine does not answer, and {without_bwrap}")


def resolve_backend(requested: str) -> BackendName:
    """`docker` / `bwrap` as asked; `auto`: bwrap over the unpacked base image when it is here, else
    docker when its engine answers (logged as a fallback; see `choose_backend`).

    Raises:
        SandboxUnavailable: `auto`, and neither backend can run here.
    """
    choice = choose_backend(requested)
    if choice.fallback:
        logger.warning("sandbox backend auto: %s (%s)", choice.name, choice.reason)
    elif requested == AUTO:
        logger.info("sandbox backend auto: %s (%s)", choice.name, choice.reason)
    return choice.name
